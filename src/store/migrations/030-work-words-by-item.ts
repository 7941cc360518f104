import type { PortableMigration } from './portable.js';

/**
 * SQLite's full-text table has no index on a column it does not search (`work_item_id`): taking a
 * work item's words out before its new ones go in looked through the whole index (5.8 ms at 10,000
 * items, inside the write lock every session waits on). Each item's words are found by their row
 * instead, kept here; rows written before are mapped once. PostgreSQL's table has an index on the
 * item already.
 */
export const workWordsByItem: PortableMigration = {
  version: 30,
  name: 'a work item finds its words in the search index by their row',
  build: () => [],
  raw: {
    sqlite: `
CREATE TABLE work_fts_items (work_item_id TEXT PRIMARY KEY, fts_rowid INTEGER NOT NULL);
INSERT INTO work_fts_items (work_item_id, fts_rowid)
  SELECT work_item_id, max(rowid) FROM work_fts WHERE source = 'item' GROUP BY work_item_id;
`,
    postgresql: '',
  },
};
