import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { openPgPool } from '../../src/store/pg-database.js';
import {
  numberPlaceholders,
  postgresSql,
  type SqlDatabase,
  sqliteSql,
  sqliteText,
} from '../../src/store/sql.js';
import { freshPgDatabase, pgAvailable } from '../helpers/pg.js';
import { tempDir } from '../helpers/temp.js';

let pgUp = false;
beforeAll(async () => {
  pgUp = await pgAvailable('test/store/sql.test.ts');
});
const open: SqlDatabase[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((db) => db.close()));
});

const backends = {
  sqlite: async () => {
    const db = sqliteSql(openDatabase(join(tempDir('collab-sql-'), 'registry.db')), 5_000);
    open.push(db);
    return [db];
  },
  /** Two replicas: two pools on one database. */
  postgresql: async () => {
    const url = await freshPgDatabase();
    const dbs = [postgresSql(openPgPool(url, 4)), postgresSql(openPgPool(url, 4))];
    open.push(...dbs);
    return dbs;
  },
};

it('numbers placeholders for PostgreSQL: not in literals, identifiers, comments or dollar quotes, not operators', () => {
  expect(numberPlaceholders(`SELECT ? , '?' , "a?" , ?`)).toBe(`SELECT $1 , '?' , "a?" , $2`);
  expect(numberPlaceholders(`SELECT 'it''s ?', E'a\\'?', ? -- why?\n, ? /* a ? /* b ? */ c ? */ , ?`)).toBe(
    `SELECT 'it''s ?', E'a\\'?', $1 -- why?\n, $2 /* a ? /* b ? */ c ? */ , $3`,
  );
  expect(numberPlaceholders('CREATE FUNCTION f() AS $$ SELECT ?; $$; SELECT $tag$ ? $tag$, ?')).toBe(
    'CREATE FUNCTION f() AS $$ SELECT ?; $$; SELECT $tag$ ? $tag$, $1',
  );
  // JSONB: ?| and ?& are operators, ?? is the ? operator; a placeholder before || stays one.
  expect(numberPlaceholders("SELECT data ?| ?, data ?& ?, data ?? 'k', ? || 'x', ?||'y'")).toBe(
    "SELECT data ?| $1, data ?& $2, data ? 'k', $3 || 'x', $4||'y'",
  );
});

it('writes each SQLite placeholder as +? (no bare parameter for its planner to look into), nothing else', () => {
  expect(sqliteText(`SELECT a FROM t WHERE k = ? AND s <> '?' AND "q?" = ? ORDER BY a LIMIT ?`)).toBe(
    `SELECT a FROM t WHERE k = +? AND s <> '?' AND "q?" = +? ORDER BY a LIMIT +?`,
  );
  expect(sqliteText('INSERT INTO t (a, b) VALUES (?, ?) ON CONFLICT (a) DO UPDATE SET b = ?')).toBe(
    'INSERT INTO t (a, b) VALUES (+?, +?) ON CONFLICT (a) DO UPDATE SET b = +?',
  );
  expect(sqliteText('SELECT value FROM json_each(?) WHERE CAST(? AS TEXT) IS NULL')).toBe(
    'SELECT value FROM json_each(+?) WHERE CAST(+? AS TEXT) IS NULL',
  );
  // What SQLite may read otherwise than the tokenizer does is left as it is.
  for (const text of [
    'SELECT [a?] FROM t WHERE k = ?',
    'SELECT `a?` FROM t',
    'SELECT ? -- why?',
    'SELECT ? /* ? */',
    "SELECT ?? 'k'",
  ])
    expect(sqliteText(text)).toBe(text);
});

describe.each(Object.keys(backends) as Array<keyof typeof backends>)('the SQL interface on %s', (backend) => {
  it('reads and writes with ? placeholders, and rolls back a transaction that throws', async (ctx) => {
    if (backend === 'postgresql' && !pgUp) return ctx.skip();
    const [db] = await backends[backend]();
    await db!.run('CREATE TABLE t (k TEXT PRIMARY KEY, v BIGINT NOT NULL)');
    await db!.run('INSERT INTO t (k, v) VALUES (?, ?)', ['a?', 1]);
    expect(await db!.get('SELECT v FROM t WHERE k = ?', ['a?'])).toEqual({ v: 1 });
    await expect(
      db!.write(async (tx) => {
        await tx.run('UPDATE t SET v = ? WHERE k = ?', [2, 'a?']);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await db!.all('SELECT k, v FROM t')).toEqual([{ k: 'a?', v: 1 }]);
    expect((await db!.run('DELETE FROM t WHERE k = ?', ['none'])).changes).toBe(0);
  });

  it('bound limits and values say the rows they name, as written for either database', async (ctx) => {
    if (backend === 'postgresql' && !pgUp) return ctx.skip();
    const [db] = await backends[backend]();
    await db!.run('CREATE TABLE t2 (n BIGINT NOT NULL, s TEXT NOT NULL)');
    for (let n = 1; n <= 10; n++)
      await db!.run('INSERT INTO t2 (n, s) VALUES (?, ?)', [n, n % 2 ? '?' : 'x']);
    const ns = async (sql: string, params: unknown[]) =>
      (await db!.all<{ n: number }>(sql, params)).map((r) => Number(r.n));
    const after = 'SELECT n FROM t2 WHERE n > ? ORDER BY n LIMIT ?';
    expect(await ns(after, [2, 3])).toEqual([3, 4, 5]);
    expect(await ns(after, [2, 5])).toEqual([3, 4, 5, 6, 7]);
    expect(await ns(after, [8, 5])).toEqual([9, 10]);
    expect(await ns(after, [0, 0])).toEqual([]);
    expect(await ns("SELECT n FROM t2 WHERE s <> '?' AND n > ? ORDER BY n LIMIT ?", [5, 2])).toEqual([6, 8]);
    expect(await ns('SELECT n FROM t2 ORDER BY n LIMIT ? OFFSET ?', [2, 3])).toEqual([4, 5]);
    expect(
      await db!.get<{ c: number }>(
        'SELECT COUNT(*) AS c FROM (SELECT n FROM t2 ORDER BY n LIMIT ?) AS f WHERE n > ?',
        [4, 1],
      ),
    ).toEqual({ c: 3 });
    // A text with a comment is left as it is: the same rows.
    expect(await ns('SELECT n FROM t2 -- the first ones\n ORDER BY n LIMIT ?', [2])).toEqual([1, 2]);
    // SQLite reads a negative limit as none.
    if (backend === 'sqlite') expect(await ns(after, [7, -1])).toEqual([8, 9, 10]);
    // Values of either type against a column of numbers, or of text: as a bare parameter would.
    expect(await ns('SELECT n FROM t2 WHERE n = ?', ['4'])).toEqual([4]);
    expect(await ns('SELECT n FROM t2 WHERE s = ? AND n < ? ORDER BY n', ['?', 6])).toEqual([1, 3, 5]);
  });

  it('decisions that depend on what they read are never taken twice: 40 racing writers, each one counted', async (ctx) => {
    if (backend === 'postgresql' && !pgUp) return ctx.skip();
    const dbs = await backends[backend]();
    await dbs[0]!.run('CREATE TABLE counter (k TEXT PRIMARY KEY, v BIGINT NOT NULL)');
    await dbs[0]!.run("INSERT INTO counter (k, v) VALUES ('c', 0)");
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        dbs[i % dbs.length]!.write(async (tx) => {
          await tx.lock('counter:c');
          const { v } = (await tx.get<{ v: number }>("SELECT v FROM counter WHERE k = 'c'"))!;
          await new Promise((r) => setTimeout(r, 1));
          await tx.run("UPDATE counter SET v = ? WHERE k = 'c'", [v + 1]);
        }),
      ),
    );
    expect(await dbs[0]!.get("SELECT v FROM counter WHERE k = 'c'")).toEqual({ v: 40 });
  });
});
