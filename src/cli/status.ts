import { App } from '../app/app.js';
import { inline } from '../core/fence.js';
import { describeAge } from '../core/liveness.js';
import type { ClaimView } from '../features/claims/claims-service.js';
import type { SessionView } from '../features/sessions/sessions-service.js';
import { bold, dim, green, printJson, red, yellow } from './format.js';

export interface StatusOptions {
  json?: boolean;
  all?: boolean;
}

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
}

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
  const app = new App();
  try {
    const projects: ProjectStatus[] = [];
    for (const project of app.store.projects.list()) {
      const sessions = app.sessions.list(project.id, options.all === true).map((s): SessionStatus => {
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
      const claims = app.store.claims
        .list({ projectId: project.id, sessionId: null, status: 'active' })
        .map((c) => app.claims.view(c));
      if (!options.all && sessions.length === 0 && claims.length === 0) continue;
      projects.push({
        project_id: project.id,
        root: project.root,
        kind: project.kind,
        sessions,
        claims,
        conflicts: honestConflicts(app, project, app.claims.projectConflicts(project.id)),
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
      if (p.conflicts.length > 0) {
        console.log(`  ${red('Conflicts')}`);
        for (const c of p.conflicts) {
          console.log(
            `    ${red('⚠')} ${inline(c.path, 200)}: "${inline(c.a.session, 40)}" (${inline(c.a.intent)}) and "${inline(c.b.session, 40)}" (${inline(c.b.intent)})`,
          );
        }
      }
      console.log('');
    }
  } finally {
    app.close();
  }
}
