import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { serve as listen } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { localhostAllowedHostnames, type Tool } from '@modelcontextprotocol/server';
import { type Context, Hono } from 'hono';
import type { App } from '../app/app.js';
import { databaseUrl } from '../app/config.js';
import { CollabError } from '../core/errors.js';
import { RateLimiter } from '../core/rate-limit.js';
import { VERSION } from '../core/version.js';
import {
  answeredCall,
  HOOK_CALL_HEADERS,
  hookCaller,
  hookRecording,
} from '../features/enforcement/hook-calls.js';
import { answerHookRequest, parseHookCall } from '../features/enforcement/hook-requests.js';
import { listenForEvents } from '../features/hub/team-events.js';
import { ownProcess } from '../features/sessions/client-sessions.js';
import type { Selection } from '../mcp/registry.js';
import { dashboardRoutes } from './dashboard/dashboard-routes.js';
import { EventFeed } from './dashboard/event-feed.js';
import { authenticate, hostOrOriginRefused, readBody } from './guards.js';
import { McpEndpoint } from './mcp-endpoint.js';
import { jsonRpcError } from './responses.js';

export interface HubOptions {
  app: App;
  selection: Selection;
  /** Tool definitions worked out when the bundle was built. */
  built?: Record<string, Tool>;
  /** host:port; config `hub.listen` when not given. Port 0 picks a free one. */
  listen?: string;
  /** The folder of sessions whose client names none. */
  defaultProject?: string;
  /** Started by a client's relay, not by a person (hub.json says so). */
  machine?: boolean;
}

export interface RunningHub {
  /** The hub's address, e.g. http://127.0.0.1:8787 */
  url: string;
  /** Whether a browser (the dashboard) or a client is connected over HTTP now. */
  connected(): Promise<boolean>;
  /** A one-time link that logs a browser into the dashboard. */
  loginUrl(): Promise<string>;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || host.startsWith('127.');
}

export function splitListen(listenAt: string): { host: string; port: number } {
  const at = listenAt.lastIndexOf(':');
  return { host: listenAt.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port: Number(listenAt.slice(at + 1)) };
}

/** Where a running hub writes its address, for `session-collab dashboard` and `status`. */
export const hubFileIn = (home: string): string => join(home, 'hub.json');
export const hubFile = (app: App): string => hubFileIn(app.paths.home);

/** What hub.json says of the hub that wrote it. */
export interface HubFile {
  url: string;
  pid: number;
  version: string;
  /** Started by a client's relay (it exits when idle), not by a person. */
  machine?: boolean;
}

/** Headers a proxy adds to say whom it passes a request on for. */
const PROXY_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip', 'x-forwarded-host', 'via'];

/** A request from this machine itself: over loopback, and not passed on by a proxy. */
function fromThisMachine(c: Context): boolean {
  const remote = (getConnInfo(c).remote.address ?? '').replace(/^::ffff:/, '');
  const proxied = PROXY_HEADERS.some((name) => c.req.raw.headers.has(name));
  return isLoopback(remote) && !proxied;
}

/**
 * The hub: MCP over Streamable HTTP at /mcp for many clients at once, and the dashboard, from one
 * process. Every route checks Host and Origin; /mcp needs a bearer token whenever tokens exist
 * (and the hub refuses to listen beyond loopback without them).
 */
export async function startHub(options: HubOptions): Promise<RunningHub> {
  const { app } = options;
  const hub = app.hub;
  const { host, port } = splitListen(options.listen ?? app.config.hub.listen);
  if (!isLoopback(host) && !(await hub.tokens.required()))
    throw new CollabError(
      'CONFIG_ERROR',
      `Refusing to listen on ${host}: beyond this machine every agent needs a token, and none exists.`,
      'Create one per agent first (`session-collab token create <name>`), or listen on 127.0.0.1.',
    );
  const hostnames = [
    ...localhostAllowedHostnames(),
    ...app.config.hub.allowed_hosts,
    ...(isLoopback(host) || host === '0.0.0.0' || host === '::'
      ? []
      : [host.includes(':') ? `[${host}]` : host]),
  ];
  const maxBody = app.config.hub.max_body_kib * 1024;
  const limiter = new RateLimiter(app.config.hub.requests_per_second, app.config.hub.burst);
  const endpoint = new McpEndpoint({
    app,
    selection: options.selection,
    built: options.built ?? {},
    process: ownProcess(),
    defaultProject: options.defaultProject ?? process.cwd(),
    maxBodyBytes: maxBody,
  });
  // On the team database, other replicas' events are announced (LISTEN/NOTIFY).
  const teamUrl = databaseUrl(app.config);
  const feed = await EventFeed.start(
    app,
    teamUrl ? (wake) => listenForEvents(app, teamUrl, wake) : undefined,
  );
  // Reachable beyond this machine: a token is always needed (revoking the last one closes the hub,
  // it does not open it). On loopback, once any token exists.
  // Whether tokens are needed is read again on every request while none are: a token takes effect
  // the moment `token create` has committed it, on every replica. Once they are, the answer holds
  // for a moment (a revoked last token opens a loopback hub up to 2 s late, the safe direction).
  const exposed = !isLoopback(host) || app.config.hub.allowed_hosts.length > 0;
  let needed = { at: 0 };
  const required = async () => {
    if (exposed) return true;
    if (Date.now() - needed.at <= 2_000) return true;
    const value = await hub.tokens.required();
    if (value) needed = { at: Date.now() };
    return value;
  };

  const web = new Hono();
  web.use('*', async (c, next) => {
    const refused = hostOrOriginRefused(c.req.raw, hostnames);
    if (refused) return refused;
    await next();
  });
  web.get('/health', (c) => c.json({ ok: true, version: VERSION }));
  web.all('/mcp', async (c) => {
    const request = c.req.raw;
    const auth = await authenticate(request, hub.tokens, await required());
    if (auth instanceof Response) return auth;
    const remote = (getConnInfo(c).remote.address ?? '').replace(/^::ffff:/, '');
    // Each agent has its own rate: its token, else its MCP session (one this hub knows: a made-up
    // id counts against the address it comes from, as do new sessions).
    const sessionId = request.headers.get('mcp-session-id');
    const key =
      auth.tokenId ??
      (sessionId && (await endpoint.knows(sessionId)) ? `session:${sessionId}` : `address:${remote}`);
    const wait = limiter.take(key, Date.now());
    if (wait > 0)
      return jsonRpcError(
        429,
        -32000,
        `Too many requests: at most ${app.config.hub.requests_per_second} per second (burst ${app.config.hub.burst}) per agent; retry in ${wait} s.`,
        { 'retry-after': String(wait) },
      );
    let body: unknown;
    if (request.method === 'POST') {
      const text = await readBody(request, maxBody);
      if (text === null)
        return jsonRpcError(
          413,
          -32000,
          `Request body over ${app.config.hub.max_body_kib} KiB (config hub.max_body_kib).`,
        );
      try {
        body = JSON.parse(text);
      } catch {
        return jsonRpcError(400, -32700, 'Parse error: the body is not JSON.');
      }
    }
    try {
      // A client of this host may name its own process: over loopback, not through a proxy, and
      // only while the hub has no tokens (with tokens, one agent could name another's process).
      const sameHost = fromThisMachine(c) && auth.tokenId === null;
      return await endpoint.handle(request, { tokenId: auth.tokenId, sameHost }, body);
    } catch (error) {
      app.log.error('hub.request_failed', {
        message: (error as Error).message,
        stack: (error as Error).stack,
      });
      return jsonRpcError(
        500,
        -32603,
        'Internal error; see logs/collab.log in the session-collab home folder.',
      );
    }
  });
  // A hook process of this machine asks for its answer here in team mode (opening the team
  // database itself would load its driver and connect on every edit). From this machine only.
  // With its call (HOOK_CALL_HEADERS), what an ask writes is recorded under it: one this hub took
  // and never answered is answered the same by the hook that runs it next (hook-calls.ts).
  const hookAnswered: string[] = [];
  web.post('/hook/:event', async (c) => {
    if (!fromThisMachine(c)) return c.json({ error: 'Hooks are answered for this machine only.' }, 403);
    const auth = await authenticate(c.req.raw, hub.tokens, await required());
    if (auth instanceof Response) return auth;
    const text = await readBody(c.req.raw, maxBody);
    if (text === null) return c.json({ error: 'Hook input too large for this hub.' }, 413);
    try {
      const body: unknown = JSON.parse(text);
      const id = c.req.header(HOOK_CALL_HEADERS.id);
      const recording =
        id === undefined
          ? null
          : hookRecording(
              parseHookCall({ id, again: c.req.header(HOOK_CALL_HEADERS.again) === '1' }),
              hookCaller(body),
              hookAnswered,
            );
      const answer = await answerHookRequest(app, c.req.param('event'), body, auth.tokenId, recording);
      // Forgotten once the answer is handed to the system.
      if (recording)
        (c.env as { outgoing: ServerResponse }).outgoing.once('finish', () => answeredCall(recording));
      return c.json({ answer });
    } catch (error) {
      if (error instanceof CollabError) return c.json({ error: error.toBody() }, 400);
      if (error instanceof SyntaxError) return c.json({ error: 'The body is not JSON.' }, 400);
      app.log.error('hub.hook_failed', { message: (error as Error).message, stack: (error as Error).stack });
      return c.json({ error: 'Internal error; see logs/collab.log.' }, 500);
    }
  });
  dashboardRoutes(web, { app, feed, maxBody });

  const server = await new Promise<ReturnType<typeof listen>>((resolve, reject) => {
    // A request sent slowly, or never finished, holds its connection for the timeout at most (Node
    // would wait 5 minutes), checked every second rather than every 30 s.
    const timeoutMs = app.config.hub.request_timeout_seconds * 1000;
    const s = listen(
      {
        fetch: web.fetch,
        hostname: host,
        port,
        serverOptions: {
          requestTimeout: timeoutMs,
          headersTimeout: Math.min(timeoutMs, 10_000),
          connectionsCheckingInterval: Math.min(1_000, timeoutMs),
        },
      },
      () => resolve(s),
    );
    s.once('error', reject);
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host === '0.0.0.0' || host === '::' ? 'localhost' : shown}:${address.port}`;

  const heartbeat = setInterval(() => {
    const now = Date.now();
    endpoint.sweep(now - app.config.hub.session_idle_minutes * 60_000);
    endpoint
      .heartbeat()
      .catch((error: Error) => app.log.warn('hub.heartbeat_failed', { message: error.message }));
  }, app.config.heartbeat_interval_seconds * 1000);
  heartbeat.unref();
  try {
    mkdirSync(app.paths.home, { recursive: true });
    const written: HubFile = {
      url,
      pid: process.pid,
      version: VERSION,
      ...(options.machine ? { machine: true } : {}),
    };
    writeFileSync(hubFile(app), `${JSON.stringify(written)}\n`);
  } catch (error) {
    app.log.warn('hub.file_failed', { message: (error as Error).message });
  }
  app.log.info('hub.listening', { url, tokens: await required() });

  let closed: Promise<void> | null = null;
  return {
    url,
    connected: () =>
      new Promise((resolve) =>
        (server as import('node:http').Server).getConnections((error, count) => resolve(!error && count > 0)),
      ),
    loginUrl: async () => `${url}/login?code=${await hub.logins.code()}`,
    close() {
      closed ??= (async () => {
        clearInterval(heartbeat);
        await feed.close();
        await endpoint.close();
        (server as import('node:http').Server).closeAllConnections?.();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        // Another hub of this home may have written it since (a hub started while this one ran).
        try {
          if ((JSON.parse(readFileSync(hubFile(app), 'utf8')) as { pid?: number }).pid === process.pid)
            rmSync(hubFile(app), { force: true });
        } catch {
          // Gone already, or not ours to remove.
        }
      })();
      return closed;
    },
  };
}
