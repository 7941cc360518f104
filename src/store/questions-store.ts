import type { AnswerChannel, QuestionStatus, Urgency } from '../core/questions.js';
import type { Db } from './database.js';

/** How long a process may take to send a question before another may take the sending over. */
const SENDING_MS = 60_000;

export interface QuestionRow {
  id: string;
  session_id: string;
  project_id: string;
  question: string;
  /** JSON array of strings, or null. */
  options: string | null;
  label: string | null;
  urgency: Urgency;
  status: QuestionStatus;
  answer: string | null;
  answered_via: AnswerChannel | null;
  answered_by: string | null;
  created_at: number;
  expires_at: number | null;
  closed_at: number | null;
  returned_at: number | null;
  elicitation: string | null;
  telegram_sent: number;
}

/** A question with what a person needs to tell the askers apart. */
export interface QuestionWithSession extends QuestionRow {
  session_name: string;
  session_client: string | null;
  session_branch: string | null;
  session_worktree: string;
}

export type NewQuestion = Pick<
  QuestionRow,
  | 'id'
  | 'session_id'
  | 'project_id'
  | 'question'
  | 'options'
  | 'label'
  | 'urgency'
  | 'created_at'
  | 'expires_at'
>;

const WITH_SESSION = `SELECT q.*, s.name AS session_name, s.client AS session_client, s.branch AS session_branch,
  s.worktree AS session_worktree FROM questions q JOIN sessions s ON s.id = q.session_id`;

export class QuestionsStore {
  private readonly insertStmt;
  private readonly getStmt;
  private readonly getWithSessionStmt;
  private readonly answerStmt;
  private readonly closeStmt;
  private readonly expireStmt;
  private readonly statusesStmt;
  private readonly bySessionStmt;
  private readonly pendingStmt;
  private readonly returnedStmt;
  private readonly elicitationStmt;
  private readonly unsentStmt;
  private readonly takeSendingStmt;
  private readonly doneSendingStmt;
  private readonly messagesOfStmt;
  private readonly addMessageStmt;
  private readonly messageStmt;
  private readonly unshownStmt;
  private readonly shownStmt;
  private readonly prefixStmt;
  private readonly dueStmt;
  private readonly pendingCountStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO questions (id, session_id, project_id, question, options, label, urgency, created_at, expires_at)
       VALUES (@id, @session_id, @project_id, @question, @options, @label, @urgency, @created_at, @expires_at)`,
    );
    this.getStmt = db.prepare<[string], QuestionRow>('SELECT * FROM questions WHERE id = ?');
    this.getWithSessionStmt = db.prepare<[string], QuestionWithSession>(`${WITH_SESSION} WHERE q.id = ?`);
    this.answerStmt = db.prepare(
      `UPDATE questions SET status = 'answered', answer = @answer, answered_via = @via, answered_by = @by,
         closed_at = @now WHERE id = @id AND status = 'pending'`,
    );
    this.closeStmt = db.prepare(
      "UPDATE questions SET status = @status, closed_at = @now WHERE id = @id AND status = 'pending'",
    );
    this.expireStmt = db.prepare<[{ now: number }], { id: string }>(
      `UPDATE questions SET status = 'expired', closed_at = expires_at
       WHERE status = 'pending' AND expires_at IS NOT NULL AND expires_at <= @now RETURNING id`,
    );
    this.pendingCountStmt = db.prepare<[string], { n: number }>(
      "SELECT count(*) AS n FROM questions WHERE session_id = ? AND status = 'pending'",
    );
    this.dueStmt = db.prepare<[{ now: number }], { id: string }>(
      "SELECT id FROM questions WHERE status = 'pending' AND expires_at IS NOT NULL AND expires_at <= @now LIMIT 1",
    );
    this.statusesStmt = db.prepare<[string], Pick<QuestionRow, 'id' | 'status' | 'returned_at'>>(
      'SELECT id, status, returned_at FROM questions WHERE id IN (SELECT value FROM json_each(?))',
    );
    this.bySessionStmt = db.prepare<
      [{ session: string; status: string; limit: number }],
      QuestionWithSession
    >(
      `${WITH_SESSION} WHERE q.session_id = @session AND (@status = 'all' OR q.status = @status)
       ORDER BY q.created_at DESC, q.rowid DESC LIMIT @limit`,
    );
    this.pendingStmt = db.prepare<[{ status: string; limit: number }], QuestionWithSession>(
      `${WITH_SESSION} WHERE (@status = 'all' OR q.status = @status)
       ORDER BY q.created_at DESC, q.rowid DESC LIMIT @limit`,
    );
    this.returnedStmt = db.prepare(
      'UPDATE questions SET returned_at = ? WHERE id = ? AND returned_at IS NULL',
    );
    this.elicitationStmt = db.prepare(
      "UPDATE questions SET elicitation = ? WHERE id = ? AND status = 'pending'",
    );
    // telegram_sent: 0 to send, 1 sent, else the time a process took the sending (taken again
    // after SENDING_MS: that process died or hung).
    this.unsentStmt = db.prepare<[{ stale: number; limit: number }], QuestionWithSession>(
      `${WITH_SESSION} WHERE q.status = 'pending' AND (q.telegram_sent = 0 OR (q.telegram_sent > 1 AND q.telegram_sent < @stale))
       ORDER BY q.created_at LIMIT @limit`,
    );
    this.takeSendingStmt = db.prepare(
      `UPDATE questions SET telegram_sent = @now WHERE id = @id
       AND (telegram_sent = 0 OR (telegram_sent > 1 AND telegram_sent < @stale))`,
    );
    this.doneSendingStmt = db.prepare('UPDATE questions SET telegram_sent = ? WHERE id = ?');
    this.messagesOfStmt = db.prepare<[string], { chat_id: number; message_id: number; closed_shown: number }>(
      'SELECT chat_id, message_id, closed_shown FROM question_messages WHERE question_id = ?',
    );
    this.addMessageStmt = db.prepare(
      'INSERT OR IGNORE INTO question_messages (chat_id, message_id, question_id) VALUES (?, ?, ?)',
    );
    this.messageStmt = db.prepare<[number, number], { question_id: string }>(
      'SELECT question_id FROM question_messages WHERE chat_id = ? AND message_id = ?',
    );
    this.unshownStmt = db.prepare<
      [{ limit: number }],
      { chat_id: number; message_id: number; question_id: string }
    >(
      `SELECT m.chat_id, m.message_id, m.question_id FROM question_messages m JOIN questions q ON q.id = m.question_id
       WHERE m.closed_shown = 0 AND q.status <> 'pending' LIMIT @limit`,
    );
    // Ids are UUIDs (hex digits and dashes): every id starting with the prefix sorts below prefix + '~'.
    this.prefixStmt = db.prepare<[{ prefix: string }], { id: string }>(
      "SELECT id FROM questions WHERE id >= @prefix AND id < @prefix || '~' ORDER BY id LIMIT 5",
    );
    this.shownStmt = db.prepare(
      'UPDATE question_messages SET closed_shown = 1 WHERE chat_id = ? AND message_id = ?',
    );
  }

  insert(row: NewQuestion): void {
    this.insertStmt.run(row);
  }

  get(id: string): QuestionRow | undefined {
    return this.getStmt.get(id);
  }

  getWithSession(id: string): QuestionWithSession | undefined {
    return this.getWithSessionStmt.get(id);
  }

  /** Records the answer if the question is still pending; false when another answer or a close came first. */
  answer(id: string, answer: string, via: AnswerChannel, by: string | null, now: number): boolean {
    return this.answerStmt.run({ id, answer, via, by, now }).changes > 0;
  }

  /** Closes a pending question without an answer; false when it was no longer pending. */
  close(id: string, status: 'cancelled' | 'expired' | 'abandoned', now: number): boolean {
    return this.closeStmt.run({ id, status, now }).changes > 0;
  }

  pendingOf(sessionId: string): number {
    return this.pendingCountStmt.get(sessionId)!.n;
  }

  /** Whether any pending question is past its time (a read: no write lock for nothing). */
  anyDue(now: number): boolean {
    return this.dueStmt.get({ now }) !== undefined;
  }

  /** Marks pending questions past their time as expired; returns their ids. */
  expireDue(now: number): string[] {
    return this.expireStmt.all({ now }).map((r) => r.id);
  }

  statuses(ids: string[]): Array<Pick<QuestionRow, 'id' | 'status' | 'returned_at'>> {
    return this.statusesStmt.all(JSON.stringify(ids));
  }

  /** A session's questions, newest first. */
  ofSession(sessionId: string, status: QuestionStatus | 'all', limit: number): QuestionWithSession[] {
    return this.bySessionStmt.all({ session: sessionId, status, limit });
  }

  /** Every session's questions, newest first. */
  all(status: QuestionStatus | 'all', limit: number): QuestionWithSession[] {
    return this.pendingStmt.all({ status, limit });
  }

  /** Notes that a tool result handed the asker this answer. */
  markReturned(id: string, now: number): void {
    this.returnedStmt.run(now, id);
  }

  recordElicitation(id: string, outcome: string): void {
    this.elicitationStmt.run(outcome, id);
  }

  /** Pending questions not yet sent to Telegram (nor being sent), oldest first. */
  unsent(now: number, limit: number): QuestionWithSession[] {
    return this.unsentStmt.all({ stale: now - SENDING_MS, limit });
  }

  /** Takes the sending of a question; false when it was sent or another process is sending it. */
  takeSending(id: string, now: number): boolean {
    return this.takeSendingStmt.run({ id, now, stale: now - SENDING_MS }).changes > 0;
  }

  /** The sending is over: sent, or to be tried again. */
  doneSending(id: string, sent: boolean): void {
    this.doneSendingStmt.run(sent ? 1 : 0, id);
  }

  addMessage(questionId: string, chatId: number, messageId: number): void {
    this.addMessageStmt.run(chatId, messageId, questionId);
  }

  messagesOf(questionId: string): Array<{ chat_id: number; message_id: number; closed_shown: number }> {
    return this.messagesOfStmt.all(questionId);
  }

  /** The question a Telegram message shows or asks about. */
  questionOfMessage(chatId: number, messageId: number): string | null {
    return this.messageStmt.get(chatId, messageId)?.question_id ?? null;
  }

  /** Messages of closed questions not yet edited to say how they closed. */
  unshownClosed(limit: number): Array<{ chat_id: number; message_id: number; question_id: string }> {
    return this.unshownStmt.all({ limit });
  }

  /** Ids that start with `prefix` (at most 5). */
  idsStartingWith(prefix: string): string[] {
    return this.prefixStmt.all({ prefix }).map((r) => r.id);
  }

  markShown(chatId: number, messageId: number): void {
    this.shownStmt.run(chatId, messageId);
  }
}
