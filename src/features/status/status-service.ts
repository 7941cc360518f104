import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { projectLabel } from '../../core/project-label.js';
import { terminalOf } from '../../integrations/process-tree.js';
import type { PairConflict } from '../changes/prediction-types.js';
import type { ClaimView } from '../claims/claim-types.js';
import type { LandingView } from '../landing/landing-service.js';
import type { SessionView } from '../sessions/session-types.js';
import type { Wiring } from '../tool-context.js';

export interface SessionStatus extends SessionView {
  /** Uncommitted changes in its worktree to files other live sessions hold. */
  changed_files_held_by_others: Array<{ file: string; session: string; session_id: string; intent: string }>;
  /** Where a person finds it: its client process, its host, and (on this host) its terminal. */
  pid: number | null;
  host: string;
  terminal: string | null;
}

export interface ProjectStatus {
  project_id: string;
  /** Its key: the repository's identity (`git:…`, `root:…`, `name:…`) or a folder. */
  root: string;
  /** What a person calls it (the repository once, whatever copies its sessions work in). */
  label: string;
  kind: string;
  sessions: SessionStatus[];
  claims: ClaimView[];
  conflicts: Array<{ path: string; a: ClaimView; b: ClaimView }>;
  /** Conflicts predicted between live sessions' uncommitted changes, per pair and file. */
  predicted: PairConflict[];
  /** Its landing queue (landing first, then waiting) and its latest outcomes (a few). */
  landing: { queue: LandingView[]; recent: LandingView[] };
  /** Rows of each list beyond the limit (for conflicts: whether there are more). */
  more: { sessions: boolean; claims: number; conflicts: boolean; predicted: boolean };
}

const DAY_MS = 86_400_000;

/**
 * What `session-collab status` shows: per project, its sessions, claims and current conflicts, a
 * page of each (`limit`), with what lies beyond counted.
 */
export class StatusService {
  constructor(private readonly app: Wiring) {}

  /**
   * `only`: one project (the one of the folder it is asked from); `all`: every project, idle ones
   * and ended sessions too. Sessions that stopped answering are listed (as inactive) with what they
   * still hold.
   */
  async projects(options: { all: boolean; limit: number; only?: string | null }): Promise<ProjectStatus[]> {
    const { app } = this;
    const limit = options.limit;
    const projects: ProjectStatus[] = [];
    for (const project of await app.store.projects.list()) {
      if (options.only && project.id !== options.only) continue;
      const sessionPage = await app.sessions.listWhere(project.id, options.all ? 'all' : 'open', { limit });
      const sessions: SessionStatus[] = [];
      for (const s of sessionPage.items) {
        const row = (await app.store.sessions.get(s.id))!;
        const held = s.status === 'active' ? await app.claims.changedFilesHeldByOthers(row) : [];
        sessions.push({
          ...s,
          pid: row.pid,
          host: row.host,
          terminal: row.pid !== null && row.host === app.host ? terminalOf(row.pid) : null,
          changed_files_held_by_others: held.map((c) => ({
            file: c.file,
            session: c.session,
            session_id: c.session_id,
            intent: c.intent,
          })),
        });
      }
      const activeClaims = { projectId: project.id, sessionId: null, status: 'active' as const };
      const claims: ClaimView[] = [];
      for await (const c of await app.store.claims.iterate(activeClaims)) {
        if (claims.length === limit) break;
        claims.push(app.claims.view(c));
      }
      const landing = await app.landing.status(project.id, Math.min(limit || 50, 50));
      // A project with nothing going on is left out, unless work landed (or was refused) in the last day.
      const lately = landing.recent.some(
        (l) => l.finished_at !== null && Date.parse(l.finished_at) > app.now() - DAY_MS,
      );
      if (
        !options.all &&
        sessions.length === 0 &&
        claims.length === 0 &&
        landing.queue.length === 0 &&
        !lately
      )
        continue;
      const conflicts = await app.claims.projectConflicts(project.id, Math.min(limit, 1000));
      const predicted = await app.changes.betweenSessions(project.id, Math.min(limit, 1000));
      projects.push({
        project_id: project.id,
        root: project.root,
        label: projectLabel(project),
        kind: project.kind,
        sessions,
        claims,
        conflicts: this.honest(project, sessions, conflicts.conflicts),
        predicted: predicted.pairs,
        landing: { queue: landing.queue, recent: landing.recent.slice(0, 5) },
        more: {
          predicted: predicted.more,
          sessions: sessionPage.next_cursor !== null,
          claims: claims.length < limit ? 0 : (await app.store.claims.count(activeClaims)) - claims.length,
          conflicts: conflicts.more,
        },
      });
    }
    return projects;
  }

  /**
   * Conflicts whose meeting point is a real tracked file where one exists (in a copy of the
   * repository on this machine), else a marked example.
   */
  private honest(
    project: { root: string; kind: string },
    sessions: SessionStatus[],
    conflicts: Array<{ path: string; a: ClaimView; b: ClaimView }>,
  ): Array<{ path: string; a: ClaimView; b: ClaimView }> {
    const here = sessions.find((s) => s.host === this.app.host && existsSync(s.worktree))?.worktree;
    const worktree = here ?? (isAbsolute(project.root) ? project.root.replace(/\/\.git$/, '') : null);
    if (worktree === null) return conflicts;
    const paths = this.app.claims.meetingPoints(
      worktree,
      conflicts.map((c) => ({ ours: c.a.files, theirs: c.b.files, witness: c.path })),
    );
    return conflicts.map((c, i) => ({ ...c, path: paths[i]! }));
  }
}
