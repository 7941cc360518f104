import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Server, Tool } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { App } from '../app/app.js';
import { inline } from '../core/fence.js';
import { ownProcess } from '../features/sessions/client-sessions.js';
import { Connection } from '../features/sessions/connection.js';
import { serverClientSessionId } from '../integrations/client-env.js';
import { clientProcess } from '../integrations/process-tree.js';
import { select } from '../mcp/registry.js';
import { createMcpServer, SERVER_VERSION } from '../mcp/server.js';
import { startBackgroundWork } from './background-work.js';
import { commandForPerson } from './invocation.js';

export interface ServeOptions {
  toolsets?: string;
  sessionName?: string;
  /** Serve only the tools that change nothing. */
  readOnly?: boolean;
}

function connectHelp(): string {
  const me = commandForPerson();
  return `session-collab ${SERVER_VERSION}: coordination for AI coding sessions that share a codebase.

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

/** Serves the MCP tools over stdio until the client goes away; then ends this session. */
export async function serve(options: ServeOptions): Promise<void> {
  if (process.stdin.isTTY) {
    process.stderr.write(connectHelp());
    return;
  }
  const app = await App.open();
  const selection = await select(
    options.toolsets ? options.toolsets.split(',').map((s) => s.trim()) : app.config.toolsets,
    { readOnly: options.readOnly === true },
  );
  let server: Server | undefined;
  const connection = new Connection(app, app.sessions, {
    cwd: process.cwd(),
    client: () => server?.getClientVersion()?.name ?? null,
    server: ownProcess(),
    name: inline(options.sessionName || process.env.SESSION_COLLAB_SESSION_NAME || '', 100) || null,
    identity: () => ({ sessionId: serverClientSessionId(process.env), process: clientProcess() }),
  });
  const wire = new StdioServerTransport();
  const handle = serveStdio(
    () => {
      server = createMcpServer(app, connection, selection, builtDefinitions());
      return server;
    },
    { transport: wire, onerror: (error) => app.log.warn('mcp.error', { message: error.message }) },
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
  // A realm member: notice contract and binding changes even when no realm tool is called. Loaded
  // after start-up, and only in a realm member.
  setTimeout(async () => {
    try {
      const { findMembership } = await import('../integrations/realm-files.js');
      if (!findMembership(process.cwd())) return;
      const scan = async () => {
        try {
          await app.realm.context(process.cwd());
        } catch (error) {
          app.log.warn('realm.scan_failed', { message: (error as Error).message });
        }
      };
      await scan();
      setInterval(scan, app.config.realm_scan_seconds * 1000).unref();
    } catch (error) {
      app.log.warn('realm.scan_failed', { message: (error as Error).message });
    }
  }, 200).unref();

  let stopping = false;
  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    clearInterval(heartbeat);
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
  process.stdin.once('end', () => stop('client disconnected'));
  process.once('beforeExit', () => stop('connection closed'));
  process.stdin.once('close', () => stop('client disconnected'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGHUP', () => stop('SIGHUP'));
}
