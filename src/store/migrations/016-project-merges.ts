import type { PortableMigration } from './portable.js';

/**
 * Repositories are named by what survives cloning (`integrations/repo-identity.ts`), not by the
 * path of a clone's git folder: projects that turn out to be one repository are merged as each
 * machine meets them (`store/project-merge.ts`). Each merge is recorded here, so that `migrate`,
 * `status` and the log can say what was merged into what.
 */
export const projectMerges: PortableMigration = {
  version: 16,
  name: 'projects merged into the repository they are',
  build: (db) => [
    db.schema
      .createTable('project_merges')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('from_id', 'text', (c) => c.notNull())
      .addColumn('from_root', 'text', (c) => c.notNull())
      .addColumn('into_id', 'text', (c) => c.notNull())
      .addColumn('into_root', 'text', (c) => c.notNull())
      .addColumn('host', 'text', (c) => c.notNull())
      /** JSON: rows moved, by table. */
      .addColumn('moved', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull()),
    db.schema.createIndex('project_merges_by_into').on('project_merges').columns(['into_id', 'at']),
  ],
};
