import type { Sql } from './sql.js';

/** How a message reached its recipient's agent. */
export type DeliveredVia = 'tool_response' | 'prompt' | 'turn_end' | 'wake' | 'wait' | 'list';

export interface MessageRow {
  id: string;
  project_id: string;
  from_session_id: string;
  from_name: string;
  to_session_id: string | null;
  reply_to: string | null;
  content: string;
  created_at: number;
}

/** A message delivered to one recipient's agent. */
export interface ReceiptRow {
  message_id: string;
  session_id: string;
  session_name: string;
  read_at: number;
  via: DeliveredVia | null;
  acted_at: number | null;
}

export interface InboxRow extends MessageRow {
  read_at: number | null;
}

/** A message's columns (on PostgreSQL the table also has its `rowid`, which rows leave out). */
const COLUMNS = 'id, project_id, from_session_id, from_name, to_session_id, reply_to, content, created_at';
const M_COLUMNS =
  'm.id, m.project_id, m.from_session_id, m.from_name, m.to_session_id, m.reply_to, m.content, m.created_at';

/**
 * How many messages a session has not read, as a scalar subquery: two indexed halves (direct,
 * broadcast) rather than one OR that would scan the table. Its parameters: `unreadParams`.
 */
const UNREAD_COUNT = `(SELECT COUNT(*) FROM (
     SELECT id FROM messages WHERE to_session_id = ?
     UNION ALL
     SELECT id FROM messages WHERE to_session_id IS NULL AND project_id = ? AND from_session_id <> ? AND created_at >= ?
   ) m
   WHERE NOT EXISTS (SELECT 1 FROM message_reads r WHERE r.message_id = m.id AND r.session_id = ?))`;

const UNREAD_PENDING_UNACTED = `SELECT ${UNREAD_COUNT} AS n,
   EXISTS (SELECT 1 FROM notifications WHERE session_id = ? AND state = 'pending') AS pending,
   EXISTS (SELECT 1 FROM message_reads WHERE session_id = ? AND acted_at IS NULL) AS unacted`;

const unreadParams = (session: { id: string; project_id: string; created_at: number }) => [
  session.id,
  session.project_id,
  session.id,
  session.created_at,
  session.id,
];

export class MessagesStore {
  constructor(private readonly sql: Sql) {}

  async insert(row: MessageRow): Promise<void> {
    await this.sql.run(`INSERT INTO messages (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, [
      row.id,
      row.project_id,
      row.from_session_id,
      row.from_name,
      row.to_session_id,
      row.reply_to,
      row.content,
      row.created_at,
    ]);
  }

  get(id: string): Promise<MessageRow | undefined> {
    return this.sql.get<MessageRow>(`SELECT ${COLUMNS} FROM messages WHERE id = ?`, [id]);
  }

  /** Direct messages to the session, and broadcasts in its project sent by others during its life. */
  inboxOf(
    session: { id: string; project_id: string; created_at: number },
    unreadOnly: boolean,
    limit: number,
  ): Promise<InboxRow[]> {
    return this.sql.all<InboxRow>(
      `SELECT ${M_COLUMNS}, r.read_at FROM messages m
       LEFT JOIN message_reads r ON r.message_id = m.id AND r.session_id = ?
       WHERE ((m.to_session_id = ?)
           OR (m.to_session_id IS NULL AND m.project_id = ? AND m.from_session_id <> ? AND m.created_at >= ?))
         AND (? = 0 OR r.read_at IS NULL)
       ORDER BY m.created_at, m.rowid
       LIMIT ?`,
      [session.id, session.id, session.project_id, session.id, session.created_at, unreadOnly ? 1 : 0, limit],
    );
  }

  /** The messages a session sent, newest first. */
  sentBy(sessionId: string, limit: number): Promise<MessageRow[]> {
    return this.sql.all<MessageRow>(
      `SELECT ${M_COLUMNS} FROM messages m WHERE m.from_session_id = ? ORDER BY m.created_at DESC, m.id DESC LIMIT ?`,
      [sessionId, limit],
    );
  }

  /** Who was delivered these messages, when, how, and when each next acted after it. */
  receipts(messageIds: string[]): Promise<ReceiptRow[]> {
    if (messageIds.length === 0) return Promise.resolve([]);
    return this.sql.all<ReceiptRow>(
      `SELECT r.message_id, r.session_id, COALESCE(s.name, '') AS session_name, r.read_at, r.via, r.acted_at
       FROM message_reads r LEFT JOIN sessions s ON s.id = r.session_id
       WHERE r.message_id IN (${messageIds.map(() => '?').join(', ')})
       ORDER BY r.read_at`,
      messageIds,
    );
  }

  /** Messages a session sent, and messages it has read. */
  async counts(sessionId: string): Promise<{ sent: number; read: number }> {
    const sent = await this.sql.get<{ n: number }>(
      'SELECT COUNT(*) AS n FROM messages WHERE from_session_id = ?',
      [sessionId],
    );
    const read = await this.sql.get<{ n: number }>(
      'SELECT COUNT(*) AS n FROM message_reads WHERE session_id = ?',
      [sessionId],
    );
    return { sent: sent!.n, read: read!.n };
  }

  async unreadCount(session: { id: string; project_id: string; created_at: number }): Promise<number> {
    const row = await this.sql.get<{ n: number }>(`SELECT ${UNREAD_COUNT} AS n`, unreadParams(session));
    return Number(row!.n);
  }

  /**
   * How many messages the session has unread, whether it has a notification pending, and whether
   * it was delivered messages it has not acted after: what every response tells it and does
   * (`mcp/server.ts` envelope), in one statement.
   */
  async unreadAndPending(session: {
    id: string;
    project_id: string;
    created_at: number;
  }): Promise<{ unread: number; pending: boolean; unacted: boolean }> {
    const row = await this.sql.get<{ n: number; pending: number | boolean; unacted: number | boolean }>(
      UNREAD_PENDING_UNACTED,
      [...unreadParams(session), session.id, session.id],
    );
    return {
      unread: Number(row!.n),
      pending: Boolean(Number(row!.pending)),
      unacted: Boolean(Number(row!.unacted)),
    };
  }

  /**
   * Marks messages read by a session, now, delivered to its agent `via` (tool_response, prompt,
   * turn_end, wake, wait, list): the sender's receipt. Read before, a message keeps its receipt.
   */
  async markRead(ids: string[], sessionId: string, now: number, via: DeliveredVia): Promise<void> {
    for (const id of ids)
      await this.sql.run(
        'INSERT INTO message_reads (message_id, session_id, read_at, via) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
        [id, sessionId, now, via],
      );
  }

  /** Whether the session was delivered messages it has not acted after yet (a read by index). */
  async deliveredUnacted(sessionId: string): Promise<boolean> {
    const row = await this.sql.get<{ one: number }>(
      'SELECT 1 AS one FROM message_reads WHERE session_id = ? AND acted_at IS NULL LIMIT 1',
      [sessionId],
    );
    return row !== undefined;
  }

  /** The session acted (a tool call, a hook's tool use or prompt) after what it was delivered before `now`. */
  async acted(sessionId: string, now: number): Promise<void> {
    await this.sql.run(
      'UPDATE message_reads SET acted_at = ? WHERE session_id = ? AND acted_at IS NULL AND read_at < ?',
      [now, sessionId, now],
    );
  }

  async purgeOlderThan(before: number): Promise<number> {
    const { changes } = await this.sql.run('DELETE FROM messages WHERE created_at < ?', [before]);
    return changes;
  }
}
