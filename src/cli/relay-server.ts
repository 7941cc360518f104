/**
 * The machine's server side of `serve`'s relays: a Unix socket in the home folder where each
 * connection, opened with the relay's hello (integrations/relay-address.ts), is one MCP session
 * over newline-delimited JSON-RPC, served as a stdio server would serve it. A relay's session lives
 * by the relay process: when the relay goes, the session ends as a stdio server's did; when this
 * server goes (killed, or replaced by another that took the socket), its relays attach again.
 */
import { chmodSync, readdirSync, readlinkSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { createConnection, createServer, type Server as NetServer, type Socket } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Tool } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import type { App } from '../app/app.js';
import { CollabError } from '../core/errors.js';
import { inline } from '../core/fence.js';
import { LIMITS } from '../core/limits.js';
import { VERSION } from '../core/version.js';
import { answerHookRequest } from '../features/enforcement/hook-requests.js';
import type { AuditTrail } from '../features/human/audit-trail.js';
import { Connection } from '../features/sessions/connection.js';
import { describeProcess, processAlive, processStartTime } from '../integrations/process-probe.js';
import { clientProcess } from '../integrations/process-tree.js';
import {
  MAX_ENV_CHARS,
  MAX_FIRST_LINE_BYTES,
  RELAY_ENDING,
  type RelayHello,
  type RelayWelcome,
  relaySocketPath,
  serverFailureFile,
  serverKey,
} from '../integrations/relay-address.js';
import { type Selection, select } from '../mcp/registry.js';
import { createMcpServer } from '../mcp/server.js';
import { lineReader } from './line-reader.js';
import { RealmScans } from './realm-scans.js';

export interface RelayServerOptions {
  app: App;
  built: Record<string, Tool>;
  /** The sessions' audit trail, once loaded. */
  audit: () => AuditTrail | null;
  /**
   * A `hub` started on purpose takes the socket over from a server that has it (whose relays
   * then attach here); a server a relay started leaves it to one that answers.
   */
  takeOver: boolean;
  /** Called when another server took the socket: this one serves no relay any more. */
  onReplaced: () => void;
}

export interface RelayServer {
  path: string;
  /** Relays attached now. */
  connections(): number;
  /** Lets every relay go without ending its session (they attach to the next server). */
  close(): Promise<void>;
}

/** How long a connection may take to say hello. */
const HELLO_MS = 5_000;
/** How often the server checks that the home's link still points at its socket. */
const OWN_CHECK_MS = 1_000;

interface Relayed {
  /** The relay process. */
  pid: number;
  socket: Socket;
  connection: Connection;
  close(): Promise<void>;
}

/** Whether a server answers at `path` (a connection is accepted). */
export function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Listens for relays at this home's socket: null when another server answers there and this one
 * does not take over.
 */
export async function startRelayServer(options: RelayServerOptions): Promise<RelayServer | null> {
  const { app } = options;
  const path = relaySocketPath(app.paths.home, serverKey(VERSION));
  if (!options.takeOver && (await answers(path))) return null;
  const live = new Set<Relayed>();
  const selections = new Map<string, Promise<Selection>>();
  const realm = new RealmScans(app);
  const selectionFor = (hello: RelayHello) => {
    const key = JSON.stringify([hello.toolsets, hello.read_only]);
    let selection = selections.get(key);
    if (!selection) {
      selection = select(hello.toolsets ?? app.config.toolsets, { readOnly: hello.read_only });
      selections.set(key, selection);
      selection.catch(() => selections.delete(key));
    }
    return selection;
  };

  const accept = (socket: Socket) => {
    socket.on('error', () => {});
    let said = false;
    const timer = setTimeout(() => socket.destroy(), HELLO_MS);
    const first: string[] = [];
    const read = lineReader(
      MAX_FIRST_LINE_BYTES,
      (line) => {
        if (said) {
          first.push(line);
          return;
        }
        said = true;
        clearTimeout(timer);
        if (line.startsWith('{"hook":1')) void answerHook(socket, line);
        else void welcome(socket, line, first, read);
      },
      () => socket.destroy(),
    );
    socket.on('data', read);
  };

  /** A hook process of this machine asks for its answer (one line each way), as over HTTP. */
  const answerHook = async (socket: Socket, line: string): Promise<void> => {
    let reply: unknown;
    try {
      const { event, request } = JSON.parse(line) as { event?: unknown; request?: unknown };
      reply = { answer: await answerHookRequest(app, String(event), request, null) };
    } catch (error) {
      if (!(error instanceof CollabError) && !(error instanceof SyntaxError))
        app.log.error('relay.hook_failed', {
          message: (error as Error).message,
          stack: (error as Error).stack,
        });
      reply = { error: (error as Error).message };
    }
    socket.end(`${JSON.stringify(reply)}\n`);
  };

  const welcome = async (
    socket: Socket,
    line: string,
    early: string[],
    read: (chunk: Buffer) => void,
  ): Promise<void> => {
    const refuse = (error: string, hint?: string) => {
      socket.end(
        `${JSON.stringify({ ok: false, error, ...(hint ? { hint } : {}) } satisfies RelayWelcome)}\n`,
      );
    };
    const hello = helloOf(line);
    if (!hello)
      return refuse('This socket serves session-collab relays; the first line was not a relay hello.');
    let selection: Selection;
    try {
      selection = await selectionFor(hello);
    } catch (error) {
      return refuse((error as Error).message, (error as { hint?: string }).hint);
    }
    if (socket.destroyed) return;
    // The lines after the hello go to the session's transport from here on.
    socket.off('data', read);
    const input = new PassThrough();
    for (const l of early) input.write(`${l}\n`);
    // The end of what the relay sends is kept: its last line may say why it ends (RELAY_ENDING).
    let tail = '';
    socket.on('data', (chunk: Buffer) => {
      input.write(chunk);
      tail = (tail + chunk.toString('latin1')).slice(-1024);
    });
    let server: ReturnType<typeof createMcpServer> | undefined;
    const start = processStartTime(hello.pid);
    const connection = new Connection(app, app.sessions, {
      cwd: hello.cwd,
      client: () => server?.getClientVersion()?.name ?? null,
      server: { pid: hello.pid, start },
      name: hello.name,
      identity: () => ({ sessionId: hello.client_session_id, process: clientProcess(hello.pid) }),
      env: hello.env,
    });
    const transport = new StdioServerTransport(input, socket);
    const handle = serveStdio(
      () => {
        server = createMcpServer(app, connection, selection, options.built);
        return server;
      },
      { transport, onerror: (error) => app.log.warn('mcp.error', { message: error.message }) },
    );
    let letGo = false;
    const relayed: Relayed = {
      pid: hello.pid,
      socket,
      connection,
      close: async () => {
        letGo = true;
        live.delete(relayed);
        socket.destroy();
        await handle.close().catch(() => {});
      },
    };
    live.add(relayed);
    realm.add(hello.cwd);
    // The relay ends its side when its client goes (or it is stopped): the session ends, then this
    // side closes, so the relay exits once its runs are ended. Closed without that: it was killed.
    let ending = false;
    const end = (reason: string) => {
      if (ending || letGo) return;
      ending = true;
      live.delete(relayed);
      realm.remove(hello.cwd);
      input.end();
      void ended(relayed, reason).finally(() => {
        socket.end();
        void handle.close().catch(() => {});
      });
    };
    socket.once('end', () => end(endingReason(tail) ?? 'connection lost'));
    socket.once('close', () => {
      if (letGo) realm.remove(hello.cwd);
      end('connection lost');
    });
    socket.write(`${JSON.stringify({ ok: true, pid: process.pid } satisfies RelayWelcome)}\n`);
  };

  /** The relay went (its client did): its session ends, and the agent CLIs it ran. */
  const ended = async (relayed: Relayed, reason: string) => {
    const id = relayed.connection.currentId;
    try {
      if (id) {
        await options.audit()?.lifecycle(id, 'ended', { reason });
        await app.made('agents')?.stopFor(id, `its server stopped (${reason})`);
      }
      await relayed.connection.close(reason);
    } catch (error) {
      app.log.warn('session.stop_failed', { message: (error as Error).message });
    }
  };

  const net: NetServer = createServer({ allowHalfOpen: true }, accept);
  // Each server listens at a socket of its own and points the home's link at it: closing a Unix
  // socket's listener removes the file at its path, which must never be another server's.
  const own = process.platform === 'win32' ? path : `${path}.${process.pid}`;
  if (own !== path) {
    removeLeftSockets(path);
    rmSync(own, { force: true });
  }
  await new Promise<void>((resolve, reject) => {
    net.once('error', reject);
    net.listen(own, () => resolve());
  });
  if (own !== path) {
    chmodSync(own, 0o600);
    // Replaced at once (a rename), so a relay finds either the server before or this one.
    const link = `${own}.link`;
    rmSync(link, { force: true });
    symlinkSync(own, link);
    renameSync(link, path);
  }
  app.log.info('relay.listening', { path, socket: own });
  // A failure a relay recorded is old news once a server runs.
  rmSync(serverFailureFile(app.paths.home), { force: true });

  const heartbeat = setInterval(async () => {
    for (const relayed of live) {
      // A stopped client (its process group stopped, relay and all) is silent, as it would be alone.
      if (describeProcess(relayed.pid)?.stopped) continue;
      try {
        await relayed.connection.heartbeat(true);
        const id = relayed.connection.currentId;
        if (id) await options.audit()?.heartbeat(id);
      } catch (error) {
        app.log.warn('session.heartbeat_failed', { message: (error as Error).message });
      }
    }
  }, app.config.heartbeat_interval_seconds * 1000);
  heartbeat.unref();

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      clearInterval(heartbeat);
      clearInterval(ownCheck);
      realm.stop();
      // The listener's close waits for its connections: they are let go beside it.
      const listening = new Promise<void>((resolve) => net.close(() => resolve()));
      await Promise.all([...live].map((r) => r.close()));
      await listening;
    })();
    return closing;
  };
  // Another server took the socket (a `hub` started on purpose, or a newer start that won a race):
  // this one lets its relays go to it.
  const ownCheck = setInterval(() => {
    if (own === path || closing !== null || pointsAt(path) === own) return;
    app.log.info('relay.replaced', { path });
    void close().then(() => options.onReplaced());
  }, OWN_CHECK_MS);
  ownCheck.unref();

  return {
    path,
    connections: () => live.size,
    async close() {
      await close();
      if (own !== path && pointsAt(path) === own) rmSync(path, { force: true });
    },
  };
}

/** The socket the home's link points at (null: no link). */
function pointsAt(path: string): string | null {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
}

/** Sockets of servers that are gone (killed: their listener never closed), beside the link. */
function removeLeftSockets(path: string): void {
  const folder = dirname(path);
  const prefix = `${basename(path)}.`;
  try {
    for (const name of readdirSync(folder)) {
      const pid = Number(name.slice(prefix.length));
      if (!name.startsWith(prefix) || !Number.isSafeInteger(pid) || processAlive(pid, null)) continue;
      rmSync(join(folder, name), { force: true });
    }
  } catch {
    // Best effort: a left socket costs a file.
  }
}

/** Why the relay ended, when the last line it sent says so (`RELAY_ENDING`). */
function endingReason(tail: string): string | null {
  const lines = tail.trimEnd().split('\n');
  try {
    const last = JSON.parse(lines.at(-1) ?? '') as { method?: unknown; params?: { reason?: unknown } };
    return last.method === RELAY_ENDING && typeof last.params?.reason === 'string'
      ? inline(last.params.reason, 40)
      : null;
  } catch {
    return null;
  }
}

/** The relay's hello, checked: null when the line is not one. */
function helloOf(line: string): RelayHello | null {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (value === null || typeof value !== 'object' || value.relay !== 1) return null;
  const text = (v: unknown, max: number) =>
    typeof v === 'string' && v.length > 0 && v.length <= max ? v : null;
  const pid = value.pid;
  const cwd = text(value.cwd, 4096);
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 1 || cwd === null) return null;
  const toolsets = Array.isArray(value.toolsets)
    ? value.toolsets.filter((t): t is string => typeof t === 'string' && t.length <= 40).slice(0, 20)
    : null;
  return {
    relay: 1,
    pid,
    cwd,
    client_session_id: text(value.client_session_id, LIMITS.clientSessionIdChars),
    name: inline(text(value.name, 200) ?? '', 100) || null,
    toolsets,
    read_only: value.read_only === true,
    env: envOf(value.env),
  };
}

/** The client's environment as its relay sent it: strings only, bounded; empty when none. */
function envOf(value: unknown): Record<string, string> {
  const env: Record<string, string> = {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return env;
  let size = 0;
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v !== 'string') continue;
    size += key.length + v.length;
    if (size > MAX_ENV_CHARS) break;
    env[key] = v;
  }
  return env;
}
