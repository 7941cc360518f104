import type { PortableMigration } from './portable.js';

/**
 * The version of a work item each session last read whole (`get_work_detail`): a review that names
 * no version is of that one, so an approval sent after the worker updated the item does not approve
 * a version its reviewer never saw.
 */
export const workItemReads: PortableMigration = {
  version: 31,
  name: 'the version of a work item each session last read',
  build: (db) => [
    db.schema
      .createTable('work_item_reads')
      .addColumn('work_item_id', 'text', (c) => c.notNull())
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('work_item_reads_pk', ['work_item_id', 'session_id']),
  ],
};
