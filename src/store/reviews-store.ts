import type { Verdict } from '../core/work-status.js';
import type { Sql } from './sql.js';

export interface ReviewRow {
  id: string;
  work_item_id: string;
  work_item_version: number;
  reviewer_id: string | null;
  reviewer_name: string;
  verdict: Verdict;
  summary: string;
  automatic: number;
  created_at: number;
  updated_at: number;
}

export type SuggestionStatus = 'pending' | 'accepted' | 'rejected' | 'partially_accepted';

export interface SuggestionRow {
  id: string;
  review_id: string;
  work_item_id: string;
  type: string;
  severity: 'critical' | 'major' | 'minor' | 'info';
  title: string;
  explanation: string;
  location: string | null;
  current_content: string | null;
  suggested_content: string | null;
  status: SuggestionStatus;
  resolution_comment: string | null;
  resolved_by_name: string | null;
  resolved_at: number | null;
  created_at: number;
}

export interface ResponseRow {
  id: string;
  review_id: string;
  work_item_id: string;
  responder_id: string | null;
  responder_name: string;
  response: string;
  action: 'acknowledged' | 'will_fix' | 'need_discussion' | 'disagree';
  created_at: number;
}

const INSERT_REVIEW = `INSERT INTO reviews (id, work_item_id, work_item_version, reviewer_id, reviewer_name, verdict, summary, automatic, created_at, updated_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`;
const INSERT_SUGGESTION = `INSERT INTO suggestions (id, review_id, work_item_id, type, severity, title, explanation, location, current_content, suggested_content,
    status, resolution_comment, resolved_by_name, resolved_at, created_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`;
const INSERT_RESPONSE = `INSERT INTO review_responses (id, review_id, work_item_id, responder_id, responder_name, response, action, created_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`;

/** Reviews, their suggestions and the worker's responses. */
export class ReviewsStore {
  constructor(private readonly sql: Sql) {}

  async insert(row: ReviewRow): Promise<boolean> {
    const { changes } = await this.sql.run(INSERT_REVIEW, [
      row.id,
      row.work_item_id,
      row.work_item_version,
      row.reviewer_id,
      row.reviewer_name,
      row.verdict,
      row.summary,
      row.automatic,
      row.created_at,
      row.updated_at,
    ]);
    return changes > 0;
  }

  get(id: string): Promise<ReviewRow | undefined> {
    return this.sql.get<ReviewRow>('SELECT * FROM reviews WHERE id = ?', [id]);
  }

  ofItem(workItemId: string): Promise<ReviewRow[]> {
    return this.sql.all<ReviewRow>('SELECT * FROM reviews WHERE work_item_id = ? ORDER BY created_at, seq', [
      workItemId,
    ]);
  }

  async addSuggestion(row: SuggestionRow): Promise<boolean> {
    const { changes } = await this.sql.run(INSERT_SUGGESTION, [
      row.id,
      row.review_id,
      row.work_item_id,
      row.type,
      row.severity,
      row.title,
      row.explanation,
      row.location,
      row.current_content,
      row.suggested_content,
      row.status,
      row.resolution_comment,
      row.resolved_by_name,
      row.resolved_at,
      row.created_at,
    ]);
    return changes > 0;
  }

  suggestion(id: string): Promise<SuggestionRow | undefined> {
    return this.sql.get<SuggestionRow>('SELECT * FROM suggestions WHERE id = ?', [id]);
  }

  suggestionsOf(workItemId: string): Promise<SuggestionRow[]> {
    return this.sql.all<SuggestionRow>(
      'SELECT * FROM suggestions WHERE work_item_id = ? ORDER BY created_at, seq',
      [workItemId],
    );
  }

  /** The newest `limit` suggestions on a work item, and how many it has in all. */
  async recentSuggestions(
    workItemId: string,
    limit: number,
  ): Promise<{ rows: SuggestionRow[]; total: number }> {
    const rows = await this.sql.all<SuggestionRow>(
      'SELECT * FROM suggestions WHERE work_item_id = ? ORDER BY created_at DESC, seq DESC LIMIT ?',
      [workItemId, limit],
    );
    const count = await this.sql.get<{ n: number }>(
      'SELECT count(*) AS n FROM suggestions WHERE work_item_id = ?',
      [workItemId],
    );
    return { rows: rows.reverse(), total: Number(count!.n) };
  }

  /** The newest `limit` reviews of a work item, oldest first, and how many it has in all. */
  async recentOfItem(workItemId: string, limit: number): Promise<{ rows: ReviewRow[]; total: number }> {
    const rows = await this.sql.all<ReviewRow>(
      'SELECT * FROM reviews WHERE work_item_id = ? ORDER BY created_at DESC, seq DESC LIMIT ?',
      [workItemId, limit],
    );
    const count = await this.sql.get<{ n: number }>(
      'SELECT count(*) AS n FROM reviews WHERE work_item_id = ?',
      [workItemId],
    );
    return { rows: rows.reverse(), total: Number(count!.n) };
  }

  async resolve(
    id: string,
    status: SuggestionStatus,
    comment: string | null,
    by: string,
    at: number,
  ): Promise<void> {
    await this.sql.run(
      'UPDATE suggestions SET status = ?, resolution_comment = ?, resolved_by_name = ?, resolved_at = ? WHERE id = ?',
      [status, comment, by, at, id],
    );
  }

  async addResponse(row: ResponseRow): Promise<boolean> {
    const { changes } = await this.sql.run(INSERT_RESPONSE, [
      row.id,
      row.review_id,
      row.work_item_id,
      row.responder_id,
      row.responder_name,
      row.response,
      row.action,
      row.created_at,
    ]);
    return changes > 0;
  }

  responsesOf(workItemId: string): Promise<ResponseRow[]> {
    return this.sql.all<ResponseRow>(
      'SELECT * FROM review_responses WHERE work_item_id = ? ORDER BY created_at, seq',
      [workItemId],
    );
  }
}
