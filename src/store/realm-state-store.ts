import type { Sql } from './sql.js';

const UPSERT =
  'INSERT INTO realm_state (realm, key, value) VALUES (?, ?, ?) ON CONFLICT (realm, key) DO UPDATE SET value = excluded.value';

export class RealmStateStore {
  constructor(private readonly sql: Sql) {}

  /** The recorded snapshot of a realm, or null the first time it is seen. */
  async snapshot(realm: string): Promise<Map<string, string> | null> {
    const rows = await this.sql.all<{ key: string; value: string }>(
      'SELECT key, value FROM realm_state WHERE realm = ?',
      [realm],
    );
    return rows.length === 0 ? null : new Map(rows.map((r) => [r.key, r.value]));
  }

  /** Replaces the recorded snapshot (an empty realm is recorded as one marker row). */
  async record(
    realm: string,
    snapshot: Map<string, string>,
    previous: Map<string, string> | null,
  ): Promise<void> {
    for (const key of previous?.keys() ?? [])
      if (!snapshot.has(key))
        await this.sql.run('DELETE FROM realm_state WHERE realm = ? AND key = ?', [realm, key]);
    for (const [key, value] of snapshot) await this.sql.run(UPSERT, [realm, key, value]);
    if (snapshot.size === 0) await this.sql.run(UPSERT, [realm, 'seen', '1']);
  }
}
