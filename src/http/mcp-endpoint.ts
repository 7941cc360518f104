import { randomUUID } from 'node:crypto';
import { type Tool, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { App } from '../app/app.js';
import { inline } from '../core/fence.js';
import { LIMITS } from '../core/limits.js';
import type { StoredMcpSession } from '../features/hub/hub-sessions.js';
import { namedClientProcess } from '../features/sessions/client-sessions.js';
import { Connection } from '../features/sessions/connection.js';
import type { ProcessRef } from '../features/sessions/session-types.js';
import { answerDirectly } from '../mcp/direct-calls.js';
import type { Selection } from '../mcp/registry.js';
import { type CollabServer, createMcpServer } from '../mcp/server.js';
import { jsonRpcError, whenWhole } from './responses.js';

/** Headers a client may send to say where it works and who it is (written by `init --transport http`). */
export const IDENTITY_HEADERS = {
  project: 'x-collab-project',
  clientSession: 'x-collab-client-session',
  name: 'x-collab-session-name',
  /** The client process (pid and start time), from `session-collab hub-headers`. */
  clientPid: 'x-collab-client-pid',
  clientStart: 'x-collab-client-start',
} as const;

/** MCP sessions held in memory at once; past it, quiet ones are let go, and new ones wait (503). */
const MAX_LIVE = 2_000;
/** What is kept of a client's `initialize` (to take its session up again), at most. */
const MAX_INITIALIZE_CHARS = 16_000;

interface Live {
  id: string;
  transport: WebStandardStreamableHTTPServerTransport;
  server: CollabServer;
  connection: Connection;
  tokenId: string | null;
  seenAt: number;
  /** Server-to-client streams (GET) the client holds open: while it does, it is connected. */
  streams: number;
}

interface Identity {
  projectRoot: string | null;
  clientSessionId: string | null;
  name: string | null;
  /** The client process on this host, as `hub-headers` named it. */
  clientPid: number | null;
  clientStart: string | null;
  /** It may be on another machine: not one of this host's, or with a token (see `Caller.sameHost`). */
  remote: boolean;
}

/** Where a request comes from, as far as the hub can trust it. */
export interface Caller {
  /** The token it presented (null: the hub takes requests without tokens). */
  tokenId: string | null;
  /**
   * Whether it may name a client process of this host: it came over loopback, not through a proxy,
   * and the hub has no tokens (with tokens, one agent could name another's process).
   */
  sameHost: boolean;
}

export interface McpEndpointOptions {
  app: App;
  selection: Selection;
  built: Record<string, Tool>;
  /** The hub process: the process its sessions live by. */
  process: ProcessRef;
  /** The folder of sessions whose client names none. */
  defaultProject: string;
  maxBodyBytes: number;
}

function identityOf(headers: Headers, caller: Caller): Identity {
  const header = (name: string, max: number) => {
    const value = headers.get(name)?.trim();
    return value && value.length <= max && !value.startsWith('${') ? value : null;
  };
  const clientSession = header(IDENTITY_HEADERS.clientSession, LIMITS.clientSessionIdChars);
  return {
    projectRoot: header(IDENTITY_HEADERS.project, 4096),
    // With tokens, a client session id is its agent's own: one agent cannot name another's.
    clientSessionId:
      clientSession && caller.tokenId ? `${caller.tokenId}:${clientSession}`.slice(0, 200) : clientSession,
    name: inline(header(IDENTITY_HEADERS.name, 200) ?? '', 100) || null,
    clientPid: caller.sameHost ? Number(header(IDENTITY_HEADERS.clientPid, 12) ?? Number.NaN) || null : null,
    clientStart: caller.sameHost ? header(IDENTITY_HEADERS.clientStart, 40) : null,
    remote: !caller.sameHost,
  };
}

/** What is kept of an `initialize` request's parameters: the protocol version, capabilities and client. */
function initializeOf(body: unknown): unknown {
  const params = ((body as { params?: Record<string, unknown> }).params ?? {}) as Record<string, unknown>;
  const kept = {
    protocolVersion: params.protocolVersion,
    capabilities: params.capabilities ?? {},
    clientInfo: params.clientInfo ?? { name: 'unknown', version: '0' },
  };
  return JSON.stringify(kept).length <= MAX_INITIALIZE_CHARS
    ? kept
    : {
        protocolVersion: params.protocolVersion,
        capabilities: {},
        clientInfo: { name: 'unknown', version: '0' },
      };
}

const isInitialize = (body: unknown): boolean =>
  body !== null &&
  typeof body === 'object' &&
  !Array.isArray(body) &&
  (body as { method?: unknown }).method === 'initialize';

/**
 * MCP over Streamable HTTP at /mcp: one MCP session per client, each its own collab session. The
 * sessions are in the store, so a client that comes back with its Mcp-Session-Id after the hub
 * restarted (or let it go from memory while quiet) keeps its session.
 */
export class McpEndpoint {
  private readonly live = new Map<string, Live>();
  private readonly restoring = new Map<string, Promise<Live | null>>();
  private readonly hub;

  constructor(private readonly options: McpEndpointOptions) {
    this.hub = options.app.hub;
  }

  /** Whether `id` names an MCP session this hub knows (in memory or in the store). */
  async knows(id: string): Promise<boolean> {
    return this.live.has(id) || this.restoring.has(id) || (await this.hub.sessions.get(id)) !== null;
  }

  /** Serves one request of an authenticated caller; `body` is the parsed JSON of a POST. */
  async handle(request: Request, caller: Caller, body: unknown): Promise<Response> {
    const sessionId = request.headers.get('mcp-session-id');
    if (!sessionId) {
      if (request.method !== 'POST' || !isInitialize(body))
        return jsonRpcError(
          400,
          -32000,
          'Bad Request: no Mcp-Session-Id. Open a session with an initialize request first.',
        );
      if (this.live.size >= MAX_LIVE) this.sweep(Date.now() - 60_000);
      if (this.live.size >= MAX_LIVE)
        return jsonRpcError(503, -32000, 'The hub holds as many sessions as it can; try again shortly.', {
          'retry-after': '30',
        });
      const live = await this.create(
        identityOf(request.headers, caller),
        caller.tokenId,
        null,
        initializeOf(body),
      );
      return this.serve(live, request, body);
    }
    // A session being taken up again is served once that is done, never half-restored.
    let live = (await this.restoring.get(sessionId)) ?? this.live.get(sessionId) ?? null;
    if (!live) {
      const row = await this.hub.sessions.get(sessionId);
      if (!row || row.token_id !== caller.tokenId) return this.notFound();
      live = await this.restore(row, identityOf(request.headers, caller));
      if (!live) return this.notFound();
    }
    if (live.tokenId !== caller.tokenId) return this.notFound();
    return this.serve(live, request, body);
  }

  /** Clients holding a stream open are connected: their collab sessions heartbeat (the others', with their calls). */
  async heartbeat(): Promise<void> {
    for (const live of this.live.values()) if (live.streams > 0) await live.connection.heartbeat(true);
  }

  /** Lets go of quiet sessions (they are taken up again on their next request). */
  sweep(quietSince: number): void {
    for (const live of [...this.live.values()])
      if (live.streams === 0 && live.seenAt < quietSince) void this.drop(live);
  }

  /** Lets go of every session without ending any: a hub that stops keeps its clients' sessions. */
  async close(): Promise<void> {
    await Promise.all([...this.live.values()].map((live) => this.drop(live)));
  }

  private notFound(): Response {
    // The client opens a new session on 404 (the transport rules).
    return jsonRpcError(404, -32001, 'Session not found');
  }

  private async serve(live: Live, request: Request, body: unknown): Promise<Response> {
    live.seenAt = Date.now();
    await this.hub.sessions.seen(live.id);
    const direct = request.method === 'POST' ? this.direct(live, request, body) : null;
    if (direct !== null) return direct;
    const response = await live.transport.handleRequest(
      request,
      request.method === 'POST' ? { parsedBody: body } : {},
    );
    if (request.method === 'GET' && response.ok && response.body) {
      live.streams += 1;
      let open = true;
      const closed = () => {
        if (!open) return;
        open = false;
        live.streams -= 1;
        live.seenAt = Date.now();
      };
      request.signal.addEventListener('abort', closed, { once: true });
      return new Response(response.body.pipeThrough(new TransformStream({ flush: closed })), {
        status: response.status,
        headers: response.headers,
      });
    }
    return request.method === 'POST' ? whenWhole(response) : response;
  }

  /**
   * A plain call of a tool that does not wait, answered as one JSON body without the transport's
   * event stream or the SDK's request machinery (mcp/direct-calls.ts); null where the transport
   * answers: a request whose headers it would judge otherwise (what the client accepts, the body's
   * type, a protocol version other than the session's) goes to it as it came.
   */
  private direct(live: Live, request: Request, body: unknown): Promise<Response> | null {
    const accept = request.headers.get('accept') ?? '';
    const version = request.headers.get('mcp-protocol-version');
    const contentType = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
    if (
      !accept.includes('application/json') ||
      !accept.includes('text/event-stream') ||
      contentType !== 'application/json' ||
      (version !== null && version !== live.server.getNegotiatedProtocolVersion()) ||
      // Let go of meanwhile (the client ended it): the transport says so, rather than a call
      // starting a collab session that nothing would end.
      this.live.get(live.id) !== live
    )
      return null;
    const answer = answerDirectly(live.server, body);
    if (!answer) return null;
    return answer.response.then(
      (message) =>
        new Response(JSON.stringify(message), {
          status: 200,
          headers: { 'content-type': 'application/json', 'mcp-session-id': live.id },
        }),
    );
  }

  /**
   * A session's transport, server and connection. New (`fixedId` null): it joins the live sessions
   * and the store when its `initialize` is handled. Taken up again (`fixedId`): the caller adds it.
   */
  private async create(
    identity: Identity,
    tokenId: string | null,
    fixedId: string | null,
    initialize: unknown,
  ): Promise<Live> {
    const { app } = this.options;
    let server: CollabServer | undefined;
    const live = { id: fixedId ?? '', tokenId, seenAt: Date.now(), streams: 0 } as Live;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => fixedId ?? randomUUID(),
      maxRequestBodySize: this.options.maxBodyBytes,
      onsessioninitialized: async (id) => {
        live.id = id;
        if (fixedId !== null) return;
        this.live.set(id, live);
        await this.hub.sessions.open({
          id,
          tokenId,
          initialize,
          projectRoot: identity.projectRoot,
          clientSessionId: identity.clientSessionId,
          name: identity.name,
        });
      },
      onsessionclosed: (id) => this.end(id, 'the client closed its MCP session'),
    });
    const clientProcess = () =>
      identity.clientPid && identity.clientStart
        ? namedClientProcess(identity.clientPid, identity.clientStart)
        : null;
    const connection = new Connection(app, app.sessions, {
      cwd: identity.projectRoot ?? this.options.defaultProject,
      client: () => server?.getClientVersion()?.name ?? null,
      server: this.options.process,
      name: identity.name,
      remote: identity.remote,
      ...(identity.clientSessionId || identity.clientPid
        ? { identity: () => ({ sessionId: identity.clientSessionId, process: clientProcess() }) }
        : {}),
      onAttach: async (collabId) => {
        if (live.id) await this.hub.sessions.bind(live.id, collabId);
      },
    });
    server = createMcpServer(app, connection, this.options.selection, this.options.built);
    await server.connect(transport);
    Object.assign(live, { transport, server, connection });
    return live;
  }

  /**
   * Takes a stored session up again: the client's handshake replayed into a new transport, its
   * collab session adopted by this process. Null when that fails (the client then starts anew).
   */
  private restore(row: StoredMcpSession, current: Identity): Promise<Live | null> {
    const pending = this.restoring.get(row.id);
    if (pending) return pending;
    // Taken up by another request while this one read the store.
    const taken = this.live.get(row.id);
    if (taken) return Promise.resolve(taken);
    const restored = (async () => {
      const live = await this.create(
        {
          projectRoot: row.project_root,
          clientSessionId: row.client_session_id,
          name: row.name,
          // The client process as this request names it (the one that opened the session may be gone).
          clientPid: current.clientPid,
          clientStart: current.clientStart,
          remote: current.remote,
        },
        row.token_id,
        row.id,
        null,
      );
      try {
        const url = 'http://hub.invalid/mcp';
        const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
        const replay = async (message: Record<string, unknown>, sessionId: string | null) => {
          const response = await live.transport.handleRequest(
            new Request(url, {
              method: 'POST',
              headers: sessionId ? { ...headers, 'mcp-session-id': sessionId } : headers,
            }),
            { parsedBody: { jsonrpc: '2.0', ...message } },
          );
          await response.text();
        };
        await replay({ id: 'restore', method: 'initialize', params: JSON.parse(row.initialize) }, null);
        await replay({ method: 'notifications/initialized' }, row.id);
        if (row.collab_session_id) await live.connection.resume(row.collab_session_id);
      } catch (error) {
        this.options.app.log.warn('hub.restore_failed', {
          mcp_session: row.id,
          message: (error as Error).message,
        });
        await live.transport.close().catch(() => {});
        return null;
      }
      this.live.set(row.id, live);
      this.options.app.log.info('hub.session_restored', {
        mcp_session: row.id,
        session: row.collab_session_id,
      });
      return live;
    })().finally(() => this.restoring.delete(row.id));
    this.restoring.set(row.id, restored);
    return restored;
  }

  /** The client ended its MCP session (DELETE): its collab session ends too. */
  private async end(id: string, reason: string): Promise<void> {
    const live = this.live.get(id);
    this.live.delete(id);
    try {
      await this.hub.sessions.close(id);
    } catch (error) {
      this.options.app.log.warn('hub.close_failed', { mcp_session: id, message: (error as Error).message });
    }
    const collabId = live?.connection.currentId;
    if (collabId) await this.options.app.made('agents')?.stopFor(collabId, reason);
    await live?.connection.close(reason);
  }

  private async drop(live: Live): Promise<void> {
    this.live.delete(live.id);
    await this.hub.sessions.forget(live.id);
    await live.transport.close().catch(() => {});
  }
}
