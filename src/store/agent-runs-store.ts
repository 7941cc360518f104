import type { AgentProvider } from '../core/agent-events.js';
import type { Sql } from './sql.js';

export type RunStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'timed_out' | 'lost';

export interface AgentRunRow {
  id: string;
  session_id: string;
  project_id: string;
  provider: AgentProvider;
  conversation: string;
  cwd: string;
  prompt: string;
  files: string | null;
  resumed_from: string | null;
  produced: string | null;
  status: RunStatus;
  result: string | null;
  error: string | null;
  output_truncated: number;
  cost_usd: number | null;
  cost_total_usd: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  turns: number | null;
  duration_ms: number | null;
  runner_pid: number | null;
  /** The runner's start time (process-probe), which tells it from a later process given its pid. */
  runner_start: string | null;
  runner_host: string | null;
  /** The process group the CLI runs in (the CLI's pid), once it has started. */
  cli_pgid: number | null;
  /** Why a run that started did not continue its conversation (null: it continued, or has not started). */
  fresh_reason: string | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
}

export type NewRun = Pick<
  AgentRunRow,
  | 'id'
  | 'session_id'
  | 'project_id'
  | 'provider'
  | 'conversation'
  | 'cwd'
  | 'prompt'
  | 'files'
  | 'resumed_from'
  | 'runner_pid'
  | 'runner_start'
  | 'runner_host'
  | 'created_at'
>;

export type RunOutcome = Pick<
  AgentRunRow,
  | 'status'
  | 'produced'
  | 'result'
  | 'error'
  | 'output_truncated'
  | 'cost_usd'
  | 'cost_total_usd'
  | 'input_tokens'
  | 'output_tokens'
  | 'turns'
  | 'duration_ms'
  | 'finished_at'
>;

export interface RunFilter {
  projectId: string;
  /** One session's runs only, or null: every session's of the project. */
  sessionId: string | null;
  provider: AgentProvider | null;
  conversation: string | null;
  /** Words to search for in prompt and result (every one must appear), or null. */
  match: string[] | null;
  limit: number;
  /** Runs created before this one (paging). */
  before: { at: number; id: string } | null;
}

const FILTER = `(CAST(? AS TEXT) IS NULL OR r.session_id = ?)
  AND (CAST(? AS TEXT) IS NULL OR r.provider = ?) AND (CAST(? AS TEXT) IS NULL OR r.conversation = ?)
  AND (CAST(? AS BIGINT) IS NULL OR r.created_at < ? OR (r.created_at = ? AND r.id < ?))`;

/**
 * Runs whose prompt or result holds every word: SQLite's FTS5 table (each word quoted, so no
 * operator from the input), or the `tsvector` column of its PostgreSQL twin.
 */
const SEARCH = {
  sqlite: `SELECT r.* FROM agent_runs_fts f JOIN agent_runs r ON r.id = f.run_id
    WHERE agent_runs_fts MATCH ? AND r.project_id = ? AND ${FILTER}
    ORDER BY r.created_at DESC, r.id DESC LIMIT ?`,
  postgresql: `SELECT r.* FROM agent_runs_fts f JOIN agent_runs r ON r.id = f.run_id
    WHERE f.search @@ plainto_tsquery('simple', ?) AND r.project_id = ? AND ${FILTER}
    ORDER BY r.created_at DESC, r.id DESC LIMIT ?`,
} as const;

/** The runs of agent CLIs and the conversations they continue. */
export class AgentRunsStore {
  constructor(private readonly sql: Sql) {}

  async insert(row: NewRun): Promise<void> {
    await this.sql.run(
      `INSERT INTO agent_runs (id, session_id, project_id, provider, conversation, cwd, prompt, files, resumed_from,
         status, runner_pid, runner_start, runner_host, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?)`,
      [
        row.id,
        row.session_id,
        row.project_id,
        row.provider,
        row.conversation,
        row.cwd,
        row.prompt,
        row.files,
        row.resumed_from,
        row.runner_pid,
        row.runner_start,
        row.runner_host,
        row.created_at,
      ],
    );
  }

  get(id: string): Promise<AgentRunRow | undefined> {
    return this.sql.get<AgentRunRow>('SELECT * FROM agent_runs WHERE id = ?', [id]);
  }

  /**
   * queued → running, from the conversation point it continues (or afresh, and why); false when it
   * is queued no more.
   */
  async start(
    id: string,
    resumedFrom: string | null,
    freshReason: string | null,
    now: number,
  ): Promise<boolean> {
    const { changes } = await this.sql.run(
      "UPDATE agent_runs SET status = 'running', started_at = ?, resumed_from = ?, fresh_reason = ? WHERE id = ? AND status = 'queued'",
      [now, resumedFrom, freshReason, id],
    );
    return changes > 0;
  }

  /**
   * Takes over a run whose server is gone: it is this process's now, unless another process took it
   * (or it ended) since `row` was read. Whether it is.
   */
  async takeOver(row: AgentRunRow, pid: number, start: string | null): Promise<boolean> {
    const { changes } = await this.sql.run(
      `UPDATE agent_runs SET runner_pid = ?, runner_start = ?
       WHERE id = ? AND status IN ('queued', 'running') AND runner_pid = ? AND coalesce(runner_start, '') = ?`,
      [pid, start, row.id, row.runner_pid, row.runner_start ?? ''],
    );
    return changes > 0;
  }

  /** The process group its CLI runs in, once spawned. */
  async setCliGroup(id: string, pgid: number): Promise<void> {
    await this.sql.run('UPDATE agent_runs SET cli_pgid = ? WHERE id = ?', [pgid, id]);
  }

  /** Records how a run ended (once: a run already ended keeps its first ending). */
  async finish(id: string, outcome: RunOutcome): Promise<boolean> {
    const { changes } = await this.sql.run(
      `UPDATE agent_runs SET status = ?, produced = ?, result = ?, error = ?, output_truncated = ?, cost_usd = ?,
         cost_total_usd = ?, input_tokens = ?, output_tokens = ?, turns = ?, duration_ms = ?, finished_at = ?
       WHERE id = ? AND status IN ('queued', 'running')`,
      [
        outcome.status,
        outcome.produced,
        outcome.result,
        outcome.error,
        outcome.output_truncated,
        outcome.cost_usd,
        outcome.cost_total_usd,
        outcome.input_tokens,
        outcome.output_tokens,
        outcome.turns,
        outcome.duration_ms,
        outcome.finished_at,
        id,
      ],
    );
    if (changes > 0) {
      const row = (await this.get(id))!;
      await this.sql.run('INSERT INTO agent_runs_fts (run_id, prompt, result) VALUES (?, ?, ?)', [
        id,
        row.prompt,
        row.result ?? '',
      ]);
    }
    return changes > 0;
  }

  list(filter: RunFilter): Promise<AgentRunRow[]> {
    const params = [
      filter.sessionId,
      filter.sessionId,
      filter.provider,
      filter.provider,
      filter.conversation,
      filter.conversation,
      filter.before?.at ?? null,
      filter.before?.at ?? null,
      filter.before?.at ?? null,
      filter.before?.id ?? null,
    ];
    if (filter.match === null)
      return this.sql.all<AgentRunRow>(
        `SELECT r.* FROM agent_runs r WHERE r.project_id = ? AND ${FILTER}
         ORDER BY r.created_at DESC, r.id DESC LIMIT ?`,
        [filter.projectId, ...params, filter.limit],
      );
    const query =
      this.sql.dialect === 'postgresql'
        ? filter.match.join(' ')
        : filter.match.map((w) => `"${w.replace(/"/g, '""')}"`).join(' ');
    return this.sql.all<AgentRunRow>(SEARCH[this.sql.dialect], [
      query,
      filter.projectId,
      ...params,
      filter.limit,
    ]);
  }

  /**
   * Deletes a session's finished runs, but for those that produced a point one of its conversations
   * continues from (where it ran and what it cost are read from them); how many.
   */
  async deleteOwn(sessionId: string): Promise<number> {
    const ids = await this.sql.all<{ id: string }>(
      `DELETE FROM agent_runs WHERE session_id = ? AND status NOT IN ('queued', 'running')
         AND (produced IS NULL OR produced NOT IN
           (SELECT current FROM agent_conversations WHERE session_id = ? AND current IS NOT NULL))
       RETURNING id`,
      [sessionId, sessionId],
    );
    for (const { id } of ids) await this.sql.run('DELETE FROM agent_runs_fts WHERE run_id = ?', [id]);
    return ids.length;
  }

  /** A session's newest run of a conversation that has not ended (it makes the point the next one continues from). */
  lastOpen(
    sessionId: string,
    provider: AgentProvider,
    conversation: string,
  ): Promise<AgentRunRow | undefined> {
    return this.sql.get<AgentRunRow>(
      `SELECT * FROM agent_runs WHERE session_id = ? AND provider = ? AND conversation = ? AND status IN ('queued', 'running')
       ORDER BY created_at DESC, id DESC LIMIT 1`,
      [sessionId, provider, conversation],
    );
  }

  /**
   * The newest point a conversation name reached in a session that has ended, of this machine and
   * this worktree (a session before a restart of its server): what a new session may continue.
   */
  lastPoint(
    where: { projectId: string; host: string; worktree: string },
    provider: AgentProvider,
    conversation: string,
  ): Promise<AgentRunRow | undefined> {
    return this.sql.get<AgentRunRow>(
      `SELECT r.* FROM agent_runs r JOIN sessions s ON s.id = r.session_id
       WHERE r.project_id = ? AND r.provider = ? AND r.conversation = ? AND r.produced IS NOT NULL
         AND r.status = 'succeeded' AND s.status = 'ended' AND s.host = ? AND s.worktree = ?
       ORDER BY r.created_at DESC, r.id DESC LIMIT 1`,
      [where.projectId, provider, conversation, where.host, where.worktree],
    );
  }

  /** How many of a session's runs have not ended, and how many ended ones it still has. */
  async remaining(sessionId: string): Promise<{ going: number; ended: number }> {
    const row = await this.sql.get<{ going: number; ended: number }>(
      `SELECT coalesce(sum(CASE WHEN status IN ('queued', 'running') THEN 1 ELSE 0 END), 0) AS going,
              coalesce(sum(CASE WHEN status IN ('queued', 'running') THEN 0 ELSE 1 END), 0) AS ended
       FROM agent_runs WHERE session_id = ?`,
      [sessionId],
    );
    return { going: Number(row?.going ?? 0), ended: Number(row?.ended ?? 0) };
  }

  /** The run that produced a CLI conversation id. */
  producedBy(id: string): Promise<AgentRunRow | undefined> {
    return this.sql.get<AgentRunRow>('SELECT * FROM agent_runs WHERE produced = ? LIMIT 1', [id]);
  }

  /** Runs not finished (queued or running), in every process. */
  open(): Promise<AgentRunRow[]> {
    return this.sql.all<AgentRunRow>("SELECT * FROM agent_runs WHERE status IN ('queued', 'running')");
  }

  /** The CLI conversation id a session's conversation continues from; undefined when never set. */
  async conversation(
    sessionId: string,
    provider: AgentProvider,
    name: string,
  ): Promise<string | null | undefined> {
    const row = await this.sql.get<{ current: string | null }>(
      'SELECT current FROM agent_conversations WHERE session_id = ? AND provider = ? AND conversation = ?',
      [sessionId, provider, name],
    );
    return row === undefined ? undefined : row.current;
  }

  async setConversation(
    sessionId: string,
    provider: AgentProvider,
    name: string,
    current: string | null,
    now: number,
  ): Promise<void> {
    await this.sql.run(
      `INSERT INTO agent_conversations (session_id, provider, conversation, current, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (session_id, provider, conversation) DO UPDATE SET current = excluded.current, updated_at = excluded.updated_at`,
      [sessionId, provider, name, current, now],
    );
  }
}
