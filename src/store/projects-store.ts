import { newId } from '../core/ids.js';
import type { Db } from './database.js';

export interface ProjectRow {
  id: string;
  root: string;
  kind: 'git' | 'dir';
  created_at: number;
}

export class ProjectsStore {
  private readonly byRoot;
  private readonly insertStmt;
  private readonly byId;
  private readonly all;

  constructor(db: Db) {
    this.byRoot = db.prepare<[string], ProjectRow>('SELECT * FROM projects WHERE root = ?');
    this.byId = db.prepare<[string], ProjectRow>('SELECT * FROM projects WHERE id = ?');
    this.insertStmt = db.prepare(
      'INSERT OR IGNORE INTO projects (id, root, kind, created_at) VALUES (?, ?, ?, ?)',
    );
    this.all = db.prepare<[], ProjectRow>('SELECT * FROM projects ORDER BY root');
  }

  /** The project for a root key, created on first sight. */
  ensure(root: string, kind: 'git' | 'dir', now: number): ProjectRow {
    const existing = this.byRoot.get(root);
    if (existing) return existing;
    const id = newId().replace(/-/g, '').slice(0, 16);
    this.insertStmt.run(id, root, kind, now);
    return this.byRoot.get(root)!;
  }

  findByRoot(root: string): ProjectRow | undefined {
    return this.byRoot.get(root);
  }

  get(id: string): ProjectRow | undefined {
    return this.byId.get(id);
  }

  list(): ProjectRow[] {
    return this.all.all();
  }
}
