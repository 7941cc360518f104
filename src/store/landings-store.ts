import type { Sql } from './sql.js';

export type LandingState = 'queued' | 'landing' | 'landed' | 'rejected' | 'cancelled';

/** One request to land a copy's committed work onto a target branch (`features/landing/`). */
export interface LandingRow {
  id: string;
  project_id: string;
  /** The requesting session; null for a person outside any session (the CLI). */
  session_id: string | null;
  requester: string;
  host: string;
  worktree: string;
  branch: string;
  head_commit: string;
  onto: string;
  commits: number;
  state: LandingState;
  runner: string | null;
  runner_pid: number | null;
  runner_host: string | null;
  /** The runner's start time (process-probe): tells it from a later process given its pid. */
  runner_start: string | null;
  lease_until: number | null;
  attempts: number;
  target_before: string | null;
  /** The commit about to become the target: written before the target moves. */
  candidate: string | null;
  landed_commit: string | null;
  reason_code: string | null;
  reason: string | null;
  /** JSON: what a refusal found (conflicting files and lines, held files). */
  details: string | null;
  check_output: string | null;
  check_ms: number | null;
  requested_at: number;
  started_at: number | null;
  finished_at: number | null;
}

export type NewLanding = Pick<
  LandingRow,
  | 'id'
  | 'project_id'
  | 'session_id'
  | 'requester'
  | 'host'
  | 'worktree'
  | 'branch'
  | 'head_commit'
  | 'onto'
  | 'commits'
  | 'requested_at'
>;

/** How a landing ended: landed (with its commit) or refused (with why). */
export interface LandingOutcome {
  state: 'landed' | 'rejected' | 'cancelled';
  landed_commit?: string | null;
  reason_code?: string | null;
  reason?: string | null;
  details?: string | null;
  check_output?: string | null;
  check_ms?: number | null;
}

/** A conflict a landing's work has with another session's changes (its `collab_check` shows it). */
export interface LandingMeetingRow {
  id: string;
  landing_id: string;
  session_id: string;
  project_id: string;
  base_commit: string;
  level: string;
  file: string;
  /** JSON: the prediction as `collab_check` gives it. */
  detail: string;
  at: number;
}

const OPEN = "('queued', 'landing')";

/** The landing queue: one per repository (project), oldest request first. */
export class LandingsStore {
  constructor(private readonly sql: Sql) {}

  async add(row: NewLanding): Promise<void> {
    await this.sql.run(
      `INSERT INTO landings (id, project_id, session_id, requester, host, worktree, branch, head_commit, onto,
         commits, state, requested_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?)`,
      [
        row.id,
        row.project_id,
        row.session_id,
        row.requester,
        row.host,
        row.worktree,
        row.branch,
        row.head_commit,
        row.onto,
        row.commits,
        row.requested_at,
      ],
    );
  }

  /** A waiting request takes its copy's newer HEAD and branch (the copy committed more before its turn). */
  async retarget(id: string, branch: string, head: string, commits: number): Promise<void> {
    await this.sql.run(
      "UPDATE landings SET branch = ?, head_commit = ?, commits = ? WHERE id = ? AND state = 'queued'",
      [branch, head, commits, id],
    );
  }

  get(id: string): Promise<LandingRow | undefined> {
    return this.sql.get<LandingRow>('SELECT * FROM landings WHERE id = ?', [id]);
  }

  /** A request of this copy's branch onto `onto` still waiting or landing (one at a time per branch). */
  openFor(projectId: string, worktree: string, host: string, onto: string): Promise<LandingRow | undefined> {
    return this.sql.get<LandingRow>(
      `SELECT * FROM landings WHERE project_id = ? AND state IN ${OPEN} AND worktree = ? AND host = ? AND onto = ?
       ORDER BY requested_at LIMIT 1`,
      [projectId, worktree, host, onto],
    );
  }

  /** The project's queue: the request landing (if any) first, then the waiting ones in order. */
  queue(projectId: string, limit: number): Promise<LandingRow[]> {
    return this.sql.all<LandingRow>(
      `SELECT * FROM landings WHERE project_id = ? AND state IN ${OPEN}
       ORDER BY CASE state WHEN 'landing' THEN 0 ELSE 1 END, requested_at, id LIMIT ?`,
      [projectId, limit],
    );
  }

  /** How many requests of the project come before `row` (0: it is next, or landing). */
  async ahead(row: LandingRow): Promise<number> {
    const found = await this.sql.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM landings WHERE project_id = ? AND state IN ${OPEN}
         AND (state = 'landing' OR requested_at < ? OR (requested_at = ? AND id < ?)) AND id <> ?`,
      [row.project_id, row.requested_at, row.requested_at, row.id, row.id],
    );
    return Number(found?.n ?? 0);
  }

  /** The project's finished requests, newest first. */
  recent(projectId: string, limit: number): Promise<LandingRow[]> {
    return this.sql.all<LandingRow>(
      `SELECT * FROM landings WHERE project_id = ? AND state NOT IN ${OPEN}
       ORDER BY finished_at DESC, id LIMIT ?`,
      [projectId, limit],
    );
  }

  /** Projects with requests waiting or landing, and the requests' hosts (what a serving process drives). */
  async openProjects(): Promise<Array<{ project_id: string; host: string }>> {
    return this.sql.all<{ project_id: string; host: string }>(
      `SELECT DISTINCT project_id, host FROM landings WHERE state IN ${OPEN}`,
    );
  }

  /** Starts landing a waiting request: only while it waits and nothing of its project lands. */
  async start(
    id: string,
    runner: { id: string; pid: number; host: string; start: string | null },
    now: number,
    leaseUntil: number,
  ): Promise<boolean> {
    const { changes } = await this.sql.run(
      `UPDATE landings SET state = 'landing', runner = ?, runner_pid = ?, runner_host = ?, runner_start = ?,
         lease_until = ?, started_at = ?, attempts = attempts + 1
       WHERE id = ? AND state = 'queued' AND NOT EXISTS
         (SELECT 1 FROM landings l WHERE l.project_id = landings.project_id AND l.state = 'landing')`,
      [runner.id, runner.pid, runner.host, runner.start, leaseUntil, now, id],
    );
    return changes > 0;
  }

  /**
   * Takes over a landing whose runner is gone: only from that runner and at the lease it was read
   * with (two takers never both win, and a runner that renewed its lease meanwhile keeps it).
   */
  async takeOver(
    row: LandingRow,
    runner: { id: string; pid: number; host: string; start: string | null },
    leaseUntil: number,
  ): Promise<boolean> {
    const { changes } = await this.sql.run(
      `UPDATE landings SET runner = ?, runner_pid = ?, runner_host = ?, runner_start = ?, lease_until = ?,
         attempts = attempts + 1
       WHERE id = ? AND state = 'landing' AND coalesce(runner, '') = ? AND coalesce(lease_until, -1) = ?`,
      [
        runner.id,
        runner.pid,
        runner.host,
        runner.start,
        leaseUntil,
        row.id,
        row.runner ?? '',
        row.lease_until ?? -1,
      ],
    );
    return changes > 0;
  }

  /** Renews the runner's lease: false when another process took the landing over. */
  async renew(id: string, runner: string, leaseUntil: number): Promise<boolean> {
    const { changes } = await this.sql.run(
      "UPDATE landings SET lease_until = ? WHERE id = ? AND runner = ? AND state = 'landing'",
      [leaseUntil, id, runner],
    );
    return changes > 0;
  }

  /** Notes the target it starts from and the commit about to replace it (before the target moves). */
  async note(
    id: string,
    runner: string,
    fields: { target_before?: string | null; candidate?: string | null },
  ): Promise<boolean> {
    const { changes } = await this.sql.run(
      // A candidate stays until another replaces it: a takeover of a takeover still knows what
      // the first lander may have moved the target to.
      `UPDATE landings SET target_before = coalesce(?, target_before), candidate = coalesce(?, candidate)
       WHERE id = ? AND runner = ? AND state = 'landing'`,
      [fields.target_before ?? null, fields.candidate ?? null, id, runner],
    );
    return changes > 0;
  }

  /**
   * Records how a landing ended: by its runner (`runner`), or, for a request still waiting, by
   * anyone (`runner` null: cancelled). False when it had ended already or another runner has it.
   */
  async finish(id: string, runner: string | null, outcome: LandingOutcome, now: number): Promise<boolean> {
    const { changes } = await this.sql.run(
      `UPDATE landings SET state = ?, landed_commit = ?, reason_code = ?, reason = ?, details = ?, check_output = ?,
         check_ms = ?, finished_at = ?, lease_until = NULL
       WHERE id = ? AND ${runner === null ? "state = 'queued'" : "state = 'landing' AND runner = ?"}`,
      [
        outcome.state,
        outcome.landed_commit ?? null,
        outcome.reason_code ?? null,
        outcome.reason ?? null,
        outcome.details ?? null,
        outcome.check_output ?? null,
        outcome.check_ms ?? null,
        now,
        id,
        ...(runner === null ? [] : [runner]),
      ],
    );
    return changes > 0;
  }

  /**
   * Ends a request that will never land (its session went away, its lander stopped for good): only
   * as it was read (its state, runner and lease), so that a lander that got to it or renewed its
   * lease meanwhile wins.
   */
  async abandon(row: LandingRow, outcome: LandingOutcome, now: number): Promise<boolean> {
    const { changes } = await this.sql.run(
      `UPDATE landings SET state = ?, reason_code = ?, reason = ?, finished_at = ?, lease_until = NULL
       WHERE id = ? AND state = ? AND coalesce(runner, '') = ? AND coalesce(lease_until, -1) = ?`,
      [
        outcome.state,
        outcome.reason_code ?? null,
        outcome.reason ?? null,
        now,
        row.id,
        row.state,
        row.runner ?? '',
        row.lease_until ?? -1,
      ],
    );
    return changes > 0;
  }

  async addMeetings(rows: LandingMeetingRow[]): Promise<void> {
    for (const r of rows)
      await this.sql.run(
        `INSERT INTO landing_meetings (id, landing_id, session_id, project_id, base_commit, level, file, detail, at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [r.id, r.landing_id, r.session_id, r.project_id, r.base_commit, r.level, r.file, r.detail, r.at],
      );
  }

  /** What landed work meets in a session's changes made from `baseCommit`, newest first. */
  async meetingsOf(sessionId: string, baseCommit: string, limit: number): Promise<LandingMeetingRow[]> {
    // Asked at every check of the session: kept while the table stays (rows copied).
    const rows = await this.sql.kept(
      `meetings:${sessionId}:${baseCommit}:${limit}`,
      ['landing_meetings'],
      () =>
        this.sql.all<LandingMeetingRow>(
          'SELECT * FROM landing_meetings WHERE session_id = ? AND base_commit = ? ORDER BY at DESC, id LIMIT ?',
          [sessionId, baseCommit, limit],
        ),
    );
    return rows.map((row) => ({ ...row }));
  }

  /** Finished requests and meetings older than `before`. */
  async purge(before: number): Promise<number> {
    const a = await this.sql.run(`DELETE FROM landings WHERE state NOT IN ${OPEN} AND finished_at < ?`, [
      before,
    ]);
    const b = await this.sql.run('DELETE FROM landing_meetings WHERE at < ?', [before]);
    return a.changes + b.changes;
  }
}
