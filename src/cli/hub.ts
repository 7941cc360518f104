import { existsSync, readFileSync } from 'node:fs';
import { App } from '../app/app.js';
import { CollabError } from '../core/errors.js';
import { hubFile, isLoopback, splitListen, startHub } from '../http/hub.js';
import { codexHttpTable } from '../integrations/codex-toml.js';
import { select } from '../mcp/registry.js';
import { startBackgroundWork } from './background-work.js';
import { commandForPerson } from './invocation.js';
import { builtDefinitions } from './serve.js';

export interface HubCommandOptions {
  listen?: string;
  toolsets?: string;
  readOnly?: boolean;
  json?: boolean;
}

/** How to add the hub to each client, for a person reading the terminal. */
function connectLines(url: string, tokens: boolean): string {
  const mcp = `${url}/mcp`;
  const auth = tokens ? ' --header "Authorization: Bearer $SESSION_COLLAB_TOKEN"' : '';
  return [
    'Add it to a client (from the project folder):',
    `  Claude Code   claude mcp add --transport http session-collab ${mcp}${auth} --header "X-Collab-Project: $PWD"`,
    `  Gemini CLI    gemini mcp add --transport http session-collab ${mcp}${tokens ? ' -H "Authorization: Bearer $SESSION_COLLAB_TOKEN"' : ''} -H "X-Collab-Project: $PWD"`,
    '  Codex CLI     in ~/.codex/config.toml (every project Codex opens):',
    ...codexHttpTable(mcp, tokens ? 'SESSION_COLLAB_TOKEN' : null)
      .trimEnd()
      .split('\n')
      .map((line) => `                  ${line}`),
    `  or in a project: ${commandForPerson()} init --transport http`,
  ].join('\n');
}

/** `session-collab hub` (what `npm start` runs): the shared MCP server over HTTP and the dashboard. */
export async function hubCommand(options: HubCommandOptions): Promise<void> {
  const app = await App.open({ serving: 'hub' });
  const selection = await select(
    options.toolsets
      ? options.toolsets.split(',').map((s) => s.trim())
      : ['collab', 'realm', 'review', 'human', 'agent'],
    { readOnly: options.readOnly === true },
  );
  const listenAt = options.listen ?? app.config.hub.listen;
  const running = await startHub({ app, selection, built: builtDefinitions(), listen: listenAt });
  const work = startBackgroundWork(app, selection);
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
        '                 (a one-time login link; `session-collab dashboard` prints a new one)',
        '',
        connectLines(running.url, tokens),
        '',
        'Stop with Ctrl-C.',
        '',
      ].join('\n'),
    );
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info('hub.stopping', { signal });
    // The agent CLIs it runs end with it even when closing the server fails.
    void Promise.allSettled([running.close(), work.stop(signal)])
      .then(() => app.close())
      .finally(() => process.exit(0));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGHUP', () => stop('SIGHUP'));
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
export { cleanCommand, endCommand, messageCommand, releaseCommand } from './person.js';
