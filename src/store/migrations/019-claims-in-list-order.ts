import type { PortableMigration } from './portable.js';

/**
 * A project's claims in list order (newest first): a page of `collab_claims_list`, the dashboard
 * or `status` seeks to its cursor and reads its rows, whatever the number of claims before it.
 */
export const claimsInListOrder: PortableMigration = {
  version: 19,
  name: 'claims of a project in list order',
  build: (db) => [
    db.schema.createIndex('claims_in_list_order').on('claims').columns(['project_id', 'created_at', 'id']),
  ],
};
