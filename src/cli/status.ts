import { App } from '../app/app.js';
import { CollabError } from '../core/errors.js';
import { inline } from '../core/fence.js';
import { describeAge } from '../core/liveness.js';
import { projectOfFolder } from '../features/sessions/references.js';
import { type ProjectStatus, type SessionStatus, StatusService } from '../features/status/status-service.js';
import { bold, dim, green, printJson, red, yellow } from './format.js';
import { queueLine } from './land.js';

export interface StatusOptions {
  json?: boolean;
  /** Every project (by default: the one of this folder, when there is one). */
  all?: boolean;
  watch?: boolean;
  /** Sessions, claims and conflicts shown per project (0: all). */
  limit?: string;
}

/** What `status` shows per project unless --limit says otherwise: a screen, even with thousands. */
const DEFAULT_LIMIT = 20;

function parseLimit(value: string | undefined): number {
  if (value === undefined) return DEFAULT_LIMIT;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) {
    throw new CollabError(
      'INVALID_INPUT',
      `--limit: "${value}" is not a whole number.`,
      'Pass e.g. --limit 50, or --limit 0 for all.',
    );
  }
  return n === 0 ? Number.MAX_SAFE_INTEGER : n;
}

const MORE_HINT = 'see them with --limit 0 (all) or --limit <n>';

/** Sessions, claims and current conflicts: of this folder's project (`--all`: every project). */
export async function status(options: StatusOptions): Promise<void> {
  const limit = parseLimit(options.limit);
  if (options.watch && options.json)
    throw new CollabError('INVALID_INPUT', '--watch shows text; leave out --json.');
  if (options.watch && !process.stdout.isTTY)
    throw new CollabError(
      'INVALID_INPUT',
      '--watch redraws a terminal; stdout is not one.',
      'Run it in a terminal, or without --watch.',
    );
  const app = await App.open();
  try {
    const only = options.all ? null : await projectOfFolder(app, process.cwd());
    const read = () => new StatusService(app).projects({ all: options.all === true, limit, only });
    if (options.json) {
      printJson({ home: app.paths.home, projects: await read() });
      return;
    }
    // A folder of no known project shows every project, and says so.
    const scope =
      !options.all && only === null
        ? `${dim(`(${process.cwd()} is not in a project session-collab knows: every project is shown)`)}\n`
        : '';
    if (!options.watch) {
      process.stdout.write(scope + render(await read(), app, only !== null));
      return;
    }
    // Redrawn every 2 s until Ctrl-C.
    for (;;) {
      const text = scope + render(await read(), app, only !== null);
      process.stdout.write(
        `\x1b[H\x1b[2J${text}${dim(`\n(redrawn every 2 s; Ctrl-C to stop)  ${new Date().toLocaleTimeString()}`)}\n`,
      );
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
  } finally {
    await app.close();
  }
}

/** A short id, as a person types it (every command takes a unique start of an id). */
const short = (id: string) => id.slice(0, 8);

function render(projects: ProjectStatus[], app: App, here: boolean): string {
  const out: string[] = [];
  const line = (text = '') => out.push(text);
  if (projects.length === 0) {
    line(
      `No active sessions${here ? ' in this project' : ''}. ${dim(`(database: ${app.paths.database}${here ? '; --all for every project' : ''})`)}`,
    );
    return `${out.join('\n')}\n`;
  }
  const now = app.now();
  for (const p of projects) {
    line(bold(p.label) + dim(`  (project ${p.project_id})`));
    const claimsOf = new Map<string, typeof p.claims>();
    for (const c of p.claims) claimsOf.set(c.session_id, [...(claimsOf.get(c.session_id) ?? []), c]);
    const sessionLine = (s: SessionStatus) => {
      const dot = s.status === 'active' ? green('●') : s.status === 'inactive' ? yellow('○') : dim('·');
      const where = [
        s.client ?? 'unknown client',
        s.branch ?? '-',
        inline(s.host === app.host ? s.worktree : `${s.host}:${s.worktree}`, 160),
        s.terminal ?? (s.pid ? `pid ${s.pid}` : null),
      ]
        .filter(Boolean)
        .join('  ');
      return `  ${dot} ${inline(s.name, 40).padEnd(22)} ${s.status.padEnd(8)} ${dim(where)}  ${dim(`since ${describeAge(Date.parse(s.started_at), now)}, last heard ${describeAge(Date.parse(s.last_heartbeat), now)}`)}  ${short(s.id)}`;
    };
    const claimLines = (sessionId: string) =>
      (claimsOf.get(sessionId) ?? []).map(
        (c) =>
          `      ${inline(c.files.join(', '), 120)}  ${dim('—')} ${inline(c.intent, 80)}${c.exclusive ? yellow(' [exclusive]') : ''} ${dim(`${describeAge(Date.parse(c.created_at), now)}  claim ${short(c.claim_id)}`)}`,
      );
    const live = p.sessions.filter((s) => s.status !== 'inactive');
    const stale = p.sessions.filter((s) => s.status === 'inactive');
    line('  Sessions');
    for (const s of live) {
      line(sessionLine(s));
      for (const l of claimLines(s.id)) line(l);
    }
    if (live.length === 0) line(dim('    none live'));
    // Claims of sessions this page does not list (beyond the limit, or ended).
    const listed = new Set(p.sessions.map((s) => s.id));
    for (const [sessionId, claims] of claimsOf)
      if (!listed.has(sessionId)) {
        line(`  ${dim('·')} ${inline(claims[0]!.session, 40).padEnd(22)} ${dim(short(sessionId))}`);
        for (const l of claimLines(sessionId)) line(l);
      }
    if (p.more.sessions) line(dim(`    and more sessions: ${MORE_HINT}`));
    if (stale.length > 0) {
      line(
        `  ${yellow('Not answering')} ${dim('(process gone or silent: their claims no longer stop edits, but stay listed until cleared)')}`,
      );
      for (const s of stale) {
        line(sessionLine(s));
        for (const l of claimLines(s.id)) line(l);
      }
      line(
        dim(
          `    Clear them: session-collab clean   (or session-collab end <id>, session-collab release <claim>)`,
        ),
      );
    }
    if (p.more.claims > 0) line(dim(`    and ${p.more.claims} more claims: ${MORE_HINT}`));
    for (const s of p.sessions)
      for (const h of s.changed_files_held_by_others)
        line(
          `    ${red('⚠')} "${inline(s.name, 40)}" has changed ${inline(h.file, 200)}, which "${inline(h.session, 40)}" holds (${inline(h.intent)})`,
        );
    if (p.conflicts.length > 0) {
      line(`  ${red('Conflicts')}`);
      for (const c of p.conflicts)
        line(
          `    ${red('⚠')} ${inline(c.path, 200)}: "${inline(c.a.session, 40)}" (${inline(c.a.intent)}) and "${inline(c.b.session, 40)}" (${inline(c.b.intent)})`,
        );
      if (p.more.conflicts) line(dim(`    and more: ${MORE_HINT}`));
    }
    if (p.predicted.length > 0) {
      line(
        `  ${yellow('Predicted at merge')} ${dim('(uncommitted changes of two sessions; lines of the version both started from)')}`,
      );
      for (const c of p.predicted) {
        const what =
          c.level === 'textual'
            ? red('will conflict')
            : c.level === 'symbol'
              ? yellow('same code')
              : c.level === 'file'
                ? red('will conflict (whole file)')
                : c.level === 'semantic'
                  ? red('merges, build breaks')
                  : dim('cannot compare');
        const symbols = c.symbols.length > 0 ? ` ${inline(c.symbols.join(', '), 120)}` : '';
        line(
          `    ${what} ${inline(c.file, 200)}${symbols}: "${inline(c.a.session, 40)}" and "${inline(c.b.session, 40)}" ${dim(`(${inline(c.lines, 160)})`)}`,
        );
      }
      if (p.more.predicted) line(dim(`    and more: ${MORE_HINT}`));
    }
    if (p.landing.queue.length > 0 || p.landing.recent.length > 0) {
      line(`  Landing ${dim('(session-collab land --status for more)')}`);
      for (const v of [...p.landing.queue, ...p.landing.recent.slice(0, 3)]) line(`    ${queueLine(v)}`);
    }
    line('');
  }
  return `${out.join('\n')}\n`;
}
