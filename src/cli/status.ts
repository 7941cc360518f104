import { App } from '../app/app.js';
import { CollabError } from '../core/errors.js';
import { inline } from '../core/fence.js';
import { describeAge } from '../core/liveness.js';
import type { ClaimView } from '../features/claims/claims-service.js';
import type { SessionView } from '../features/sessions/sessions-service.js';
import { bold, dim, green, printJson, red, yellow } from './format.js';

export interface StatusOptions {
  json?: boolean;
  all?: boolean;
  /** Sessions, claims and conflicts shown per project (0: all). */
  limit?: string;
}

/** What `status` shows per project unless --limit says otherwise: a screen, even with thousands. */
const DEFAULT_LIMIT = 20;

interface SessionStatus extends SessionView {
  /** Uncommitted changes in its worktree to files other live sessions hold. */
  changed_files_held_by_others: Array<{ file: string; session: string; session_id: string; intent: string }>;
}

interface ProjectStatus {
  project_id: string;
  root: string;
  kind: string;
  sessions: SessionStatus[];
  claims: ClaimView[];
  conflicts: Array<{ path: string; a: ClaimView; b: ClaimView }>;
  /** Rows of each list beyond --limit (for conflicts: whether there are more). */
  more: { sessions: boolean; claims: number; conflicts: boolean };
}

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

/** Conflicts whose meeting point is a real tracked file where one exists, else a marked example. */
function honestConflicts(
  app: App,
  project: { root: string; kind: string },
  conflicts: Array<{ path: string; a: ClaimView; b: ClaimView }>,
): Array<{ path: string; a: ClaimView; b: ClaimView }> {
  const worktree = project.kind === 'git' ? project.root.replace(/\/\.git$/, '') : project.root;
  const paths = app.claims.meetingPoints(
    worktree,
    conflicts.map((c) => ({ ours: c.a.files, theirs: c.b.files, witness: c.path })),
  );
  return conflicts.map((c, i) => ({ ...c, path: paths[i]! }));
}

/** Sessions, claims and current conflicts per project. */
export function status(options: StatusOptions): void {
  const limit = parseLimit(options.limit);
  const app = new App();
  try {
    const projects: ProjectStatus[] = [];
    for (const project of app.store.projects.list()) {
      const sessionPage = app.sessions.list(project.id, options.all === true, { limit });
      const sessions = sessionPage.items.map((s): SessionStatus => {
        const row = app.store.sessions.get(s.id)!;
        const held = s.status === 'active' ? app.claims.changedFilesHeldByOthers(row) : [];
        return {
          ...s,
          changed_files_held_by_others: held.map((c) => ({
            file: c.file,
            session: c.session,
            session_id: c.session_id,
            intent: c.intent,
          })),
        };
      });
      const activeClaims = { projectId: project.id, sessionId: null, status: 'active' as const };
      const claims: ClaimView[] = [];
      for (const c of app.store.claims.iterate(activeClaims)) {
        if (claims.length === limit) break;
        claims.push(app.claims.view(c));
      }
      if (!options.all && sessions.length === 0 && claims.length === 0) continue;
      const conflicts = app.claims.projectConflicts(project.id, Math.min(limit, 1000));
      projects.push({
        project_id: project.id,
        root: project.root,
        kind: project.kind,
        sessions,
        claims,
        conflicts: honestConflicts(app, project, conflicts.conflicts),
        more: {
          sessions: sessionPage.next_cursor !== null,
          claims: claims.length < limit ? 0 : app.store.claims.count(activeClaims) - claims.length,
          conflicts: conflicts.more,
        },
      });
    }
    if (options.json) {
      printJson({ home: app.paths.home, projects });
      return;
    }
    if (projects.length === 0) {
      console.log(`No active sessions. ${dim(`(database: ${app.paths.database})`)}`);
      return;
    }
    const now = app.now();
    const stateOf = new Map<string, string>();
    for (const p of projects) {
      console.log(
        bold(`${p.kind === 'git' ? p.root.replace(/\/\.git$/, '') : p.root}`) +
          dim(`  (project ${p.project_id})`),
      );
      console.log('  Sessions');
      for (const s of p.sessions) {
        stateOf.set(s.id, s.status);
        const dot = s.status === 'active' ? green('●') : s.status === 'inactive' ? yellow('○') : dim('·');
        console.log(
          `    ${dot} ${inline(s.name, 40).padEnd(24)} ${s.status.padEnd(8)} ${String(s.active_claims).padStart(3)} claim(s)  ${dim(`${s.branch ?? '-'}  seen ${describeAge(Date.parse(s.last_heartbeat), now)}  ${s.id}`)}`,
        );
      }
      if (p.sessions.length === 0) console.log(dim('    none active'));
      if (p.more.sessions) console.log(dim(`    and more: ${MORE_HINT}`));
      for (const s of p.sessions) {
        for (const h of s.changed_files_held_by_others) {
          console.log(
            `    ${red('⚠')} "${inline(s.name, 40)}" has changed ${inline(h.file, 200)}, which "${inline(h.session, 40)}" holds (${inline(h.intent)})`,
          );
        }
      }
      console.log('  Claims');
      for (const c of p.claims) {
        const stale = stateOf.get(c.session_id) === 'active' ? '' : yellow(' (stale)');
        console.log(
          `    ${inline(c.files.join(', '), 300)}  ${dim('by')} ${inline(c.session, 40)}${stale}: ${inline(c.intent)} ${dim(`[${c.scope}, ${describeAge(Date.parse(c.created_at), now)}]`)}`,
        );
      }
      if (p.claims.length === 0) console.log(dim('    none'));
      if (p.more.claims > 0) console.log(dim(`    and ${p.more.claims} more: ${MORE_HINT}`));
      if (p.conflicts.length > 0) {
        console.log(`  ${red('Conflicts')}`);
        for (const c of p.conflicts) {
          console.log(
            `    ${red('⚠')} ${inline(c.path, 200)}: "${inline(c.a.session, 40)}" (${inline(c.a.intent)}) and "${inline(c.b.session, 40)}" (${inline(c.b.intent)})`,
          );
        }
        if (p.more.conflicts) console.log(dim(`    and more: ${MORE_HINT}`));
      }
      console.log('');
    }
  } finally {
    app.close();
  }
}
