/**
 * The machine's server side of `serve`'s relays: a Unix socket in the home folder where each
 * connection, opened with the relay's hello (integrations/relay-address.ts), is one MCP session
 * over newline-delimited JSON-RPC, served as a stdio server would serve it. A relay's session lives
 * by the relay process: when the relay goes, the session ends as a stdio server's did; when this
 * server goes (killed, or replaced by another that took the socket), its relays attach again.
 */
import { chmodSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import type { Tool } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { App } from '../app/app.js';
import { CollabError } from '../core/errors.js';
import { lineReader } from '../core/line-reader.js';
import { VERSION } from '../core/version.js';
import {
  answeredCall,
  type CallRecording,
  hookCaller,
  hookRecording,
} from '../features/enforcement/hook-calls.js';
import { answerHookRequest, parseHookCall, wakeRequest } from '../features/enforcement/hook-requests.js';
import type { AuditTrail } from '../features/human/audit-trail.js';
import { Connection } from '../features/sessions/connection.js';
import { describeProcess, processStartTime } from '../integrations/process-probe.js';
import { clientProcess } from '../integrations/process-tree.js';
import {
  MAX_FIRST_LINE_BYTES,
  type RelayHello,
  type RelayWelcome,
  relaySocketPath,
  serverFailureFile,
  serverKey,
} from '../integrations/relay-address.js';
import { answers, pointsAt, removeLeftSockets } from '../integrations/relay-socket.js';
import { answerToolCallsDirectly } from '../mcp/direct-calls.js';
import { LineTransport } from '../mcp/line-transport.js';
import { type Selection, select } from '../mcp/registry.js';
import { createMcpServer, tellAnswers } from '../mcp/server.js';
import { RealmScans } from './realm-scans.js';
import { endingReason, helloOf } from './relay-hello.js';

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
/**
 * Connections (relays, hooks, and those not yet said what they are) the server holds at once; past
 * it a relay is told so and serves its client in-process, a hook opens the database itself.
 */
const MAX_CONNECTIONS = 2_000;
/** Connections at once whose first line is over 64 KiB and not ended yet (a hook's large input). */
const MAX_LARGE_FIRST = 8;
/** Toolset choices the server keeps built. */
const MAX_SELECTIONS = 32;
/** Errors of one connection's messages logged, at most (a client sending garbage fills no disk). */
const LOGGED_ERRORS = 5;
/** How often the server checks that the home's link still points at its socket. */
const OWN_CHECK_MS = 1_000;

interface Relayed {
  /** The relay process. */
  pid: number;
  start: string;
  socket: Socket;
  connection: Connection;
  close(): Promise<void>;
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
      // A few choices in practice; a client making up new ones cannot grow the cache.
      if (selections.size >= MAX_SELECTIONS) selections.delete(selections.keys().next().value!);
      selection = select(hello.toolsets ?? app.config.toolsets, { readOnly: hello.read_only });
      selections.set(key, selection);
      selection.catch(() => selections.delete(key));
    }
    return selection;
  };

  let connections = 0;
  let largeFirst = 0;
  const accept = (socket: Socket) => {
    socket.on('error', () => {});
    connections += 1;
    socket.once('close', () => {
      connections -= 1;
    });
    if (connections > MAX_CONNECTIONS) {
      const full: RelayWelcome = {
        ok: false,
        full: true,
        error: `the machine's server holds ${MAX_CONNECTIONS.toLocaleString('en')} connections, as many as it takes`,
      };
      socket.end(`${JSON.stringify(full)}\n`);
      return;
    }
    let said = false;
    const timer = setTimeout(() => socket.destroy(), HELLO_MS);
    const first: string[] = [];
    // A large first line (a hook's input) is held whole until it ends: only a few at once.
    let buffered = 0;
    let large = false;
    const count = (chunk: Buffer) => {
      if (said || large) return;
      buffered += chunk.length;
      if (buffered <= 64 * 1024) return;
      if (largeFirst >= MAX_LARGE_FIRST) return socket.destroy();
      large = true;
      largeFirst += 1;
    };
    const settled = () => {
      if (large) largeFirst -= 1;
      large = false;
    };
    socket.once('close', settled);
    let hook = false;
    const read = lineReader(
      MAX_FIRST_LINE_BYTES,
      (line) => {
        // A hook says one line; what it sends after is nothing to keep.
        if (hook) return socket.destroy();
        if (said) {
          first.push(line);
          return;
        }
        said = true;
        settled();
        clearTimeout(timer);
        if (line.startsWith('{"hook":1')) {
          hook = true;
          hookSockets.add(socket);
          socket.once('close', () => hookSockets.delete(socket));
          void answerHook(socket, line);
        } else void welcome(socket, line, first);
      },
      () => socket.destroy(),
    );
    socket.on('data', (chunk: Buffer) => {
      count(chunk);
      if (!socket.destroyed) read(chunk);
    });
  };

  /** Wake hooks held until news comes: ended when this server closes. */
  const held = new Set<AbortController>();
  /** Hook connections open now (destroyed when this server closes). */
  const hookSockets = new Set<Socket>();
  /** Those of wake hooks: ended by their wake, which answers what it delivered. */
  const waking = new Set<Socket>();

  /** Hook calls answered, whose records go with the next recorded write of a hook call. */
  const hookAnswered: string[] = [];

  /**
   * A hook process of this machine asks for its answer (one line each way), as over HTTP. With its
   * `call`, what the ask writes is recorded under it: an ask this server took and never answered is
   * answered the same by whoever runs it next (`hook-calls.ts`).
   */
  const answerHook = async (socket: Socket, line: string): Promise<void> => {
    let reply: unknown;
    let recording: CallRecording | null = null;
    try {
      const { event, request, call } = JSON.parse(line) as {
        event?: unknown;
        request?: unknown;
        call?: unknown;
      };
      if (call !== undefined)
        recording = hookRecording(parseHookCall(call), hookCaller(request), hookAnswered);
      if (event === 'wake') {
        // Held until news wakes the session, or the hook goes away, ends its side, or this
        // server closes (then nothing is delivered).
        const gone = new AbortController();
        const abort = () => gone.abort();
        socket.once('close', abort);
        socket.once('end', abort);
        socket.once('error', abort);
        held.add(gone);
        waking.add(socket);
        try {
          const news = await wakeRequest(app, request, gone.signal, recording);
          // This server closing with nothing delivered: no answer, so that the hook asks the next
          // one. News delivered (read by now) is answered, closing or not.
          if (news === null && closing !== null) return void socket.destroy();
          reply = news === null ? { answer: { output: null } } : { wake: news };
        } finally {
          held.delete(gone);
          waking.delete(socket);
        }
      } else reply = { answer: await answerHookRequest(app, String(event), request, null, recording) };
    } catch (error) {
      // This server closing: the hook asks the next one, rather than hear this one failed.
      if (closing !== null) return void socket.destroy();
      if (!(error instanceof CollabError) && !(error instanceof SyntaxError))
        app.log.error('relay.hook_failed', {
          message: (error as Error).message,
          stack: (error as Error).stack,
        });
      reply = { error: (error as Error).message };
    }
    // Handed to the system, the hook has it whatever becomes of this server: its records may go.
    // Not written (the hook gave up waiting and runs the ask itself, as the same call), or a
    // failure (not an answer: the same), they stay.
    socket.write(`${JSON.stringify(reply)}\n`, (error) => {
      if (!error && recording && !('error' in (reply as object))) answeredCall(recording);
    });
    // Answered while this server closes: the hook's side is not waited for (a hook stopped with
    // its client would hold the close).
    if (closing !== null) socket.end(() => socket.destroy());
    else socket.end();
  };

  const welcome = async (socket: Socket, line: string, early: string[]): Promise<void> => {
    const refuse = (error: string, more: { hint?: string; retry?: boolean } = {}) => {
      socket.end(`${JSON.stringify({ ok: false, error, ...more } satisfies RelayWelcome)}\n`);
    };
    const hello = helloOf(line);
    if (!hello)
      return refuse('This socket serves session-collab relays; the first line was not a relay hello.');
    // The session lives by the relay's process: one that is not there, or that has a connection
    // here already, is not taken at its word (another connection would take that session over).
    const start = processStartTime(hello.pid);
    if (start === null) return refuse(`No process ${hello.pid} runs on this machine to serve.`);
    if ([...live].some((r) => r.pid === hello.pid && r.start === start))
      return refuse(`Process ${hello.pid} has a connection here already.`, { retry: true });
    let selection: Selection;
    try {
      selection = await selectionFor(hello);
    } catch (error) {
      const hint = (error as { hint?: string }).hint;
      return refuse((error as Error).message, hint ? { hint } : {});
    }
    if (socket.destroyed) return;
    // The lines after the hello go to the session's transport from here on.
    socket.removeAllListeners('data');
    const transport = new LineTransport(socket);
    for (const l of early) transport.receive(`${l}\n`);
    // The end of what the relay sends is kept: its last line may say why it ends (RELAY_ENDING).
    let tail = '';
    socket.on('data', (chunk: Buffer) => {
      transport.receive(chunk);
      tail = (tail + chunk.toString('latin1')).slice(-1024);
    });
    let server: ReturnType<typeof createMcpServer> | undefined;
    const connection = new Connection(app, app.sessions, {
      cwd: hello.cwd,
      client: () => server?.getClientVersion()?.name ?? null,
      server: { pid: hello.pid, start },
      name: hello.name,
      identity: () => ({ sessionId: hello.client_session_id, process: clientProcess(hello.pid) }),
      env: hello.env,
      recordsCalls: true,
    });
    tellAnswers(transport, connection);
    const handle = serveStdio(
      () => {
        server = createMcpServer(app, connection, selection, options.built);
        return server;
      },
      {
        transport,
        onerror: (error) => {
          if (++errors <= LOGGED_ERRORS)
            app.log.warn('mcp.error', { pid: hello.pid, message: error.message });
        },
      },
    );
    answerToolCallsDirectly(
      transport,
      () => server,
      (error) => app.log.warn('mcp.error', { pid: hello.pid, message: error.message }),
    );
    let errors = 0;
    let letGo = false;
    const relayed: Relayed = {
      pid: hello.pid,
      start,
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
      void transport.close();
      void ended(relayed, reason).finally(() => {
        socket.end();
        void handle.close().catch(() => {});
      });
    };
    socket.once('end', () => end(endingReason(tail) ?? 'connection lost'));
    // The transport gives up on the connection (a message over its size limit): so does the session.
    const closed = transport.onclose;
    transport.onclose = () => {
      closed?.();
      end('a message over the size limit');
    };
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
      // Wake hooks held here end with nothing (the next server is asked again by them), unless
      // their news was delivered meanwhile (then they are answered with it), and a hook that has
      // its answer but keeps its side open holds the listener's close no longer.
      for (const wait of held) wait.abort();
      for (const socket of hookSockets) if (!waking.has(socket)) socket.destroy();
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
