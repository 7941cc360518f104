import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  MAX_HELLO_BYTES,
  type RelayHello,
  type RelayWelcome,
  serverFailureFile,
} from '../integrations/relay-address.js';

/** How long a relay tries to reach or start the server before it serves in-process. */
const ATTACH_MS = 15_000;
/** A start lock older than this was left by a relay that died while starting the server. */
const STALE_START_MS = 10_000;

/**
 * A connection to this home's server, welcomed; the server is started when none answers (one
 * relay starts it under a lock, the others wait for it). Null when none can run here: why is
 * recorded for `doctor`.
 */
export async function attach(home: string, socketPath: string, hello: RelayHello): Promise<Socket | null> {
  const deadline = Date.now() + ATTACH_MS;
  const lock = `${socketPath}.starting`;
  let started: Started | null = null;
  let why = 'it did not answer in time';
  try {
    mkdirSync(home, { recursive: true });
  } catch (error) {
    return failed(home, `the home folder cannot be made (${(error as Error).message})`);
  }
  while (Date.now() < deadline) {
    const socket = await connect(socketPath);
    if (socket) {
      const welcome = await handshake(socket, hello);
      if (started) rmSync(lock, { recursive: true, force: true });
      if (welcome?.ok) return socket;
      socket.destroy();
      // The server holds as many connections as it takes: this client is served in its own process.
      if (welcome && !welcome.ok && welcome.full) return failed(home, welcome.error);
      if (welcome && !welcome.ok && welcome.retry) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      if (welcome && !welcome.ok) {
        process.stderr.write(
          `session-collab: ${welcome.error}\n${welcome.hint ? `  → ${welcome.hint}\n` : ''}`,
        );
        process.exit(1);
      }
    } else if (started?.exit === 'code 0') {
      // It found another server answering (one that started meanwhile): that one is waited for.
      rmSync(lock, { recursive: true, force: true });
      started = null;
    } else if (started?.exit !== undefined) {
      rmSync(lock, { recursive: true, force: true });
      why = `it exited (${started.exit})${started.stderr ? `: ${started.stderr.trim().slice(-2000)}` : ''}`;
      break;
    } else if (!started) {
      const taken = takeLock(lock);
      if (taken === 'failed') return failed(home, 'its start lock cannot be made in the home folder');
      if (taken === 'taken') started = startServer(home);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return failed(home, `the machine's server could not be reached: ${why}`);
}

/** Records why this client is served in its own process (for `doctor`); null, for `attach`. */
export function failed(home: string, reason: string): null {
  try {
    writeFileSync(serverFailureFile(home), `${JSON.stringify({ at: new Date().toISOString(), reason })}\n`);
  } catch {
    // A read-only home: doctor finds out for itself.
  }
  return null;
}

/** Takes the start lock (a folder: made by one process only): 'taken', 'held' by another, or 'failed'. */
function takeLock(lock: string): 'taken' | 'held' | 'failed' {
  try {
    mkdirSync(lock);
    return 'taken';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return 'failed';
    try {
      if (Date.now() - statSync(lock).mtimeMs > STALE_START_MS)
        rmSync(lock, { recursive: true, force: true });
    } catch {
      // Removed meanwhile: the next round takes it.
    }
    return 'held';
  }
}

interface Started {
  exit?: string;
  stderr: string;
}

/** Starts this home's server (`hub --machine`), detached: it outlives this relay. */
function startServer(home: string): Started {
  const env: NodeJS.ProcessEnv = { ...process.env, SESSION_COLLAB_HOME: home };
  // The server is no client's: ids a client gave its relay are not the server's.
  for (const key of [
    'SESSION_COLLAB_SESSION_ID',
    'SESSION_COLLAB_SESSION_NAME',
    'CLAUDE_CODE_SESSION_ID',
    'CURSOR_CONVERSATION_ID',
  ])
    delete env[key];
  const started: Started = { stderr: '' };
  // What the server writes to its standard error (a crash's stack) goes to a file of the home's
  // logs, which outlives this relay; a server that exits at start is told by its tail.
  const errors = join(home, 'logs', 'server-stderr.log');
  let fd: number | 'ignore' = 'ignore';
  try {
    mkdirSync(dirname(errors), { recursive: true });
    // Kept short: started afresh once over 1 MB.
    fd = openSync(errors, existsSync(errors) && statSync(errors).size > 1_000_000 ? 'w' : 'a');
  } catch {
    fd = 'ignore';
  }
  // Its old generation starts at 64 MiB: the default's limit, reached while the first calls load
  // and compile the code, cost a full collection of 5-12 ms in one of them (none after).
  const child = spawn(
    process.execPath,
    ['--initial-old-space-size=64', join(__dirname, 'cli.cjs'), 'hub', '--machine'],
    {
      cwd: homedir(),
      env,
      detached: true,
      stdio: ['ignore', 'ignore', fd],
    },
  );
  if (typeof fd === 'number') closeSync(fd);
  const tail = () => {
    try {
      const text = readFileSync(errors, 'utf8');
      return text.slice(-4_000);
    } catch {
      return '';
    }
  };
  child.once('error', (error) => {
    started.exit = error.message;
  });
  child.once('exit', (code, signal) => {
    started.stderr = tail();
    started.exit = signal ?? `code ${code}`;
  });
  child.unref();
  return started;
}

/** A connection to the socket, or null when nothing listens there. */
function connect(path: string): Promise<Socket | null> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    socket.once('connect', () => resolve(socket));
    socket.once('error', () => resolve(null));
  });
}

/** Sends the hello; the server's welcome, or null when the connection ends first. */
function handshake(socket: Socket, hello: RelayHello): Promise<RelayWelcome | null> {
  return new Promise((resolve) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const at = text.indexOf('\n');
      if (at === -1) {
        if (text.length > MAX_HELLO_BYTES) done(null);
        return;
      }
      const rest = text.slice(at + 1);
      let welcome: RelayWelcome | null = null;
      try {
        welcome = JSON.parse(text.slice(0, at)) as RelayWelcome;
      } catch {
        welcome = null;
      }
      done(welcome);
      // Whatever came after the welcome is the server's first message.
      if (rest) socket.unshift(Buffer.from(rest, 'utf8'));
    };
    const done = (welcome: RelayWelcome | null) => {
      socket.off('data', onData);
      socket.off('close', onClose);
      socket.pause();
      resolve(welcome);
    };
    const onClose = () => done(null);
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.write(`${JSON.stringify(hello)}\n`);
  });
}
