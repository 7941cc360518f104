/**
 * `session-collab land`: asks to land the committed work of this folder's branch (the landing
 * queue, `features/landing/`), as the session of the agent whose shell runs it, else as the person
 * at the terminal. It waits for the outcome, landing in this process when no other does (progress
 * on stderr); `--no-wait` only queues it, for a serving process of this machine to land.
 * `--status` shows the repository's queue and latest outcomes.
 */
import { App } from '../app/app.js';
import { isBranchName } from '../core/branch-name.js';
import { CollabError } from '../core/errors.js';
import { inline, outputTail } from '../core/fence.js';
import { describe as describeLanding } from '../features/landing/land-tools.js';
import { FINAL, type LandingView } from '../features/landing/landing-service.js';
import { projectOfFolder } from '../features/sessions/references.js';
import { shellClientSessionId } from '../integrations/client-env.js';
import { clientProcess } from '../integrations/process-tree.js';
import { bold, dim, green, printJson, red, terminalUser, yellow } from './format.js';
import { runningHub } from './machine-server.js';

interface LandOptions {
  onto?: string;
  cancel?: string;
  wait?: boolean;
  status?: boolean;
  json?: boolean;
}

/** How often a waiting `land` says where its request is. */
const PROGRESS_MS = 5_000;

export async function landCommand(options: LandOptions): Promise<void> {
  const app = await App.open();
  try {
    if (options.status) return await showStatus(app, options);
    if (options.cancel) return await cancel(app, options.cancel, options);
    if (options.onto !== undefined && !isBranchName(options.onto))
      throw new CollabError(
        'INVALID_INPUT',
        `--onto: "${inline(options.onto, 100)}" is not a branch name git allows.`,
      );
    const cwd = process.cwd();
    const identity = { sessionId: shellClientSessionId(process.env), process: clientProcess() };
    const viewer = await app.enforcement.viewpointFor(identity, cwd);
    const session = viewer?.id ? await app.sessions.find(viewer.id) : null;
    const { row, existing } = await app.landing.request({
      session,
      folder: cwd,
      onto: options.onto,
      requester: session?.name ?? `${terminalUser()} (terminal)`,
      land: options.wait !== false,
    });
    let now = row;
    if (!FINAL.has(row.state) && options.wait !== false) {
      // Ctrl-C stops waiting; what this process was landing is left to the next lander.
      let stopped = false;
      const stop = () => {
        stopped = true;
        app.landing.stop();
      };
      process.once('SIGINT', stop);
      let said = '';
      for (;;) {
        // This process lands while it waits, whenever the request's turn comes.
        app.landing.kick(row.project_id);
        now = (await app.landing.wait(row.id, PROGRESS_MS)) ?? now;
        if (FINAL.has(now.state)) break;
        if (stopped) {
          process.stderr.write(
            `Stopped waiting. Request ${now.id} stays ${now.state}: a session-collab server of this machine lands it (\`session-collab land --status\` shows it).\n`,
          );
          process.exitCode = 130;
          return;
        }
        const line = describeLanding(app.landing.view(now, await app.landing.ahead(now)));
        if (line !== said && !options.json) process.stderr.write(`${dim(line)}\n`);
        said = line;
      }
    }
    const view = app.landing.view(now, FINAL.has(now.state) ? null : await app.landing.ahead(now));
    if (session && FINAL.has(now.state)) await app.notifications.markSeen(session.id, 'land_outcome', now.id);
    if (options.json) printJson({ ...view, existing });
    else {
      process.stdout.write(`${render(view)}\n`);
      if (!FINAL.has(view.state) && runningHub(app.paths.home) === null)
        process.stdout.write(
          `${yellow('Note:')} no session-collab server runs on this machine: the request lands when one starts (any client's session, or \`session-collab hub\`), or with \`session-collab land\` again.\n`,
        );
    }
    if (view.state === 'rejected' || view.state === 'cancelled') process.exitCode = 1;
  } finally {
    await app.close();
  }
}

function render(v: LandingView): string {
  if (v.state === 'landed')
    return `${green('Landed')} ${v.commits} commit(s) of ${bold(v.branch)} on ${bold(v.onto)} as ${v.commit}.${v.reason ? ` ${v.reason}` : ''}\nYour branch is as it was: \`git reset --keep ${v.commit}\` moves it onto the landed work.`;
  if (v.state === 'rejected' || v.state === 'cancelled') {
    const output = v.check_output
      ? `\n${dim('The end of the check’s output:')}\n${outputTail(v.check_output, 2_000)}`
      : '';
    return `${red(v.state === 'rejected' ? 'Refused' : 'Cancelled')}: ${v.reason ?? ''}${output}`;
  }
  return describeLanding(v);
}

/** `land --cancel <id>`: withdraws a waiting request (one landing now ends by itself). */
async function cancel(app: App, reference: string, options: LandOptions): Promise<void> {
  const project = await projectOfFolder(app, process.cwd());
  const row = await app.landing.cancel(reference, project, `${terminalUser()} (terminal)`);
  const view = app.landing.view(row, null);
  if (options.json) printJson(view);
  else
    process.stdout.write(
      `${yellow('Cancelled')} request ${row.id} of "${inline(row.requester, 60)}" (${row.commits} commit(s) of ${inline(row.branch, 60)} → ${inline(row.onto, 60)}).\n`,
    );
}

async function showStatus(app: App, options: LandOptions): Promise<void> {
  const project = await projectOfFolder(app, process.cwd());
  if (project === null) {
    if (options.json) printJson({ queue: [], recent: [] });
    else
      process.stdout.write(
        `${process.cwd()} is not in a project session-collab knows: nothing was asked to land.\n`,
      );
    return;
  }
  const status = await app.landing.status(project, 20);
  if (options.json) return printJson(status);
  const lines = [bold('Landing queue')];
  if (status.queue.length === 0) lines.push(dim('  nothing queued'));
  for (const v of status.queue) lines.push(`  ${queueLine(v)}`);
  if (status.recent.length > 0) lines.push(bold('Latest outcomes'));
  for (const v of status.recent.slice(0, 10)) lines.push(`  ${queueLine(v)}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** One request in a line of `land --status` and `status`. */
export function queueLine(v: LandingView): string {
  const who = `"${inline(v.requester, 40)}"`;
  const what = `${v.commits} commit(s) of ${inline(v.branch, 60)} → ${inline(v.onto, 60)}`;
  switch (v.state) {
    case 'queued':
      return `${yellow('queued')} ${who} ${what}${v.ahead ? dim(` (${v.ahead} ahead)`) : dim(' (next)')}`;
    case 'landing':
      return `${yellow('landing')} ${who} ${what}${v.attempts > 1 ? dim(` (attempt ${v.attempts})`) : ''}`;
    case 'landed':
      return `${green('landed')} ${who} ${what} as ${(v.commit ?? '').slice(0, 12)}`;
    default:
      return `${red(v.state)} ${who} ${what}: ${inline(v.reason ?? '', 200)}`;
  }
}
