import type { PortableMigration } from './portable.js';

/**
 * What landed work meets in a session's changes is read by every `collab_check` of the session,
 * by its base and newest first (store/landings-store.ts `meetingsOf`): an index in that very order
 * answers it without sorting (the sort alone cost ~60 µs a check, with no row to sort).
 */
export const meetingsByBase: PortableMigration = {
  version: 28,
  name: 'what landed work meets, by session and base, newest first',
  build: (db) => [
    db.schema
      .createIndex('landing_meetings_by_base')
      .on('landing_meetings')
      .columns(['session_id', 'base_commit', 'at desc', 'id']),
  ],
};
