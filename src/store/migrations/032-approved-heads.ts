import type { PortableMigration } from './portable.js';

/**
 * The commit a work item's submitter had checked out when the item was approved: the landing gate
 * (`land.require_review`) lands that commit or one before it, rather than trusting a commit's own
 * date, which its author writes.
 */
export const approvedHeads: PortableMigration = {
  version: 32,
  name: "the commit a work item's submitter had when it was approved",
  build: (db) => [db.schema.alterTable('work_items').addColumn('approved_head', 'text')],
};
