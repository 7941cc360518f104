import type { Db } from './database.js';

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
  private readonly getStmt;
  private readonly upsertStmt;
  private readonly renewStmt;
  private readonly offsetStmt;
  private readonly releaseStmt;
  private readonly addDraftStmt;
  private readonly draftStmt;
  private readonly dropDraftStmt;
  private readonly purgeDraftsStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string], PollerRow>('SELECT * FROM telegram_pollers WHERE bot = ?');
    this.upsertStmt = db.prepare(
      `INSERT INTO telegram_pollers (bot, holder, holder_pid, holder_host, lease_until) VALUES (@bot, @holder, @pid, @host, @until)
       ON CONFLICT (bot) DO UPDATE SET holder = @holder, holder_pid = @pid, holder_host = @host, lease_until = @until`,
    );
    this.renewStmt = db.prepare(
      'UPDATE telegram_pollers SET lease_until = @until WHERE bot = @bot AND holder = @holder',
    );
    this.offsetStmt = db.prepare(
      'UPDATE telegram_pollers SET update_offset = max(update_offset, @offset) WHERE bot = @bot AND holder = @holder',
    );
    this.releaseStmt = db.prepare(
      'UPDATE telegram_pollers SET lease_until = 0 WHERE bot = @bot AND holder = @holder',
    );
    this.addDraftStmt = db.prepare(
      `INSERT OR REPLACE INTO telegram_drafts (chat_id, message_id, from_id, text, created_at)
       VALUES (@chat_id, @message_id, @from_id, @text, @created_at)`,
    );
    this.draftStmt = db.prepare<[number, number], DraftRow>(
      'SELECT * FROM telegram_drafts WHERE chat_id = ? AND message_id = ?',
    );
    this.dropDraftStmt = db.prepare('DELETE FROM telegram_drafts WHERE chat_id = ? AND message_id = ?');
    this.purgeDraftsStmt = db.prepare('DELETE FROM telegram_drafts WHERE created_at < ?');
  }

  poller(bot: string): PollerRow | undefined {
    return this.getStmt.get(bot);
  }

  /** Makes `holder` the bot's poller until `until` (the caller has decided, in a write transaction, that it may). */
  take(bot: string, holder: string, pid: number, host: string, until: number): void {
    this.upsertStmt.run({ bot, holder, pid, host, until });
  }

  /** Extends the holder's lease; false when it is no longer the holder. */
  renew(bot: string, holder: string, until: number): boolean {
    return this.renewStmt.run({ bot, holder, until }).changes > 0;
  }

  /** Moves the next update to ask for forward; false when `holder` no longer polls. */
  advance(bot: string, holder: string, offset: number): boolean {
    return this.offsetStmt.run({ bot, holder, offset }).changes > 0;
  }

  /** Gives the lease up at once, so that another process takes over without waiting for it to run out. */
  release(bot: string, holder: string): void {
    this.releaseStmt.run({ bot, holder });
  }

  addDraft(row: DraftRow): void {
    this.addDraftStmt.run(row);
  }

  draft(chatId: number, messageId: number): DraftRow | undefined {
    return this.draftStmt.get(chatId, messageId);
  }

  dropDraft(chatId: number, messageId: number): void {
    this.dropDraftStmt.run(chatId, messageId);
  }

  purgeDrafts(before: number): number {
    return this.purgeDraftsStmt.run(before).changes;
  }
}
