import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { nodeSqlite } from '../../src/store/sqlite-node.js';

// node:sqlite's rows are built from arrays where the statement names its columns; they must be the
// rows node:sqlite itself gives, and a `*` statement must follow its table as it changes.
const driver = nodeSqlite();
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function open() {
  const dir = mkdtempSync(join(tmpdir(), 'collab-rows-'));
  dirs.push(dir);
  return driver!.open(join(dir, 'rows.db'), {});
}

it.skipIf(!driver)(
  'rows read by named columns are the rows node:sqlite gives, in all, get and iterate',
  () => {
    const db = open();
    db.exec(`CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER, x REAL, b BLOB, z TEXT);
    INSERT INTO t VALUES ('a', 1, 1.5, x'00ff', NULL), ('b', 2, -0.25, NULL, 'zz');`);
    const named = db.prepare(
      'SELECT id, n, x, b, z, n * 2 AS twice, COUNT(*) OVER () AS total FROM t ORDER BY id',
    );
    const plain = db.prepare('SELECT * FROM t ORDER BY id');
    const all = named.all() as Array<Record<string, unknown>>;
    expect(all).toEqual([
      { id: 'a', n: 1, x: 1.5, b: new Uint8Array([0, 255]), z: null, twice: 2, total: 2 },
      { id: 'b', n: 2, x: -0.25, b: null, z: 'zz', twice: 4, total: 2 },
    ]);
    expect(Object.keys(all[0]!)).toEqual(['id', 'n', 'x', 'b', 'z', 'twice', 'total']);
    expect(named.get()).toEqual(all[0]);
    expect([...named.iterate()]).toEqual(all);
    expect(db.prepare('SELECT id FROM t WHERE id = ?').get('none')).toBeUndefined();
    // A later column of the same name wins, as in node:sqlite's own objects.
    expect(db.prepare("SELECT id, 'second' AS id FROM t WHERE id = 'a'").get()).toEqual({ id: 'second' });
    expect(plain.all()).toEqual(all.map(({ twice: _, total: __, ...row }) => row));
    expect(db.prepare("INSERT INTO t (id) VALUES ('c')").run()).toEqual({ changes: 1 });
    db.close();
  },
);

it.skipIf(!driver)('a `*` statement reads the columns its table has when it runs', () => {
  const db = open();
  db.exec(`CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER); INSERT INTO t VALUES ('a', 1);`);
  const star = db.prepare('SELECT * FROM t');
  const prefixed = db.prepare('SELECT t.*, 1 AS one FROM t');
  expect(star.get()).toEqual({ id: 'a', n: 1 });
  // A migration of another process rebuilds the table in another order, with one more column.
  db.exec(`CREATE TABLE t2 (note TEXT, n INTEGER, id TEXT PRIMARY KEY); INSERT INTO t2 SELECT 'hi', n, id FROM t;
    DROP TABLE t; ALTER TABLE t2 RENAME TO t;`);
  expect(star.get()).toEqual({ note: 'hi', n: 1, id: 'a' });
  expect(prefixed.get()).toEqual({ note: 'hi', n: 1, id: 'a', one: 1 });
  db.close();
});
