import type { AgentProvider } from '../core/agent-events.js';
import { inList, type Sql } from './sql.js';

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

/**
 * What is kept with the point a conversation continues from, apart from the history of runs: the
 * folder its run ran in (a CLI that keeps its sessions per folder resumes there) and the
 * conversation's total cost at that point (claude reports totals).
 */
export interface ConversationPoint {
  cwd: string | null;
  cost_total_usd: number | null;
}

/** A point with nothing known of it (a new conversation, or one reset). */
export const UNKNOWN_POINT: ConversationPoint = { cwd: null, cost_total_usd: null };

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
   * Deletes a session's finished runs; how many. The points its conversations continue from are
   * kept apart (agent_conversations, with their folder and cost), so they continue.
   */
  async deleteOwn(sessionId: string): Promise<number> {
    const ids = await this.sql.all<{ id: string }>(
      `DELETE FROM agent_runs WHERE session_id = ? AND status NOT IN ('queued', 'running') RETURNING id`,
      [sessionId],
    );
    // Their words in one statement: SQLite's full-text table has no index on the run, so each
    // statement looks through all of it.
    if (ids.length > 0) {
      const list = inList(
        this.sql.dialect,
        ids.map((r) => r.id),
      );
      await this.sql.run(`DELETE FROM agent_runs_fts WHERE run_id ${list.text}`, [list.param]);
    }
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
  ): Promise<(ConversationPoint & { session_id: string; current: string }) | undefined> {
    return this.sql.get(
      `SELECT c.session_id, c.current, c.cwd, c.cost_total_usd FROM agent_conversations c
         JOIN sessions s ON s.id = c.session_id
       WHERE s.project_id = ? AND c.provider = ? AND c.conversation = ? AND c.current IS NOT NULL
         AND s.status = 'ended' AND s.host = ? AND s.worktree = ?
       ORDER BY c.updated_at DESC, c.session_id DESC LIMIT 1`,
      [where.projectId, provider, conversation, where.host, where.worktree],
    );
  }

  /** How many of a session's runs have not ended. */
  async going(sessionId: string): Promise<number> {
    const row = await this.sql.get<{ n: number }>(
      "SELECT count(*) AS n FROM agent_runs WHERE session_id = ? AND status IN ('queued', 'running')",
      [sessionId],
    );
    return Number(row?.n ?? 0);
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
    return (await this.point(sessionId, provider, name))?.current;
  }

  /** Where a session's conversation continues from, with that point's folder and cost; undefined when never set. */
  point(
    sessionId: string,
    provider: AgentProvider,
    name: string,
  ): Promise<(ConversationPoint & { current: string | null }) | undefined> {
    return this.sql.get(
      'SELECT current, cwd, cost_total_usd FROM agent_conversations WHERE session_id = ? AND provider = ? AND conversation = ?',
      [sessionId, provider, name],
    );
  }

  /** Sets where a session's conversation continues from (null: afresh), with that point's folder and cost. */
  async setConversation(
    sessionId: string,
    provider: AgentProvider,
    name: string,
    current: string | null,
    at: ConversationPoint,
    now: number,
  ): Promise<void> {
    await this.sql.run(
      `INSERT INTO agent_conversations (session_id, provider, conversation, current, cwd, cost_total_usd, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (session_id, provider, conversation) DO UPDATE SET current = excluded.current,
         cwd = excluded.cwd, cost_total_usd = excluded.cost_total_usd, updated_at = excluded.updated_at`,
      [sessionId, provider, name, current, at.cwd, at.cost_total_usd, now],
    );
  }
}
