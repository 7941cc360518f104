import { newId } from '../core/ids.js';
import type { Sql } from './sql.js';

export interface SightingRow {
  id: string;
  session_id: string;
  worktree: string;
  kind: 'edit' | 'shell';
  detail: string;
  at: number;
}

/** How long sightings are kept: longer than any window the watcher judges a change by. */
export const SIGHTINGS_KEPT_MS = 10 * 60_000;

/**
 * What hooks saw sessions do, kept a few minutes: the files their edit tools wrote (relative to the
 * worktree) and the shell commands they ran. The watcher reads them to tell a write a hook saw from
 * one none did, and who most likely made it.
 */
export class SightingsStore {
  constructor(private readonly sql: Sql) {}

  /** One statement: decides on nothing it read, so it needs no transaction. */
  async add(
    sighting: {
      project_id: string;
      session_id: string;
      worktree: string;
      kind: 'edit' | 'shell';
      at: number;
    },
    details: string[],
  ): Promise<void> {
    if (details.length === 0) return;
    await this.sql.run(
      `INSERT INTO hook_sightings (id, project_id, session_id, worktree, kind, detail, at) VALUES ${details.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      details.flatMap((detail) => [
        newId(),
        sighting.project_id,
        sighting.session_id,
        sighting.worktree,
        sighting.kind,
        detail,
        sighting.at,
      ]),
    );
  }

  /** Edits of `path` in a project since `since`, and shell commands run in it since `since`. */
  around(projectId: string, path: string, since: number): Promise<SightingRow[]> {
    return this.sql.all<SightingRow>(
      `SELECT id, session_id, worktree, kind, detail, at FROM hook_sightings
       WHERE project_id = ? AND at >= ? AND (kind = 'shell' OR detail = ?) ORDER BY at DESC LIMIT 200`,
      [projectId, since, path],
    );
  }

  /** Forgets sightings older than `before`, at most `limit` at a time; returns how many. */
  async purge(before: number, limit: number): Promise<number> {
    const { changes } = await this.sql.run(
      'DELETE FROM hook_sightings WHERE id IN (SELECT id FROM hook_sightings WHERE at < ? LIMIT ?)',
      [before, limit],
    );
    return changes;
  }
}
