import type { Sql } from './sql.js';

export interface EventRow {
  id: number;
  at: number;
  project_id: string | null;
  kind: string;
  subject: string;
  op: string;
}

/**
 * The oldest id kept, or else the id the next event will get: SQLite's AUTOINCREMENT counter is in
 * sqlite_sequence, PostgreSQL's identity column has a sequence of its own.
 */
const OLDEST = {
  sqlite:
    "SELECT coalesce((SELECT min(id) FROM events), (SELECT seq + 1 FROM sqlite_sequence WHERE name = 'events'), 1) AS id",
  postgresql: `SELECT coalesce((SELECT min(id) FROM events),
     pg_sequence_last_value(CAST(pg_get_serial_sequence('events', 'id') AS regclass)) + 1, 1) AS id`,
} as const;

/** The log of changes the triggers of migration 11 keep, read in order by id. */
export class EventsStore {
  constructor(private readonly sql: Sql) {}

  /** Up to `limit` events after `id`, oldest first. */
  after(id: number, limit: number): Promise<EventRow[]> {
    return this.sql.all<EventRow>('SELECT * FROM events WHERE id > ? ORDER BY id LIMIT ?', [id, limit]);
  }

  async lastId(): Promise<number> {
    const row = await this.sql.get<{ id: number }>('SELECT coalesce(max(id), 0) AS id FROM events');
    return row!.id;
  }

  /** The oldest id kept; past the last one when none is. */
  async oldestId(): Promise<number> {
    const row = await this.sql.get<{ id: number }>(OLDEST[this.sql.dialect]);
    return row!.id;
  }

  /** Drops events older than `before`, keeping the last `keep` whatever their age. */
  async purge(before: number, keep: number): Promise<number> {
    const { changes } = await this.sql.run(
      'DELETE FROM events WHERE at < ? AND id < (SELECT max(id) FROM events) - ?',
      [before, keep],
    );
    return changes;
  }
}
