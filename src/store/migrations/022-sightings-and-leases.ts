import type { PortableMigration } from './portable.js';

/**
 * What the watcher of a machine needs to tell a write no hook saw from one a hook saw:
 * - what hooks saw sessions do, for a few minutes: the files an edit tool was about to write or
 *   wrote, and the shell commands they ran (whose writes no hook names);
 * - leases, so that one process of each machine watches (whichever serving process holds it).
 */
export const sightingsAndLeases: PortableMigration = {
  version: 22,
  name: 'what hooks saw sessions do; leases for work one process does',
  build: (db) => [
    db.schema
      .createTable('hook_sightings')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('project_id', 'text', (c) => c.notNull())
      .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
      .addColumn('worktree', 'text', (c) => c.notNull())
      /** 'edit' (detail: a path relative to the worktree) or 'shell' (detail: the command). */
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('detail', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull()),
    db.schema.createIndex('hook_sightings_by_project').on('hook_sightings').columns(['project_id', 'at']),
    db.schema.createIndex('hook_sightings_by_time').on('hook_sightings').columns(['at']),
    db.schema
      .createTable('leases')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('holder', 'text', (c) => c.notNull())
      .addColumn('holder_pid', 'integer', (c) => c.notNull())
      .addColumn('lease_until', 'bigint', (c) => c.notNull()),
  ],
};
