import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { resolveHome } from '../app/home.js';
import { lineReader } from '../core/line-reader.js';
import { VERSION } from '../core/version.js';
import { serverClientSessionId } from '../integrations/client-env.js';
import { RELAY_ENDING, type RelayHello, relaySocketPath, serverKey } from '../integrations/relay-address.js';
import { failed as commandFailed } from './failed.js';
import { commandForPerson } from './invocation.js';
import { askAgain, type Pending, parse, responseId } from './relay-again.js';
import { attach, failed as serverFailed } from './relay-attach.js';

export interface ServeOptions {
  toolsets?: string;
  sessionName?: string;
  /** Serve only the tools that change nothing. */
  readOnly?: boolean;
  /** Serve in this process, without the machine's server. */
  inProcess?: boolean;
}

/**
 * The largest message passed on: a little under what MCP's stdio transport takes (10 MiB), so that
 * the server never refuses one the relay passed (a longer line ends the relay).
 */
const MAX_LINE_BYTES = 10 * 1024 * 1024 - 64 * 1024;
/** How long an ending relay waits for the server to end its session (agent runs get 4 s to end). */
const END_WAIT_MS = 6_000;
/**
 * A machine's server that dies this many times in a row within `CRASH_LOOP_MS`, each within
 * `CRASH_LOOP_LIFE_MS` of the relay attaching to it, is in a crash loop (a damaged database, say):
 * the relay stops starting it and serves in its own process. A server that served longer and was
 * then stopped (killed by a person, say) is started again, however often.
 */
const CRASH_LOOP_DEATHS = 3;
const CRASH_LOOP_LIFE_MS = 3_000;
const CRASH_LOOP_MS = 60_000;
/** The id of the `initialize` a relay replays to a new server (its answer is the relay's). */
const REPLAY_ID = 'session-collab-relay:initialize';
const REPLAY_ID_JSON = JSON.stringify(REPLAY_ID);

const USAGE = `Usage: session-collab serve [--toolsets <list>] [--read-only] [--session-name <name>] [--in-process]

Run the MCP server over stdio (started by an MCP client). It attaches the client to this
machine's server, starting it when none runs; --in-process serves in this process instead.
`;

function connectHelp(): string {
  const me = commandForPerson();
  return `session-collab ${VERSION}: coordination for AI coding sessions that share a codebase.

This command is an MCP server that speaks over stdin/stdout; a client starts it, not you.
Set up a project for your clients (MCP server, hooks, collaboration rules), from its folder:

  ${me} init              (add --dry-run to see the changes first)

Or connect a client by hand:

  Claude Code   claude mcp add --scope project session-collab -- ${me} serve
  Codex CLI     codex mcp add session-collab -- ${me} serve
  Gemini CLI    gemini mcp add session-collab ${me} serve

See what sessions are doing:   ${me} status
Check the installation:        ${me} doctor
`;
}

/** `serve`'s arguments; a string is what was wrong with them. */
export function serveOptions(args: string[]): ServeOptions | 'help' | string {
  const options: ServeOptions = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg, undefined];
    const value = () => inline ?? args[++i];
    if (flag === '--help' || flag === '-h') return 'help';
    if (flag === '--read-only') options.readOnly = true;
    else if (flag === '--in-process') options.inProcess = true;
    else if (flag === '--toolsets' || flag === '--session-name') {
      const given = value();
      if (given === undefined) return `option '${flag} <value>' argument missing`;
      if (flag === '--toolsets') options.toolsets = given;
      else options.sessionName = given;
    } else return `unknown option '${arg}'`;
  }
  return options;
}

/** The relay: `serve` as clients run it. */
export async function relay(args: string[]): Promise<void> {
  const parsed = serveOptions(args);
  if (parsed === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  if (typeof parsed === 'string') {
    process.stderr.write(`error: ${parsed}\n(run it with --help for its usage)\n`);
    process.exitCode = 1;
    return;
  }
  if (process.stdin.isTTY) {
    process.stderr.write(connectHelp());
    return;
  }
  if (parsed.inProcess) {
    await serveHere(parsed, process.stdin, process.stdout);
    return;
  }
  const home = resolveHome().home;
  const hello: RelayHello = {
    relay: 1,
    pid: process.pid,
    cwd: process.cwd(),
    client_session_id: serverClientSessionId(process.env),
    name: parsed.sessionName || process.env.SESSION_COLLAB_SESSION_NAME || null,
    toolsets: parsed.toolsets ? parsed.toolsets.split(',').map((s) => s.trim()) : null,
    read_only: parsed.readOnly === true,
    env: process.env as Record<string, string>,
  };
  const socketPath = relaySocketPath(home, serverKey(VERSION));
  const first = await attach(home, socketPath, hello);
  if (first === null) {
    await serveHere(parsed, process.stdin, process.stdout);
    return;
  }
  new Relay(parsed, home, socketPath, hello).run(first);
}

/** Serves in this process (the SDK and the app loaded here), over `input` and `output`. */
async function serveHere(options: ServeOptions, input: Readable, output: Writable): Promise<void> {
  // The SDK and the app are in the hub's bundle (dist/hub.cjs), loaded only here; from source, the
  // module itself (named by a variable, so that the hot bundle does not take it in).
  const fromSource = './serve.js';
  const serving = (
    typeof __filename === 'string' && __filename.endsWith('.cjs')
      ? createRequire(__filename)('./hub.cjs')
      : await import(fromSource)
  ) as typeof import('./serve.js');
  await serving.serve(options, { input, output }).catch(commandFailed);
}

/** Where the relay's messages go: the machine's server over its socket, or a server in this process. */
interface Upstream {
  send(line: string): boolean;
  /** Ends the connection; resolves once what was sent has gone. */
  end(): Promise<void>;
  pause(): void;
  resume(): void;
}

class Relay {
  private upstream: Upstream | null = null;
  /** Lines from the client while no server is attached. */
  private readonly queue: string[] = [];
  private initialize: Record<string, unknown> | null = null;
  private initialized = false;
  /** Requests of the client not answered yet, by their ids as JSON. */
  private readonly pending = new Map<string, Pending>();
  private replaying = false;
  private ending = false;
  /** When each short-lived server this relay was attached to went away, the last in a row. */
  private readonly deaths: number[] = [];
  /** When the relay attached to the server it has. */
  private attachedAt = Date.now();

  constructor(
    private readonly options: ServeOptions,
    private readonly home: string,
    private readonly socketPath: string,
    private readonly hello: RelayHello,
  ) {}

  run(socket: Socket): void {
    this.upstream = this.fromSocket(socket);
    const read = lineReader(
      MAX_LINE_BYTES,
      (line) => this.fromClient(line),
      () => {
        process.stderr.write(
          `session-collab: a message over ${MAX_LINE_BYTES} bytes; the connection ends.\n`,
        );
        // Not an end the client asked for: said by the exit code too.
        this.finish('message too large', 1);
      },
    );
    process.stdin.on('data', read);
    process.stdin.once('end', () => this.finish('client disconnected'));
    process.stdin.once('close', () => this.finish('client disconnected'));
    process.stdout.on('error', () => this.finish('client disconnected'));
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const)
      process.once(signal, () => this.finish(signal));
  }

  private fromClient(line: string): void {
    const message = parse(line);
    if (message) {
      if (message.method === 'initialize' && message.id !== undefined)
        this.initialize = message as Record<string, unknown>;
      if (message.method === 'notifications/initialized') this.initialized = true;
      if (typeof message.method === 'string' && message.id !== undefined)
        this.pending.set(JSON.stringify(message.id), { line, at: Date.now(), sent: this.upstream !== null });
      // A request the client cancelled gets no answer, and is not asked again.
      if (message.method === 'notifications/cancelled')
        this.pending.delete(
          JSON.stringify((message.params as { requestId?: unknown } | undefined)?.requestId),
        );
    }
    if (this.upstream === null) this.queue.push(line);
    else if (!this.upstream.send(line)) process.stdin.pause();
  }

  private fromServer(line: string): void {
    const id = responseId(line);
    if (id !== null) {
      if (this.replaying && id === REPLAY_ID_JSON) {
        this.replaying = false;
        return;
      }
      this.pending.delete(id);
    }
    if (!process.stdout.write(`${line}\n`)) {
      this.upstream?.pause();
      process.stdout.once('drain', () => this.upstream?.resume());
    }
  }

  private fromSocket(socket: Socket): Upstream {
    socket.on(
      'data',
      lineReader(
        MAX_LINE_BYTES,
        (line) => this.fromServer(line),
        () => socket.destroy(),
      ),
    );
    socket.on('drain', () => process.stdin.resume());
    socket.once('close', () => {
      if (!this.ending) void this.reattach();
    });
    socket.on('error', () => {});
    socket.resume();
    return {
      send: (line) => socket.write(`${line}\n`),
      end: () =>
        new Promise((resolve) => {
          socket.once('close', () => resolve());
          socket.end();
        }),
      pause: () => socket.pause(),
      resume: () => socket.resume(),
    };
  }

  /**
   * The server went away: the client is served anew, in the same session, and what the dead server
   * had not answered is asked of the next one (`askAgain`): a tool call sent again does nothing
   * twice, since its writes were recorded with their effects.
   */
  private async reattach(): Promise<void> {
    this.upstream = null;
    this.replaying = false;
    const again: Pending[] = [];
    for (const [id, p] of this.pending) {
      if (!p.sent) continue; // still in the queue: it goes to the next server as it is
      if (askAgain(p) !== null) again.push(p);
      else this.pending.delete(id);
    }
    const loop = this.crashLoop();
    // The install changed under this relay (an upgrade, a rebuild): a server it would start is that
    // other build, which listens under that build's key, not this relay's: waiting for it here ran
    // out after 15 s and was recorded as the server failing. This client is served in its own
    // process (the build installed now), and nothing failed.
    const moved = loop === null && relaySocketPath(this.home, serverKey(VERSION)) !== this.socketPath;
    const socket = loop || moved ? null : await attach(this.home, this.socketPath, this.hello);
    if (this.ending) {
      socket?.destroy();
      return;
    }
    if (loop) {
      process.stderr.write(`session-collab: ${loop}\n`);
      serverFailed(this.home, loop);
    }
    if (moved)
      process.stderr.write(
        'session-collab: the install changed since this client started; its server went away, and this client is served in its own process from now on (a client started now uses the new server).\n',
      );
    this.upstream = socket ? this.fromSocket(socket) : this.here();
    this.attachedAt = Date.now();
    // The session taken up again: the client's own initialize when it was in flight, else a replay.
    const ownInitialize = this.initialize !== null && this.pending.has(JSON.stringify(this.initialize.id));
    if (this.initialize && !ownInitialize) {
      this.replaying = true;
      this.upstream.send(JSON.stringify({ ...this.initialize, id: REPLAY_ID }));
      if (this.initialized) this.upstream.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    }
    // Asked again as of now, the next server attached: a wait is asked for what is left of its time
    // once attaching (maybe starting that server) took its share.
    for (const p of again) this.upstream.send(askAgain(p)!);
    for (const line of this.queue.splice(0)) this.upstream.send(line);
    for (const p of this.pending.values()) p.sent = true;
    process.stdin.resume();
  }

  /**
   * Why the machine's server is in a crash loop, once it went away `CRASH_LOOP_DEATHS` times in a
   * row within `CRASH_LOOP_MS`, each soon after this relay attached to it; null while it is not.
   */
  private crashLoop(): string | null {
    const now = Date.now();
    if (now - this.attachedAt >= CRASH_LOOP_LIFE_MS) this.deaths.length = 0;
    this.deaths.push(now);
    if (this.deaths.length > CRASH_LOOP_DEATHS) this.deaths.shift();
    if (this.deaths.length < CRASH_LOOP_DEATHS || now - this.deaths[0]! > CRASH_LOOP_MS) return null;
    const seconds = Math.max(1, Math.round((now - this.deaths[0]!) / 1000));
    return `the machine's server went away ${CRASH_LOOP_DEATHS} times in ${seconds} s (a crash loop: see logs/server-stderr.log in the home folder); this client is served in its own process from now on`;
  }

  /** A server in this process, for a home where the machine's cannot run. */
  private here(): Upstream {
    const input = new PassThrough();
    const output = new PassThrough();
    output.on(
      'data',
      lineReader(
        MAX_LINE_BYTES,
        (line) => this.fromServer(line),
        () => output.destroy(),
      ),
    );
    void serveHere(this.options, input, output);
    return {
      send: (line) => input.write(`${line}\n`),
      // The server in this process ends the process once its input ends.
      end: () => new Promise(() => input.end()),
      pause: () => output.pause(),
      resume: () => output.resume(),
    };
  }

  /**
   * The client went away (or this relay is stopped): the server is told why and ends the session,
   * its agent runs with it, then closes the connection; this process exits then (or after
   * `END_WAIT_MS`, whatever the server does).
   */
  private finish(reason: string, code = 0): void {
    if (this.ending) return;
    this.ending = true;
    this.upstream?.send(JSON.stringify({ jsonrpc: '2.0', method: RELAY_ENDING, params: { reason } }));
    const gone = this.upstream?.end() ?? Promise.resolve();
    void Promise.race([gone, new Promise((resolve) => setTimeout(resolve, END_WAIT_MS))]).then(() =>
      process.exit(code),
    );
  }
}
