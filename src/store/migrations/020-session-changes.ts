import type { PortableMigration } from './portable.js';

/**
 * What each session actually changed (`integrations/git-changes.ts`): one row per session with the
 * base its changes are measured against, and one per changed file with its hunks and their symbols
 * (JSON), and the files edit hooks saw change, waiting to be read. Conflicts between sessions are predicted from these rows, on any machine.
 */
export const sessionChanges: PortableMigration = {
  version: 20,
  name: 'the changes each session made, file by file',
  build: (db) => [
    db.schema
      .createTable('change_sets')
      .addColumn('session_id', 'text', (c) => c.primaryKey().references('sessions.id').onDelete('cascade'))
      .addColumn('project_id', 'text', (c) => c.notNull())
      .addColumn('base_commit', 'text', (c) => c.notNull())
      .addColumn('base_ref', 'text')
      .addColumn('base_source', 'text', (c) => c.notNull())
      /** HEAD's and the default branch's commits when the base was found: while both stay, so does it. */
      .addColumn('head_commit', 'text')
      .addColumn('ref_commit', 'text')
      /** Changed files left out past the limit. */
      .addColumn('omitted', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('refreshed_at', 'bigint', (c) => c.notNull()),
    db.schema
      .createTable('changed_files')
      .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
      .addColumn('project_id', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('base_blob', 'text')
      .addColumn('new_blob', 'text')
      /** 'lines' or 'file' (compared as a whole: binary, large, too many hunks). */
      .addColumn('level', 'text', (c) => c.notNull())
      .addColumn('reason', 'text')
      /** JSON: [{base, next, digest, excerpt, symbols}]. */
      .addColumn('hunks', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('changed_files_pk', ['session_id', 'path']),
    db.schema.createIndex('changed_files_by_project').on('changed_files').columns(['project_id', 'path']),
    // Files an edit hook saw change, to be read by a serving process of the session's machine (a
    // hook has no time for git and a parser).
    db.schema
      .createTable('changes_pending')
      .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
      .addColumn('host', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('requested_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('changes_pending_pk', ['session_id', 'path']),
    db.schema.createIndex('changes_pending_by_host').on('changes_pending').columns(['host', 'requested_at']),
  ],
};
