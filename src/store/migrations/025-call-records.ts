import type { PortableMigration } from './portable.js';

/**
 * What each write of a call did, kept while its answer may not have reached the client: a relay
 * whose machine's server died sends the call again to the next server, which answers the writes
 * already done from here instead of doing them twice (store/call-records-store.ts).
 * - `call`: the relay's process and the request's JSON-RPC id;
 * - `step`: which write of the call (where in the code, and how many times it ran before);
 * - `value`: what the write returned, serialized.
 */
export const callRecords: PortableMigration = {
  version: 25,
  name: 'what the writes of a call did, so that a call sent again is answered from it',
  build: (db) => [
    db.schema
      .createTable('call_records')
      .addColumn('call', 'text', (c) => c.notNull())
      .addColumn('step', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('call_records_pk', ['call', 'step']),
    // No index by time: the table holds only calls whose answers are on their way (a few rows);
    // the hourly purge reads it whole, and every write of a call writes no page more.
  ],
};
