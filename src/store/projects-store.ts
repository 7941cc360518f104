import { newId } from '../core/ids.js';
import { type Moved, mergeProject } from './project-merge.js';
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

/** A new project's id. */
export function newProjectId(): string {
  return newId().replace(/-/g, '').slice(0, 16);
}

export class ProjectsStore {
  constructor(private readonly sql: Sql) {}

  /**
   * The project of a place, created on first sight. A project still under the place's former key
   * (its clone's git folder, before repositories were named by what survives cloning; or before a
   * repository's first commit) becomes this one: renamed when there is none yet, else merged into
   * it. Inside a write transaction. A project created gets the id `made`: given by a caller that
   * made it before its write, a write run again (its group rolled back, store/write-groups.ts)
   * keeps the id a read between the group's writes saw.
   */
  async ensure(
    place: { key: string; formerKey: string; kind: 'git' | 'dir'; label: string },
    host: string,
    now: number,
    made: string = newProjectId(),
  ): Promise<ProjectRow & { merged?: Moved }> {
    const existing = await this.sql.get<ProjectRow>(BY_ROOT, [place.key]);
    const former = place.formerKey === place.key ? undefined : await this.findByRoot(place.formerKey);
    if (former?.kind === 'named') return existing ?? this.insert(made, place, now);
    if (existing && former)
      return { ...existing, merged: await mergeProject(this.sql, former, existing, host, now) };
    if (existing) return existing;
    if (former) {
      await this.sql.run(
        'UPDATE projects SET root = ?, name = coalesce(name, ?), updated_at = ? WHERE id = ?',
        [place.key, place.label, now, former.id],
      );
      return (await this.get(former.id))!;
    }
    return this.insert(made, place, now);
  }

  /** A new project, named for people by its place's label. */
  private async insert(
    id: string,
    place: { key: string; kind: 'git' | 'dir'; label: string },
    now: number,
  ): Promise<ProjectRow> {
    await this.sql.run(
      'INSERT INTO projects (id, root, kind, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
      [id, place.key, place.kind, place.label, now, now],
    );
    return (await this.sql.get<ProjectRow>(BY_ROOT, [place.key]))!;
  }

  /** The project of a place, under its key or its former key (nothing is changed). */
  async findFor(place: { key: string; formerKey: string }): Promise<ProjectRow | undefined> {
    return (
      (await this.findByRoot(place.key)) ??
      (place.formerKey === place.key ? undefined : await this.findByRoot(place.formerKey))
    );
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
