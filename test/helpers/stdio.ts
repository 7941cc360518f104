import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client, type ClientCapabilities } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { tempDir } from './temp.js';
import { toolCaller } from './tool-caller.js';

export const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));
export const FAKE_CLIENT = fileURLToPath(new URL('../fixtures/fake-client.mjs', import.meta.url));

export function requireBuild(): void {
  if (!existsSync(CLI))
    throw new Error(`${CLI} is missing: run \`npm run build\` first (\`npm test\` does).`);
}

export interface HookRun {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a shell command as a child of a fake client, through its control socket. */
function controlChannel(socketPath: string) {
  return (command: string, input: unknown, env: Record<string, string> = {}): Promise<HookRun> =>
    new Promise((resolve, reject) => {
      const socket = createConnection(socketPath);
      let buffer = '';
      socket.on('data', (d) => {
        buffer += d;
        if (buffer.includes('\n')) {
          socket.end();
          resolve(JSON.parse(buffer) as HookRun);
        }
      });
      socket.on('error', reject);
      socket.write(`${JSON.stringify({ command, input, env })}\n`);
    });
}

/** `session-collab hook <event>` as the hook command a client runs. */
export const hookCommand = (event: string, extra = '') =>
  `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} hook ${event}${extra}`;

/**
 * The built `session-collab serve`, talked to by the real SDK client over stdio. By default it is
 * started by a client process of its own (test/fixtures/fake-client.mjs), as each real client
 * starts its servers; with `direct` this test process starts it, as an orchestrator that runs
 * several agents does (then every such server shares one client process). `clientSessionId` is
 * what Claude Code passes its MCP servers as CLAUDE_CODE_SESSION_ID.
 */
export async function connectStdio(options: {
  cwd: string;
  home: string;
  name?: string;
  args?: string[];
  clientSessionId?: string;
  hooks?: boolean;
  direct?: boolean;
  env?: Record<string, string>;
  /** What the client declares it can do (e.g. form elicitation), and its handlers for that. */
  capabilities?: ClientCapabilities;
  setup?: (client: Client) => void;
}) {
  requireBuild();
  const socketPath = options.hooks ? join(tempDir('collab-sock-'), 'control.sock') : '-';
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    SESSION_COLLAB_HOME: options.home,
  };
  for (const key of ['CLAUDE_CODE_SESSION_ID', 'CLAUDE_CODE_CHILD_SESSION', 'SESSION_COLLAB_SESSION_ID'])
    delete env[key];
  if (options.clientSessionId) env.CLAUDE_CODE_SESSION_ID = options.clientSessionId;
  Object.assign(env, options.env ?? {});
  const serverArgs = [CLI, 'serve', ...(options.args ?? [])];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: options.direct ? serverArgs : [FAKE_CLIENT, socketPath, process.execPath, ...serverArgs],
    cwd: options.cwd,
    env,
    stderr: 'pipe',
  });
  let stderr = '';
  const serverPid = new Promise<number>((resolve) => {
    transport.stderr?.on('data', (d) => {
      stderr += d;
      const m = /server pid (\d+)/.exec(stderr);
      if (m) resolve(Number(m[1]));
    });
  });
  const client = new Client(
    { name: options.name ?? 'stdio-test', version: '1.0.0' },
    options.capabilities ? { capabilities: options.capabilities } : {},
  );
  options.setup?.(client);
  await client.connect(transport);
  const spawned = transport.pid;
  if (spawned === null) throw new Error('client process did not start');
  const pid = options.direct ? spawned : await serverPid;
  if (options.hooks) await waitFor(() => stderr.includes('fake-client: ready'));
  const run = controlChannel(socketPath);
  return {
    client,
    /** The server process. */
    pid,
    /** The client process: the fake client, or this test process when `direct`. */
    clientPid: options.direct ? process.pid : spawned,
    ...toolCaller(client),
    /** Runs a hook command as the client would: `sh -c`, JSON on stdin. */
    hook: (event: string, input: unknown) => run(hookCommand(event), input),
    /** Runs a shell command as a child of the client (with `hooks`): as its agent's shell would. */
    run,
    close: () => client.close(),
  };
}

/** A fake client with hooks only (no MCP server configured). */
export async function hookClient(options: { cwd: string; home: string }) {
  requireBuild();
  const socketPath = join(tempDir('collab-sock-'), 'control.sock');
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    SESSION_COLLAB_HOME: options.home,
  };
  for (const key of ['CLAUDE_CODE_SESSION_ID', 'CLAUDE_CODE_CHILD_SESSION', 'SESSION_COLLAB_SESSION_ID'])
    delete env[key];
  const child = spawn(process.execPath, [FAKE_CLIENT, socketPath], {
    cwd: options.cwd,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  await waitFor(() => stderr.includes('fake-client: ready'));
  const run = controlChannel(socketPath);
  return {
    pid: child.pid!,
    hook: (event: string, input: unknown, extra = '') => run(hookCommand(event, extra), input),
    run,
    close: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/** Resolves once `condition` holds (checked every 10 ms); throws after `timeoutMs`, naming `what`. */
export async function waitFor(
  condition: () => boolean,
  timeoutMs = 10_000,
  what = 'the fake client',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The pid of the machine's server of `home` (hub.json), or null when none runs. */
export function serverPid(home: string): number | null {
  try {
    const { pid } = JSON.parse(readFileSync(join(home, 'hub.json'), 'utf8')) as { pid: number };
    process.kill(pid, 0);
    return pid;
  } catch {
    return null;
  }
}

/** Stops the machine's server of `home` (the one clients' relays started) and waits until it is gone. */
export async function stopServer(home: string, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  const pid = serverPid(home);
  if (pid === null) return;
  process.kill(pid, signal);
  await waitForExit(pid);
}

/** Resolves once the process is gone (polling: it is not our child in every case). */
export async function waitForExit(pid: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`process ${pid} still runs after ${timeoutMs} ms`);
}

/** The id a JSON-RPC response line answers; undefined for anything else (a partial line, a notification, a request). */
function responseId(line: string): unknown {
  try {
    const message = JSON.parse(line) as { id?: unknown; result?: unknown; error?: unknown };
    return 'result' in message || 'error' in message ? message.id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The built `serve` spoken to in bare JSON-RPC over its stdio (no SDK client: a test measures the
 * server, or sends what an SDK client would refuse to). It is initialized; `call` sends a tool
 * call and resolves with its response line; `exit` resolves with the exit code. `command` runs node
 * (e.g. behind `unshare`, to give the server its own mounts); `options` adds serve's arguments and
 * environment, and `cli` another installed session-collab (a packed and installed copy).
 */
export function bareServe(
  cwd: string,
  home: string,
  command: string[] = [process.execPath],
  options: { args?: string[]; env?: Record<string, string>; cli?: string } = {},
) {
  requireBuild();
  const [file, ...prefix] = command as [string, ...string[]];
  const child = spawn(file, [...prefix, options.cli ?? CLI, 'serve', ...(options.args ?? [])], {
    cwd,
    env: { ...process.env, SESSION_COLLAB_HOME: home, CLAUDE_CODE_SESSION_ID: '', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.on('error', () => {}); // the server may close first
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    err += d;
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bare', version: '1' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  let next = 2;
  const ask = (method: string, params: unknown): number => {
    const id = next++;
    send({ jsonrpc: '2.0', id, method, params });
    return id;
  };
  const responseLine = (id: number) =>
    new Promise<string | null>((resolve) => {
      const look = () => {
        const line = out.split('\n').find((l) => responseId(l) === id);
        if (line) return resolve(line);
        if (child.exitCode !== null) return resolve(null);
        setTimeout(look, 10);
      };
      look();
    });
  return {
    child,
    exit,
    output: () => ({ out, err }),
    /** Writes `text` as it is (no JSON, no newline added). */
    raw: (text: string) => child.stdin.write(text),
    /** Resolves with the response line, or null if the server exits first. */
    call(name: string, args: Record<string, unknown> = {}): Promise<string | null> {
      return responseLine(ask('tools/call', { name, arguments: args }));
    },
    /** Any request, as sent (an SDK client would refuse to send some): its parsed response, or null. */
    async request(method: string, params: unknown): Promise<Record<string, unknown> | null> {
      const line = await responseLine(ask(method, params));
      return line === null ? null : (JSON.parse(line) as Record<string, unknown>);
    },
  };
}

/** The built CLI run once with a home folder, from `cwd`: its exit code and output (no colours). */
export async function runCli(
  home: string,
  args: string[],
  cwd = process.cwd(),
): Promise<{ code: number; stdout: string; stderr: string }> {
  requireBuild();
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], {
      cwd,
      env: { ...process.env, SESSION_COLLAB_HOME: home, NO_COLOR: '1' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Whether script(1) is here to give a command a pseudo-terminal (Debian's bsdutils). */
export async function hasScript(): Promise<boolean> {
  return promisify(execFile)('script', ['--version']).then(
    () => true,
    () => false,
  );
}

/**
 * Runs `session-collab <args>` in a real pseudo-terminal (under script(1)). Each step waits until
 * the screen shows its text after the previous step's, then types its keys or runs its action.
 * Resolves with the whole screen and the exit code once the command exits.
 */
export async function inTerminal(options: {
  home: string;
  args: string[];
  cwd?: string;
  steps: Array<[waitFor: string, then: string | (() => unknown)]>;
}): Promise<{ screen: string; code: number }> {
  const command = [process.execPath, CLI, ...options.args].map((a) => JSON.stringify(a)).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: options.cwd,
    env: { ...process.env, SESSION_COLLAB_HOME: options.home, TERM: 'xterm', NO_COLOR: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  child.stdout.on('data', (d) => {
    screen += d;
  });
  // 'close': the output is all read, not only the process gone.
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  let from = 0;
  try {
    for (const [text, then] of options.steps) {
      const deadline = Date.now() + 10_000;
      while (!screen.slice(from).includes(text)) {
        if (Date.now() > deadline) throw new Error(`the terminal never showed "${text}":\n${screen}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      from = screen.indexOf(text, from) + text.length;
      if (typeof then === 'string') child.stdin.write(then);
      else await then();
    }
  } catch (error) {
    child.kill();
    throw error;
  }
  const code = await exited;
  return { screen, code };
}
