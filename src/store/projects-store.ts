import { newId } from '../core/ids.js';
import type { Db } from './database.js';

export interface ProjectRow {
  id: string;
  root: string;
  kind: 'git' | 'dir' | 'named';
  name: string | null;
  description: string | null;
  status: 'active' | 'completed' | 'archived';
  /** JSON object: per-project settings (e.g. of the review workflow). */
  settings: string;
  created_at: number;
  updated_at: number;
}

export class ProjectsStore {
  private readonly byRoot;
  private readonly insertStmt;
  private readonly byId;
  private readonly all;
  private readonly insertNamed;
  private readonly updateStmt;
  private readonly byStatus;

  constructor(db: Db) {
    this.byRoot = db.prepare<[string], ProjectRow>('SELECT * FROM projects WHERE root = ?');
    this.byId = db.prepare<[string], ProjectRow>('SELECT * FROM projects WHERE id = ?');
    this.insertStmt = db.prepare(
      'INSERT OR IGNORE INTO projects (id, root, kind, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
    );
    this.all = db.prepare<[], ProjectRow>('SELECT * FROM projects ORDER BY root');
    this.insertNamed = db.prepare(
      "INSERT INTO projects (id, root, kind, name, description, created_at, updated_at) VALUES (@id, @root, 'named', @name, @description, @now, @now)",
    );
    this.updateStmt = db.prepare(
      'UPDATE projects SET name = @name, description = @description, status = @status, settings = @settings, updated_at = @now WHERE id = @id',
    );
    this.byStatus = db.prepare<[{ status: string | null }], ProjectRow>(
      'SELECT * FROM projects WHERE (@status IS NULL OR status = @status) ORDER BY created_at',
    );
  }

  /** The project for a root key, created on first sight. */
  ensure(root: string, kind: 'git' | 'dir', now: number): ProjectRow {
    const existing = this.byRoot.get(root);
    if (existing) return existing;
    const id = newId().replace(/-/g, '').slice(0, 16);
    this.insertStmt.run(id, root, kind, now, now);
    return this.byRoot.get(root)!;
  }

  /** A project created by id, for work outside a repository. */
  createNamed(p: { id: string; name: string; description: string | null }, now: number): ProjectRow {
    this.insertNamed.run({ ...p, root: `project:${p.id}`, now });
    return this.byId.get(p.id)!;
  }

  update(p: Pick<ProjectRow, 'id' | 'name' | 'description' | 'status' | 'settings'>, now: number): void {
    this.updateStmt.run({ ...p, now });
  }

  listByStatus(status: ProjectRow['status'] | null): ProjectRow[] {
    return this.byStatus.all({ status });
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
