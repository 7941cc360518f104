import type { Db } from './database.js';

export class RealmStateStore {
  private readonly getAll;
  private readonly upsert;
  private readonly remove;

  constructor(db: Db) {
    this.getAll = db.prepare<[string], { key: string; value: string }>(
      'SELECT key, value FROM realm_state WHERE realm = ?',
    );
    this.upsert = db.prepare(
      'INSERT INTO realm_state (realm, key, value) VALUES (?, ?, ?) ON CONFLICT (realm, key) DO UPDATE SET value = excluded.value',
    );
    this.remove = db.prepare('DELETE FROM realm_state WHERE realm = ? AND key = ?');
  }

  /** The recorded snapshot of a realm, or null the first time it is seen. */
  snapshot(realm: string): Map<string, string> | null {
    const rows = this.getAll.all(realm);
    return rows.length === 0 ? null : new Map(rows.map((r) => [r.key, r.value]));
  }

  /** Replaces the recorded snapshot (an empty realm is recorded as one marker row). */
  record(realm: string, snapshot: Map<string, string>, previous: Map<string, string> | null): void {
    for (const key of previous?.keys() ?? []) if (!snapshot.has(key)) this.remove.run(realm, key);
    for (const [key, value] of snapshot) this.upsert.run(realm, key, value);
    if (snapshot.size === 0) this.upsert.run(realm, 'seen', '1');
  }
}
