import type { AgentProvider } from '../core/agent-events.js';
import type { Db } from './database.js';

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
  runner_host: string | null;
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
  provider: AgentProvider | null;
  conversation: string | null;
  /** Full-text query over prompt and result (FTS5 syntax, quoted by the caller). */
  match: string | null;
  limit: number;
  /** Runs created before this one (paging). */
  before: { at: number; id: string } | null;
}

/** The runs of agent CLIs and the conversations they continue. */
export class AgentRunsStore {
  private readonly insertStmt;
  private readonly getStmt;
  private readonly startStmt;
  private readonly finishStmt;
  private readonly ftsStmt;
  private readonly listStmt;
  private readonly searchStmt;
  private readonly deleteOwnStmt;
  private readonly deleteFtsStmt;
  private readonly openOfStmt;
  private readonly conversationStmt;
  private readonly producedStmt;
  private readonly setConversationStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO agent_runs (id, session_id, project_id, provider, conversation, cwd, prompt, files, resumed_from,
         status, runner_pid, runner_host, created_at)
       VALUES (@id, @session_id, @project_id, @provider, @conversation, @cwd, @prompt, @files, @resumed_from,
         'queued', @runner_pid, @runner_host, @created_at)`,
    );
    this.getStmt = db.prepare<[string], AgentRunRow>('SELECT * FROM agent_runs WHERE id = ?');
    this.startStmt = db.prepare(
      "UPDATE agent_runs SET status = 'running', started_at = ?, resumed_from = ? WHERE id = ? AND status = 'queued'",
    );
    this.finishStmt = db.prepare(
      `UPDATE agent_runs SET status = @status, produced = @produced, result = @result, error = @error,
         output_truncated = @output_truncated, cost_usd = @cost_usd, cost_total_usd = @cost_total_usd, input_tokens = @input_tokens,
         output_tokens = @output_tokens, turns = @turns, duration_ms = @duration_ms, finished_at = @finished_at
       WHERE id = @id AND status IN ('queued', 'running')`,
    );
    this.ftsStmt = db.prepare('INSERT INTO agent_runs_fts (run_id, prompt, result) VALUES (?, ?, ?)');
    const filter = `(@provider IS NULL OR r.provider = @provider) AND (@conversation IS NULL OR r.conversation = @conversation)
      AND (@before_at IS NULL OR r.created_at < @before_at OR (r.created_at = @before_at AND r.id < @before_id))`;
    this.listStmt = db.prepare<[Record<string, unknown>], AgentRunRow>(
      `SELECT r.* FROM agent_runs r WHERE r.project_id = @project AND ${filter}
       ORDER BY r.created_at DESC, r.id DESC LIMIT @limit`,
    );
    this.searchStmt = db.prepare<[Record<string, unknown>], AgentRunRow>(
      `SELECT r.* FROM agent_runs_fts f JOIN agent_runs r ON r.id = f.run_id
       WHERE agent_runs_fts MATCH @match AND r.project_id = @project AND ${filter}
       ORDER BY r.created_at DESC, r.id DESC LIMIT @limit`,
    );
    this.deleteOwnStmt = db.prepare<[string], { id: string }>(
      "DELETE FROM agent_runs WHERE session_id = ? AND status NOT IN ('queued', 'running') RETURNING id",
    );
    this.deleteFtsStmt = db.prepare('DELETE FROM agent_runs_fts WHERE run_id = ?');
    this.openOfStmt = db.prepare<[], AgentRunRow>(
      "SELECT * FROM agent_runs WHERE status IN ('queued', 'running')",
    );
    this.producedStmt = db.prepare<[string], AgentRunRow>(
      'SELECT * FROM agent_runs WHERE produced = ? LIMIT 1',
    );
    this.conversationStmt = db.prepare<[string, string, string], { current: string | null }>(
      'SELECT current FROM agent_conversations WHERE session_id = ? AND provider = ? AND conversation = ?',
    );
    this.setConversationStmt = db.prepare(
      `INSERT INTO agent_conversations (session_id, provider, conversation, current, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (session_id, provider, conversation) DO UPDATE SET current = excluded.current, updated_at = excluded.updated_at`,
    );
  }

  insert(row: NewRun): void {
    this.insertStmt.run(row);
  }

  get(id: string): AgentRunRow | undefined {
    return this.getStmt.get(id);
  }

  /** queued → running, from the conversation point it continues; false when it is queued no more. */
  start(id: string, resumedFrom: string | null, now: number): boolean {
    return this.startStmt.run(now, resumedFrom, id).changes > 0;
  }

  /** Records how a run ended (once: a run already ended keeps its first ending). */
  finish(id: string, outcome: RunOutcome): boolean {
    const changed = this.finishStmt.run({ id, ...outcome }).changes > 0;
    if (changed) {
      const row = this.get(id)!;
      this.ftsStmt.run(id, row.prompt, row.result ?? '');
    }
    return changed;
  }

  list(filter: RunFilter): AgentRunRow[] {
    const params = {
      project: filter.projectId,
      provider: filter.provider,
      conversation: filter.conversation,
      before_at: filter.before?.at ?? null,
      before_id: filter.before?.id ?? null,
      limit: filter.limit,
      ...(filter.match !== null ? { match: filter.match } : {}),
    };
    return filter.match !== null ? this.searchStmt.all(params) : this.listStmt.all(params);
  }

  /** Deletes a session's finished runs; how many. */
  deleteOwn(sessionId: string): number {
    const ids = this.deleteOwnStmt.all(sessionId);
    for (const { id } of ids) this.deleteFtsStmt.run(id);
    return ids.length;
  }

  /** The run that produced a CLI conversation id. */
  producedBy(id: string): AgentRunRow | undefined {
    return this.producedStmt.get(id);
  }

  /** Runs not finished (queued or running), in every process. */
  open(): AgentRunRow[] {
    return this.openOfStmt.all();
  }

  /** The CLI conversation id a session's conversation continues from; undefined when never set. */
  conversation(sessionId: string, provider: AgentProvider, name: string): string | null | undefined {
    const row = this.conversationStmt.get(sessionId, provider, name);
    return row === undefined ? undefined : row.current;
  }

  setConversation(
    sessionId: string,
    provider: AgentProvider,
    name: string,
    current: string | null,
    now: number,
  ): void {
    this.setConversationStmt.run(sessionId, provider, name, current, now);
  }
}
