// Closing the store (a CLI's last step) commits what its writes left open: a read between two
// writes of a group sees the group's rows, a command may tell the user of them, and they must be
// in the file when it exits (`session-collab land` printed "landed" for a landing the close lost).
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { Store } from '../../src/store/store.js';
import { tempDir } from '../helpers/temp.js';

it('commits a write whose group is still open when the store closes, rather than roll it back', async () => {
  const file = join(tempDir('collab-close-'), 'registry.db');
  const store = Store.open(file);
  await store.sql.run('CREATE TABLE outcome (id TEXT PRIMARY KEY, state TEXT NOT NULL)');
  const written = store.write(() => store.sql.run("INSERT INTO outcome (id, state) VALUES ('r1', 'landed')"));
  // A read outside the write sees the row as soon as the write has run, before its group commits.
  let seen: { state: string } | undefined;
  while (!seen) seen = await store.sql.get<{ state: string }>("SELECT state FROM outcome WHERE id = 'r1'");
  expect(seen.state).toBe('landed');
  await store.close();
  await written;
  const other = openDatabase(file);
  try {
    expect(other.prepare('SELECT id, state FROM outcome').all()).toEqual([{ id: 'r1', state: 'landed' }]);
  } finally {
    other.close();
  }
});
