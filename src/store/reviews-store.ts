import type { Verdict } from '../core/work-status.js';
import type { Db } from './database.js';

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

/** Reviews, their suggestions and the worker's responses. */
export class ReviewsStore {
  private readonly insertReview;
  private readonly getReview;
  private readonly byItem;
  private readonly insertSuggestion;
  private readonly getSuggestion;
  private readonly suggestionsOfItem;
  private readonly resolveStmt;
  private readonly insertResponse;
  private readonly responsesOfItem;

  constructor(db: Db) {
    this.insertReview = db.prepare(
      `INSERT OR IGNORE INTO reviews (id, work_item_id, work_item_version, reviewer_id, reviewer_name, verdict, summary, automatic, created_at, updated_at)
       VALUES (@id, @work_item_id, @work_item_version, @reviewer_id, @reviewer_name, @verdict, @summary, @automatic, @created_at, @updated_at)`,
    );
    this.getReview = db.prepare<[string], ReviewRow>('SELECT * FROM reviews WHERE id = ?');
    this.byItem = db.prepare<[string], ReviewRow>(
      'SELECT * FROM reviews WHERE work_item_id = ? ORDER BY created_at, seq',
    );
    this.insertSuggestion = db.prepare(
      `INSERT OR IGNORE INTO suggestions (id, review_id, work_item_id, type, severity, title, explanation, location, current_content, suggested_content,
         status, resolution_comment, resolved_by_name, resolved_at, created_at)
       VALUES (@id, @review_id, @work_item_id, @type, @severity, @title, @explanation, @location, @current_content, @suggested_content,
         @status, @resolution_comment, @resolved_by_name, @resolved_at, @created_at)`,
    );
    this.getSuggestion = db.prepare<[string], SuggestionRow>('SELECT * FROM suggestions WHERE id = ?');
    this.suggestionsOfItem = db.prepare<[string], SuggestionRow>(
      'SELECT * FROM suggestions WHERE work_item_id = ? ORDER BY created_at, seq',
    );
    this.resolveStmt = db.prepare(
      'UPDATE suggestions SET status = @status, resolution_comment = @comment, resolved_by_name = @by, resolved_at = @at WHERE id = @id',
    );
    this.insertResponse = db.prepare(
      `INSERT OR IGNORE INTO review_responses (id, review_id, work_item_id, responder_id, responder_name, response, action, created_at)
       VALUES (@id, @review_id, @work_item_id, @responder_id, @responder_name, @response, @action, @created_at)`,
    );
    this.responsesOfItem = db.prepare<[string], ResponseRow>(
      'SELECT * FROM review_responses WHERE work_item_id = ? ORDER BY created_at, seq',
    );
  }

  insert(row: ReviewRow): boolean {
    return this.insertReview.run(row).changes > 0;
  }

  get(id: string): ReviewRow | undefined {
    return this.getReview.get(id);
  }

  ofItem(workItemId: string): ReviewRow[] {
    return this.byItem.all(workItemId);
  }

  addSuggestion(row: SuggestionRow): boolean {
    return this.insertSuggestion.run(row).changes > 0;
  }

  suggestion(id: string): SuggestionRow | undefined {
    return this.getSuggestion.get(id);
  }

  suggestionsOf(workItemId: string): SuggestionRow[] {
    return this.suggestionsOfItem.all(workItemId);
  }

  resolve(id: string, status: SuggestionStatus, comment: string | null, by: string, at: number): void {
    this.resolveStmt.run({ id, status, comment, by, at });
  }

  addResponse(row: ResponseRow): boolean {
    return this.insertResponse.run(row).changes > 0;
  }

  responsesOf(workItemId: string): ResponseRow[] {
    return this.responsesOfItem.all(workItemId);
  }
}
