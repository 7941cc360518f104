import type { Db } from './database.js';

export interface RealmRow {
  root: string;
  name: string;
  registered_at: number;
}

/** The realm folders registered on this machine (see migration 7). */
export class RealmsStore {
  private readonly insertStmt;
  private readonly deleteStmt;
  private readonly getStmt;
  private readonly listStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      'INSERT INTO realms (root, name, registered_at) VALUES (?, ?, ?) ON CONFLICT (root) DO UPDATE SET name = excluded.name',
    );
    this.deleteStmt = db.prepare('DELETE FROM realms WHERE root = ?');
    this.getStmt = db.prepare<[string], RealmRow>('SELECT * FROM realms WHERE root = ?');
    this.listStmt = db.prepare<[], RealmRow>('SELECT * FROM realms ORDER BY name, root');
  }

  register(root: string, name: string, now: number): void {
    this.insertStmt.run(root, name, now);
  }

  /** False when it was not registered. */
  unregister(root: string): boolean {
    return this.deleteStmt.run(root).changes > 0;
  }

  get(root: string): RealmRow | undefined {
    return this.getStmt.get(root);
  }

  list(): RealmRow[] {
    return this.listStmt.all();
  }
}
