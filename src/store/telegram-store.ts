import type { Sql } from './sql.js';

export interface PollerRow {
  bot: string;
  holder: string | null;
  holder_pid: number | null;
  holder_host: string | null;
  lease_until: number;
  update_offset: number;
}

export interface DraftRow {
  chat_id: number;
  message_id: number;
  from_id: number;
  text: string;
  created_at: number;
}

/** The Telegram poller's lease and update offset per bot, and free text waiting for its question. */
export class TelegramStore {
  constructor(private readonly sql: Sql) {}

  poller(bot: string): Promise<PollerRow | undefined> {
    return this.sql.get<PollerRow>('SELECT * FROM telegram_pollers WHERE bot = ?', [bot]);
  }

  /** Makes `holder` the bot's poller until `until` (the caller has decided, in a write transaction, that it may). */
  async take(bot: string, holder: string, pid: number, host: string, until: number): Promise<void> {
    await this.sql.run(
      `INSERT INTO telegram_pollers (bot, holder, holder_pid, holder_host, lease_until) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (bot) DO UPDATE SET holder = excluded.holder, holder_pid = excluded.holder_pid,
         holder_host = excluded.holder_host, lease_until = excluded.lease_until`,
      [bot, holder, pid, host, until],
    );
  }

  /** Extends the holder's lease; false when it is no longer the holder. */
  async renew(bot: string, holder: string, until: number): Promise<boolean> {
    const { changes } = await this.sql.run(
      'UPDATE telegram_pollers SET lease_until = ? WHERE bot = ? AND holder = ?',
      [until, bot, holder],
    );
    return changes > 0;
  }

  /** Moves the next update to ask for forward; false when `holder` no longer polls. */
  async advance(bot: string, holder: string, offset: number): Promise<boolean> {
    const { changes } = await this.sql.run(
      `UPDATE telegram_pollers SET update_offset = CASE WHEN update_offset > ? THEN update_offset ELSE ? END
       WHERE bot = ? AND holder = ?`,
      [offset, offset, bot, holder],
    );
    return changes > 0;
  }

  /** Gives the lease up at once, so that another process takes over without waiting for it to run out. */
  async release(bot: string, holder: string): Promise<void> {
    await this.sql.run('UPDATE telegram_pollers SET lease_until = 0 WHERE bot = ? AND holder = ?', [
      bot,
      holder,
    ]);
  }

  async addDraft(row: DraftRow): Promise<void> {
    await this.sql.run(
      `INSERT INTO telegram_drafts (chat_id, message_id, from_id, text, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (chat_id, message_id) DO UPDATE SET from_id = excluded.from_id, text = excluded.text,
         created_at = excluded.created_at`,
      [row.chat_id, row.message_id, row.from_id, row.text, row.created_at],
    );
  }

  draft(chatId: number, messageId: number): Promise<DraftRow | undefined> {
    return this.sql.get<DraftRow>('SELECT * FROM telegram_drafts WHERE chat_id = ? AND message_id = ?', [
      chatId,
      messageId,
    ]);
  }

  async dropDraft(chatId: number, messageId: number): Promise<void> {
    await this.sql.run('DELETE FROM telegram_drafts WHERE chat_id = ? AND message_id = ?', [
      chatId,
      messageId,
    ]);
  }

  async purgeDrafts(before: number): Promise<number> {
    return (await this.sql.run('DELETE FROM telegram_drafts WHERE created_at < ?', [before])).changes;
  }
}
