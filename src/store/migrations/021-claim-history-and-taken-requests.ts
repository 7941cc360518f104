import type { PortableMigration } from './portable.js';

/**
 * What the guard's fencing, the hooks' partial holds and cheap checks need:
 * - every pattern ever claimed, by project and base (released ones too): who held a file after a
 *   session's claim on it lapsed (the commit guard refuses work that was taken over);
 * - when a serving process took an edit's request to read: the request stays pending until the
 *   changes it asked for are recorded, so nobody judges an edit against changes not yet read.
 */
export const claimHistoryAndTakenRequests: PortableMigration = {
  version: 21,
  name: 'claims ever made by base; requests to read changes stay until read; when a worktree was read whole',
  build: (db) => [
    db.schema.createIndex('claim_files_by_base').on('claim_files').columns(['project_id', 'base']),
    db.schema.alterTable('changes_pending').addColumn('taken_at', 'bigint'),
    // When a session's whole worktree was last read (its files' own times say when each was read
    // since): a check reads again only what changed after, by the files' modification times.
    db.schema.alterTable('change_sets').addColumn('full_read_at', 'bigint'),
  ],
};
