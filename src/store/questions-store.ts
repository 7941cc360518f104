import type { AnswerChannel, QuestionStatus, Urgency } from '../core/questions.js';
import { inList, type Sql } from './sql.js';

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

/** Questions to a person and the Telegram messages that show them, on either backend. */
export class QuestionsStore {
  constructor(private readonly sql: Sql) {}

  async insert(row: NewQuestion): Promise<void> {
    await this.sql.run(
      `INSERT INTO questions (id, session_id, project_id, question, options, label, urgency, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        row.id,
        row.session_id,
        row.project_id,
        row.question,
        row.options,
        row.label,
        row.urgency,
        row.created_at,
        row.expires_at,
      ],
    );
  }

  get(id: string): Promise<QuestionRow | undefined> {
    return this.sql.get<QuestionRow>('SELECT * FROM questions WHERE id = ?', [id]);
  }

  getWithSession(id: string): Promise<QuestionWithSession | undefined> {
    return this.sql.get<QuestionWithSession>(`${WITH_SESSION} WHERE q.id = ?`, [id]);
  }

  /** Records the answer if the question is still pending; false when another answer or a close came first. */
  async answer(
    id: string,
    answer: string,
    via: AnswerChannel,
    by: string | null,
    now: number,
  ): Promise<boolean> {
    const { changes } = await this.sql.run(
      `UPDATE questions SET status = 'answered', answer = ?, answered_via = ?, answered_by = ?,
         closed_at = ? WHERE id = ? AND status = 'pending'`,
      [answer, via, by, now, id],
    );
    return changes > 0;
  }

  /** Closes a pending question without an answer; false when it was no longer pending. */
  async close(id: string, status: 'cancelled' | 'expired' | 'abandoned', now: number): Promise<boolean> {
    const { changes } = await this.sql.run(
      "UPDATE questions SET status = ?, closed_at = ? WHERE id = ? AND status = 'pending'",
      [status, now, id],
    );
    return changes > 0;
  }

  async pendingOf(sessionId: string): Promise<number> {
    const row = await this.sql.get<{ n: number }>(
      "SELECT count(*) AS n FROM questions WHERE session_id = ? AND status = 'pending'",
      [sessionId],
    );
    return row!.n;
  }

  /** Whether any pending question is past its time (a read: no write lock for nothing). */
  async anyDue(now: number): Promise<boolean> {
    const row = await this.sql.get<{ id: string }>(
      "SELECT id FROM questions WHERE status = 'pending' AND expires_at IS NOT NULL AND expires_at <= ? LIMIT 1",
      [now],
    );
    return row !== undefined;
  }

  /** Marks pending questions past their time as expired; returns their ids. */
  async expireDue(now: number): Promise<string[]> {
    const rows = await this.sql.all<{ id: string }>(
      `UPDATE questions SET status = 'expired', closed_at = expires_at
       WHERE status = 'pending' AND expires_at IS NOT NULL AND expires_at <= ? RETURNING id`,
      [now],
    );
    return rows.map((r) => r.id);
  }

  statuses(ids: string[]): Promise<Array<Pick<QuestionRow, 'id' | 'status' | 'returned_at'>>> {
    const list = inList(this.sql.dialect, ids);
    return this.sql.all<Pick<QuestionRow, 'id' | 'status' | 'returned_at'>>(
      `SELECT id, status, returned_at FROM questions WHERE id ${list.text}`,
      [list.param],
    );
  }

  /** A session's questions, newest first. */
  ofSession(
    sessionId: string,
    status: QuestionStatus | 'all',
    limit: number,
  ): Promise<QuestionWithSession[]> {
    return this.sql.all<QuestionWithSession>(
      `${WITH_SESSION} WHERE q.session_id = ? AND (? = 'all' OR q.status = ?)
       ORDER BY q.created_at DESC, q.rowid DESC LIMIT ?`,
      [sessionId, status, status, limit],
    );
  }

  /** Every session's questions, newest first. */
  all(status: QuestionStatus | 'all', limit: number): Promise<QuestionWithSession[]> {
    return this.sql.all<QuestionWithSession>(
      `${WITH_SESSION} WHERE (? = 'all' OR q.status = ?)
       ORDER BY q.created_at DESC, q.rowid DESC LIMIT ?`,
      [status, status, limit],
    );
  }

  /** Notes that a tool result handed the asker this answer. */
  async markReturned(id: string, now: number): Promise<void> {
    await this.sql.run('UPDATE questions SET returned_at = ? WHERE id = ? AND returned_at IS NULL', [
      now,
      id,
    ]);
  }

  async recordElicitation(id: string, outcome: string): Promise<void> {
    await this.sql.run("UPDATE questions SET elicitation = ? WHERE id = ? AND status = 'pending'", [
      outcome,
      id,
    ]);
  }

  // telegram_sent: 0 to send, 1 sent, else the time a process took the sending (taken again
  // after SENDING_MS: that process died or hung).

  /** Pending questions not yet sent to Telegram (nor being sent), oldest first. */
  unsent(now: number, limit: number): Promise<QuestionWithSession[]> {
    return this.sql.all<QuestionWithSession>(
      `${WITH_SESSION} WHERE q.status = 'pending' AND (q.telegram_sent = 0 OR (q.telegram_sent > 1 AND q.telegram_sent < ?))
       ORDER BY q.created_at LIMIT ?`,
      [now - SENDING_MS, limit],
    );
  }

  /** Takes the sending of a question; false when it was sent or another process is sending it. */
  async takeSending(id: string, now: number): Promise<boolean> {
    const { changes } = await this.sql.run(
      `UPDATE questions SET telegram_sent = ? WHERE id = ?
       AND (telegram_sent = 0 OR (telegram_sent > 1 AND telegram_sent < ?))`,
      [now, id, now - SENDING_MS],
    );
    return changes > 0;
  }

  /** The sending is over: sent, or to be tried again. */
  async doneSending(id: string, sent: boolean): Promise<void> {
    await this.sql.run('UPDATE questions SET telegram_sent = ? WHERE id = ?', [sent ? 1 : 0, id]);
  }

  async addMessage(questionId: string, chatId: number, messageId: number): Promise<void> {
    await this.sql.run(
      'INSERT INTO question_messages (chat_id, message_id, question_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
      [chatId, messageId, questionId],
    );
  }

  messagesOf(
    questionId: string,
  ): Promise<Array<{ chat_id: number; message_id: number; closed_shown: number }>> {
    return this.sql.all<{ chat_id: number; message_id: number; closed_shown: number }>(
      'SELECT chat_id, message_id, closed_shown FROM question_messages WHERE question_id = ?',
      [questionId],
    );
  }

  /** The question a Telegram message shows or asks about. */
  async questionOfMessage(chatId: number, messageId: number): Promise<string | null> {
    const row = await this.sql.get<{ question_id: string }>(
      'SELECT question_id FROM question_messages WHERE chat_id = ? AND message_id = ?',
      [chatId, messageId],
    );
    return row?.question_id ?? null;
  }

  /** Messages of closed questions not yet edited to say how they closed. */
  unshownClosed(limit: number): Promise<Array<{ chat_id: number; message_id: number; question_id: string }>> {
    return this.sql.all<{ chat_id: number; message_id: number; question_id: string }>(
      `SELECT m.chat_id, m.message_id, m.question_id FROM question_messages m JOIN questions q ON q.id = m.question_id
       WHERE m.closed_shown = 0 AND q.status <> 'pending' LIMIT ?`,
      [limit],
    );
  }

  async markShown(chatId: number, messageId: number): Promise<void> {
    await this.sql.run('UPDATE question_messages SET closed_shown = 1 WHERE chat_id = ? AND message_id = ?', [
      chatId,
      messageId,
    ]);
  }
}
