import type { Db } from './database.js';

export interface EventRow {
  id: number;
  at: number;
  project_id: string | null;
  kind: string;
  subject: string;
  op: string;
}

/** The log of changes the triggers of migration 11 keep, read in order by id. */
export class EventsStore {
  private readonly afterStmt;
  private readonly lastStmt;
  private readonly purgeStmt;
  private readonly oldestStmt;

  constructor(db: Db) {
    this.afterStmt = db.prepare<[number, number], EventRow>(
      'SELECT * FROM events WHERE id > ? ORDER BY id LIMIT ?',
    );
    this.lastStmt = db.prepare<[], { id: number }>('SELECT coalesce(max(id), 0) AS id FROM events').pluck();
    this.oldestStmt = db
      .prepare<[], { id: number }>(
        "SELECT coalesce((SELECT min(id) FROM events), (SELECT seq + 1 FROM sqlite_sequence WHERE name = 'events'), 1) AS id",
      )
      .pluck();
    this.purgeStmt = db.prepare('DELETE FROM events WHERE at < ? AND id < (SELECT max(id) FROM events) - ?');
  }

  /** Up to `limit` events after `id`, oldest first. */
  after(id: number, limit: number): EventRow[] {
    return this.afterStmt.all(id, limit);
  }

  lastId(): number {
    return this.lastStmt.get() as unknown as number;
  }

  /** The oldest id kept; past the last one when none is. */
  oldestId(): number {
    return this.oldestStmt.get() as unknown as number;
  }

  /** Drops events older than `before`, keeping the last `keep` whatever their age. */
  purge(before: number, keep: number): number {
    return this.purgeStmt.run(before, keep).changes;
  }
}
