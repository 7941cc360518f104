import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { Tool } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { App } from '../app/app.js';
import { inline } from '../core/fence.js';
import { ownProcess } from '../features/sessions/client-sessions.js';
import { Connection } from '../features/sessions/connection.js';
import { serverClientSessionId } from '../integrations/client-env.js';
import { clientProcess } from '../integrations/process-tree.js';
import { answerToolCallsDirectly } from '../mcp/direct-calls.js';
import { LineTransport } from '../mcp/line-transport.js';
import { select } from '../mcp/registry.js';
import { type CollabServer, createMcpServer, tellAnswers } from '../mcp/server.js';
import { startBackgroundWork } from './background-work.js';
import { RealmScans } from './realm-scans.js';
import type { ServeOptions } from './relay.js';

/**
 * The tools' listed schemas worked out when dist/ was built (scripts/build.mjs), beside this bundle;
 * none when running from source (they are built at start then).
 */
export function builtDefinitions(): Record<string, Tool> {
  try {
    if (typeof __filename !== 'string') return {};
    return JSON.parse(readFileSync(join(dirname(__filename), 'tool-definitions.json'), 'utf8')) as Record<
      string,
      Tool
    >;
  } catch {
    return {};
  }
}

/**
 * Serves the MCP tools in this process over `io` (stdio) until the client goes away; then ends
 * this session and the process. The relay (`serve`) runs it where the machine's server cannot run.
 */
export async function serve(
  options: ServeOptions,
  io: { input: Readable; output: Writable } = {
    input: process.stdin,
    output: process.stdout,
  },
): Promise<void> {
  const app = await App.open();
  const selection = await select(
    options.toolsets ? options.toolsets.split(',').map((s) => s.trim()) : app.config.toolsets,
    { readOnly: options.readOnly === true },
  );
  let server: CollabServer | undefined;
  const connection = new Connection(app, app.sessions, {
    cwd: process.cwd(),
    client: () => server?.getClientVersion()?.name ?? null,
    server: ownProcess(),
    name: inline(options.sessionName || process.env.SESSION_COLLAB_SESSION_NAME || '', 100) || null,
    identity: () => ({ sessionId: serverClientSessionId(process.env), process: clientProcess() }),
    recordsCalls: true,
  });
  // The transport the machine's server serves each relay over: the same lines, checks and answers.
  const wire = new LineTransport(io.output);
  io.input.on('data', (chunk: Buffer) => wire.receive(chunk));
  tellAnswers(wire, connection);
  const handle = serveStdio(
    () => {
      server = createMcpServer(app, connection, selection, builtDefinitions());
      return server;
    },
    { transport: wire, onerror: (error) => app.log.warn('mcp.error', { message: error.message }) },
  );
  answerToolCallsDirectly(
    wire,
    () => server,
    (error) => app.log.warn('mcp.error', { message: error.message }),
  );
  // The transport may close without stdin ending (a message over its size limit): the session
  // ends then too, even while timers or Telegram's requests would keep the process alive.
  const closeConnection = wire.onclose;
  wire.onclose = () => {
    closeConnection?.();
    stop('connection closed');
  };

  const heartbeat = setInterval(async () => {
    try {
      await connection.heartbeat(true);
      if (connection.currentId) await work.audit()?.heartbeat(connection.currentId);
    } catch (error) {
      app.log.warn('session.heartbeat_failed', { message: (error as Error).message });
    }
  }, app.config.heartbeat_interval_seconds * 1000);
  heartbeat.unref();
  const work = startBackgroundWork(app, selection);
  // A realm member: contract and binding changes are noticed even when no realm tool is called.
  const realm = new RealmScans(app);
  realm.add(process.cwd());

  let stopping = false;
  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    clearInterval(heartbeat);
    realm.stop();
    void (async () => {
      try {
        if (connection.currentId) await work.audit()?.lifecycle(connection.currentId, 'ended', { reason });
        await connection.close(reason);
      } finally {
        // The agent CLIs it runs end with it, whatever failed before; Telegram gets 3 s to give its
        // lease up (another process then takes over at once; else the lease runs out by itself).
        await work.stop(reason);
        await handle.close();
      }
    })()
      .catch((error: Error) => app.log.warn('session.stop_failed', { message: error.message }))
      .then(() => app.close())
      .finally(() => process.exit(0));
  };
  io.input.once('end', () => stop('client disconnected'));
  process.once('beforeExit', () => stop('connection closed'));
  io.input.once('close', () => stop('client disconnected'));
  io.input.once('error', () => stop('client disconnected'));
  io.output.on('error', () => stop('client disconnected'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGHUP', () => stop('SIGHUP'));
}
