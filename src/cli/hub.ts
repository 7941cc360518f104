import { existsSync, readFileSync } from 'node:fs';
import { App } from '../app/app.js';
import { CollabError } from '../core/errors.js';
import { hubFile, isLoopback, type RunningHub, splitListen, startHub } from '../http/hub.js';
import { codexHttpTable } from '../integrations/codex-toml.js';
import { programsApart } from '../integrations/spawner.js';
import { select } from '../mcp/registry.js';
import { type BackgroundWork, startBackgroundWork } from './background-work.js';
import { commandForPerson } from './invocation.js';
import { runningHub } from './machine-server.js';
import { type RelayServer, startRelayServer } from './relay-server.js';
import { builtDefinitions } from './serve.js';

export interface HubCommandOptions {
  listen?: string;
  toolsets?: string;
  readOnly?: boolean;
  json?: boolean;
  /** Started by a client's `serve` (the relay): quiet, and gone when idle. */
  machine?: boolean;
}

/** Every toolset: what the hub serves over HTTP, and runs the background work of. */
const ALL_TOOLSETS = ['collab', 'realm', 'review', 'human', 'agent'];
/** How long a hub that took the relays' socket over waits for the server it replaced to let its port go. */
const PORT_WAIT_MS = 3_000;

/** Whether a hub answers at `url` (a hub.json whose pid was taken by another process names none). */
async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) })).ok;
  } catch {
    return false;
  }
}

/** The hub's HTTP side at `listen`; waiting a moment for a replaced server's port, or (`anyPort`) on a free one. */
async function listenHub(
  options: Parameters<typeof startHub>[0],
  listen: string,
  anyPort: boolean,
): Promise<RunningHub> {
  const deadline = Date.now() + PORT_WAIT_MS;
  for (;;) {
    try {
      return await startHub({ ...options, listen });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      if (anyPort) return startHub({ ...options, listen: `${splitListen(listen).host}:0` });
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** How to set a project up (the recommended path) or add the hub to a client by hand, for a person. */
function connectLines(url: string, tokens: boolean): string {
  const mcp = `${url}/mcp`;
  const auth = tokens ? ' --header "Authorization: Bearer $SESSION_COLLAB_TOKEN"' : '';
  const me = commandForPerson();
  return [
    'Set up a project (recommended), in its folder:',
    `  ${me} init        (MCP server, hooks and rules for the clients found there; --dry-run first)`,
    "  Each client then attaches to this machine's server through `serve`; the dashboard shows them all.",
    `  ${me} init --transport http   (the same, the clients speaking to this hub over HTTP)`,
    '',
    'Or add this hub to a client by hand, over HTTP (no hooks: nothing stops an edit):',
    `  Claude Code   claude mcp add --transport http session-collab ${mcp}${auth} --header "X-Collab-Project: $PWD"`,
    `  Gemini CLI    gemini mcp add --transport http session-collab ${mcp}${tokens ? ' -H "Authorization: Bearer $SESSION_COLLAB_TOKEN"' : ''} -H "X-Collab-Project: $PWD"`,
    '  Codex CLI     in ~/.codex/config.toml (every project Codex opens):',
    ...codexHttpTable(mcp, tokens ? 'SESSION_COLLAB_TOKEN' : null)
      .trimEnd()
      .split('\n')
      .map((line) => `                  ${line}`),
  ].join('\n');
}

/** `session-collab hub` (what `npm start` runs): the shared MCP server over HTTP and the dashboard. */
export async function hubCommand(options: HubCommandOptions): Promise<void> {
  if (options.machine) {
    // Its starter stops reading its output once attached.
    process.stdout.on('error', () => {});
    process.stderr.on('error', () => {});
  }
  const app = await App.open({ serving: 'hub' });
  const selection = await select(
    options.toolsets ? options.toolsets.split(',').map((s) => s.trim()) : ALL_TOOLSETS,
    { readOnly: options.readOnly === true },
  );
  const built = builtDefinitions();
  if (!options.machine) {
    // A hub a person started already serves this home: a second would take its clients' relays
    // from it, then find its port taken.
    const other = runningHub(app.paths.home);
    if (other && !other.machine && (await answers(other.url))) {
      await app.close();
      throw new CollabError(
        'CONFIG_ERROR',
        `A hub of this home folder already runs (pid ${other.pid}) at ${other.url}.`,
        `Use that one: \`${commandForPerson()} dashboard\` prints a login link to its dashboard. A second hub needs a home folder of its own (SESSION_COLLAB_HOME).`,
      );
    }
  }
  let work: BackgroundWork | null = null;
  let stop = (_reason: string) => {};
  // Clients' relays attach here first: they wait for it, not for the HTTP side.
  const relays = await startRelayServer({
    app,
    built,
    audit: () => work?.audit() ?? null,
    takeOver: !options.machine,
    onReplaced: () => {
      if (options.machine) stop('another server took the relays over');
    },
  });
  if (!relays) {
    // Another server of this home answers its relays (it started meanwhile): this one is not needed.
    await app.close();
    return;
  }
  const listenAt = options.listen ?? app.config.hub.listen;
  let running: RunningHub;
  try {
    running = await listenHub(
      { app, selection, built, machine: options.machine === true },
      listenAt,
      options.machine === true,
    );
  } catch (error) {
    // The relays it took over go (they start or find another server), and nothing is left behind.
    await relays.close();
    await app.close();
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new CollabError(
        'CONFIG_ERROR',
        `Another program listens on ${listenAt}.`,
        `Stop it, or give the hub another address: \`${commandForPerson()} hub --listen 127.0.0.1:0\` takes a free port (from the clone: \`npm start -- --listen 127.0.0.1:0\`); config.json's hub.listen sets one for good.`,
      );
    throw error;
  }
  work = startBackgroundWork(app, selection);
  app.checkpointApart();
  const programs = programsApart();
  let stopping = false;
  stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info('hub.stopping', { reason });
    programs?.();
    // The agent CLIs it runs end with it even when closing the server fails.
    void Promise.allSettled([relays.close(), running.close(), work?.stop(reason)])
      .then(() => app.close())
      .finally(() => process.exit(0));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGHUP', () => stop('SIGHUP'));
  if (options.machine) {
    exitWhenIdle(app, relays, running, () => stop('idle'));
    return;
  }
  const tokens = await app.hub.tokens.required();
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify({ url: running.url, mcp: `${running.url}/mcp`, login: await running.loginUrl(), tokens })}\n`,
    );
  } else {
    const { host } = splitListen(listenAt);
    process.stdout.write(
      [
        `session-collab hub listening on ${running.url} (${selection.toolsets.map((t) => t.id).join(', ')})`,
        `  MCP endpoint   ${running.url}/mcp${tokens ? '   (bearer token required)' : isLoopback(host) ? '   (this machine only; no token needed until you create one)' : ''}`,
        `  Dashboard      ${await running.loginUrl()}`,
        `                 (a one-time login link; \`${commandForPerson()} dashboard\` prints a new one)`,
        '',
        connectLines(running.url, tokens),
        '',
        'Stop with Ctrl-C.',
        '',
      ].join('\n'),
    );
  }
}

/**
 * The machine's server a relay started goes once nothing has been attached for
 * `hub.idle_exit_minutes`: no relay, no browser or client over HTTP, and no landing under way.
 */
function exitWhenIdle(app: App, relays: RelayServer, running: RunningHub, exit: () => void): void {
  const idleMs = app.config.hub.idle_exit_minutes * 60_000;
  let quietSince = Date.now();
  const check = setInterval(
    async () => {
      // A landing under way here is finished first (its target must not be left to a takeover).
      if (relays.connections() > 0 || (await running.connected()) || app.made('landing')?.busy())
        quietSince = Date.now();
      else if (Date.now() - quietSince >= idleMs) {
        clearInterval(check);
        exit();
      }
    },
    Math.min(5_000, idleMs / 4),
  );
}

/** `session-collab dashboard`: a one-time login link to the running hub's dashboard. */
export async function dashboardCommand(options: { json?: boolean }): Promise<void> {
  const app = await App.open();
  try {
    const file = hubFile(app);
    if (!existsSync(file))
      throw new CollabError(
        'CONFIG_ERROR',
        'No hub is running on this machine (for this home folder).',
        `Start one with \`${commandForPerson()} hub\` (or \`npm start\` in the session-collab folder).`,
      );
    const { url } = JSON.parse(readFileSync(file, 'utf8')) as { url: string };
    const link = `${url}/login?code=${await app.hub.logins.code()}`;
    process.stdout.write(
      options.json ? `${JSON.stringify({ url, login: link })}\n` : `${link}\n(works once, for 10 minutes)\n`,
    );
  } finally {
    await app.close();
  }
}

/** `session-collab token create|list|revoke`. */
export async function tokenCommand(
  action: 'create' | 'list' | 'revoke',
  name: string | undefined,
  options: { json?: boolean },
): Promise<void> {
  const app = await App.open();
  try {
    const { tokens } = app.hub;
    if (action === 'create') {
      const created = await tokens.create(name ?? '');
      if (options.json)
        process.stdout.write(`${JSON.stringify({ token: created.token, ...created.view })}\n`);
      else
        process.stdout.write(
          `${created.token}\n\nToken "${created.view.name}" created. It is shown only now: give it to that agent as\n  SESSION_COLLAB_TOKEN=${created.token}\nFrom now on every request to the hub needs a token.\n`,
        );
    } else if (action === 'revoke') {
      const revoked = await tokens.revoke(name ?? '');
      process.stdout.write(
        options.json ? `${JSON.stringify(revoked)}\n` : `Token "${revoked.name}" revoked.\n`,
      );
    } else {
      const list = await tokens.list();
      if (options.json) process.stdout.write(`${JSON.stringify({ tokens: list })}\n`);
      else if (list.length === 0)
        process.stdout.write('No tokens. Create one with `session-collab token create <name>`.\n');
      else
        for (const t of list)
          process.stdout.write(
            `${t.name.padEnd(24)} ${t.revoked_at ? `revoked ${t.revoked_at}` : 'live'}   created ${t.created_at}   last used ${t.last_used_at ?? 'never'}   ${t.id.slice(0, 8)}\n`,
          );
    }
  } finally {
    await app.close();
  }
}
export { demo } from './demo.js';
export { cleanCommand, endCommand, messageCommand, releaseCommand } from './person.js';
/** `serve --in-process` (and the relay where no machine server can run) loads it from here. */
export { serve } from './serve.js';
