import { newId } from '../core/ids.js';
import type { Sql } from './sql.js';

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

const BY_ROOT = 'SELECT * FROM projects WHERE root = ?';
const BY_ID = 'SELECT * FROM projects WHERE id = ?';

export class ProjectsStore {
  constructor(private readonly sql: Sql) {}

  /** The project for a root key, created on first sight. */
  async ensure(root: string, kind: 'git' | 'dir', now: number): Promise<ProjectRow> {
    const existing = await this.sql.get<ProjectRow>(BY_ROOT, [root]);
    if (existing) return existing;
    const id = newId().replace(/-/g, '').slice(0, 16);
    await this.sql.run(
      'INSERT INTO projects (id, root, kind, created_at, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
      [id, root, kind, now, now],
    );
    return (await this.sql.get<ProjectRow>(BY_ROOT, [root]))!;
  }

  /** A project created by id, for work outside a repository. */
  async createNamed(
    p: { id: string; name: string; description: string | null },
    now: number,
  ): Promise<ProjectRow> {
    await this.sql.run(
      "INSERT INTO projects (id, root, kind, name, description, created_at, updated_at) VALUES (?, ?, 'named', ?, ?, ?, ?)",
      [p.id, `project:${p.id}`, p.name, p.description, now, now],
    );
    return (await this.sql.get<ProjectRow>(BY_ID, [p.id]))!;
  }

  async update(
    p: Pick<ProjectRow, 'id' | 'name' | 'description' | 'status' | 'settings'>,
    now: number,
  ): Promise<void> {
    await this.sql.run(
      'UPDATE projects SET name = ?, description = ?, status = ?, settings = ?, updated_at = ? WHERE id = ?',
      [p.name, p.description, p.status, p.settings, now, p.id],
    );
  }

  listByStatus(status: ProjectRow['status'] | null): Promise<ProjectRow[]> {
    return this.sql.all<ProjectRow>(
      'SELECT * FROM projects WHERE (CAST(? AS TEXT) IS NULL OR status = ?) ORDER BY created_at',
      [status, status],
    );
  }

  findByRoot(root: string): Promise<ProjectRow | undefined> {
    return this.sql.get<ProjectRow>(BY_ROOT, [root]);
  }

  get(id: string): Promise<ProjectRow | undefined> {
    return this.sql.get<ProjectRow>(BY_ID, [id]);
  }

  list(): Promise<ProjectRow[]> {
    return this.sql.all<ProjectRow>('SELECT * FROM projects ORDER BY root');
  }
}
