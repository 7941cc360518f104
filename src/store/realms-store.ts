import type { Sql } from './sql.js';

export interface RealmRow {
  root: string;
  name: string;
  registered_at: number;
}

/** The realm folders registered on this machine (see migration 7). */
export class RealmsStore {
  constructor(private readonly sql: Sql) {}

  async register(root: string, name: string, now: number): Promise<void> {
    await this.sql.run(
      'INSERT INTO realms (root, name, registered_at) VALUES (?, ?, ?) ON CONFLICT (root) DO UPDATE SET name = excluded.name',
      [root, name, now],
    );
  }

  /** False when it was not registered. */
  async unregister(root: string): Promise<boolean> {
    const { changes } = await this.sql.run('DELETE FROM realms WHERE root = ?', [root]);
    return changes > 0;
  }

  get(root: string): Promise<RealmRow | undefined> {
    return this.sql.get<RealmRow>('SELECT * FROM realms WHERE root = ?', [root]);
  }

  list(): Promise<RealmRow[]> {
    return this.sql.all<RealmRow>('SELECT * FROM realms ORDER BY name, root');
  }
}
