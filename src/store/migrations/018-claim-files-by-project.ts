import type { PortableMigration } from './portable.js';

/**
 * A project's last claimed pattern found in one seek (`ClaimsStore.mark`): its rowid, which orders
 * the patterns each project adds. SQLite keeps the rowid in every index entry (and refuses it as a
 * column); PostgreSQL's rowid is a column of its own.
 */
export const claimFilesByProject: PortableMigration = {
  version: 18,
  name: 'claimed patterns by project in the order they were added',
  build: () => [],
  raw: {
    sqlite: 'CREATE INDEX claim_files_by_project ON claim_files(project_id);',
    postgresql: 'CREATE INDEX claim_files_by_project ON claim_files(project_id, rowid);',
  },
};
