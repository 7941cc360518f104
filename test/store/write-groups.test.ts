// SQLite writes committed together (store/write-groups.ts): the writes begun in one turn of the
// event loop share a transaction, each answered once it is committed; a write that fails takes
// nothing of the others with it.
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { type Db, openDatabase } from '../../src/store/database.js';
import { type SqliteSqlDatabase, sqliteSql } from '../../src/store/sql.js';
import { GROUP_MAX } from '../../src/store/write-groups.js';
import { tempDir } from '../helpers/temp.js';

const opened: { close(): unknown }[] = [];
afterEach(async () => {
  for (const db of opened.splice(0).reverse()) await db.close();
});

/**
 * A store connection on a new file whose `exec`s are told (BEGIN, COMMIT…), and a second connection
 * on the file: what another process sees.
 */
async function setup() {
  const file = join(tempDir('collab-groups-'), 'registry.db');
  const real = openDatabase(file);
  const execs: string[] = [];
  let failCommit = false;
  const spied: Db = {
    get name() {
      return real.name;
    },
    get driver() {
      return real.driver;
    },
    get open() {
      return real.open;
    },
    get inTransaction() {
      return real.inTransaction;
    },
    prepare: (text) => real.prepare(text),
    exec(text) {
      execs.push(text);
      if (text === 'COMMIT' && failCommit) {
        failCommit = false;
        throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
      }
      real.exec(text);
    },
    close: () => real.close(),
  };
  const db: SqliteSqlDatabase = sqliteSql(spied, 5_000);
  opened.push(db);
  await db.run('CREATE TABLE t (k TEXT PRIMARY KEY, n INTEGER NOT NULL DEFAULT 0)');
  const other = openDatabase(file);
  opened.push(other);
  const seen = () =>
    (other.prepare('SELECT k FROM t ORDER BY k').all() as { k: string }[]).map((r) => r.k).join(',');
  const commits = () => execs.filter((e) => e === 'COMMIT').length;
  execs.length = 0;
  return {
    db,
    real,
    seen,
    commits,
    begins: () => execs.filter((e) => e === 'BEGIN IMMEDIATE').length,
    failNextCommit: () => {
      failCommit = true;
    },
  };
}

/** A write inserting `a` (its promise), and what resolves once it has run (its group still open). */
function insertA(db: SqliteSqlDatabase): { a: Promise<unknown>; aRan: Promise<void> } {
  let ran = () => {};
  const aRan = new Promise<void>((resolve) => {
    ran = resolve;
  });
  const a = db.write(async (tx) => {
    await tx.run("INSERT INTO t (k) VALUES ('a')");
    ran();
  });
  return { a, aRan };
}

it('commits the writes begun in one turn together, and answers each only once it is committed', async () => {
  const { db, seen, commits, begins } = await setup();
  // What another connection saw when each write was answered.
  const sawWhenAnswered: string[] = [];
  await Promise.all(
    ['a', 'b', 'c', 'd', 'e'].map((k) =>
      db
        .write(async (tx) => {
          await tx.run('INSERT INTO t (k) VALUES (?)', [k]);
          return k;
        })
        .then((value) => {
          expect(value).toBe(k);
          sawWhenAnswered.push(seen());
        }),
    ),
  );
  expect(sawWhenAnswered).toEqual(Array(5).fill('a,b,c,d,e'));
  expect([begins(), commits()]).toEqual([1, 1]);
  // Each write still decides on what the ones before it did.
  await Promise.all(
    Array.from({ length: 10 }, () =>
      db.write(async (tx) => {
        const { n } = (await tx.get<{ n: number }>("SELECT n FROM t WHERE k = 'a'"))!;
        await tx.run("UPDATE t SET n = ? WHERE k = 'a'", [n + 1]);
      }),
    ),
  );
  expect(await db.get("SELECT n FROM t WHERE k = 'a'")).toEqual({ n: 10 });
  expect([begins(), commits()]).toEqual([2, 2]);
  // A write begun later (another turn): a group of its own.
  await db.write(async (tx) => tx.run("INSERT INTO t (k) VALUES ('f')"));
  expect(commits()).toBe(3);
});

it('a write begun in the next turn (a request read meanwhile) joins the group', async () => {
  const { db, seen, commits } = await setup();
  const insert = (k: string) => db.write(async (tx) => tx.run('INSERT INTO t (k) VALUES (?)', [k]));
  const first = insert('a');
  const next = await new Promise<Promise<unknown>>((resolve) => setImmediate(() => resolve(insert('b'))));
  await Promise.all([first, next]);
  expect(commits()).toBe(1);
  expect(seen()).toBe('a,b');
});

it(`commits a group once it holds ${GROUP_MAX} writes`, async () => {
  const { db, seen, commits } = await setup();
  const keys = Array.from({ length: 2 * GROUP_MAX + 6 }, (_, i) => `k${String(i).padStart(3, '0')}`);
  await Promise.all(keys.map((k) => db.write(async (tx) => tx.run('INSERT INTO t (k) VALUES (?)', [k]))));
  expect(commits()).toBe(3);
  expect(seen()).toBe(keys.join(','));
});

it('a write that passes over an error SQLite ended its transaction for is refused, and the group written again without it', async (ctx) => {
  const { db, real, seen } = await setup();
  if (real.inTransaction === null) return ctx.skip(); // node:sqlite before Node 22.16 cannot say
  const b = db.write(async (tx) => tx.run("INSERT INTO t (k) VALUES ('b')"));
  const a = db.write(async (tx) => {
    await tx.run("INSERT INTO t (k) VALUES ('a')");
    // What SQLite does itself on an I/O error or a full disk, an error this write catches (a
    // courtesy write, say): b's row and a's first are gone with the transaction.
    real.exec('ROLLBACK');
    // Its next statement would commit on its own: refused.
    await expect(tx.run("INSERT INTO t (k) VALUES ('a2')")).rejects.toMatchObject({
      code: 'SQLITE_ABORT_ROLLBACK',
    });
  });
  await expect(a).rejects.toMatchObject({ code: 'SQLITE_ABORT_ROLLBACK' });
  await b;
  expect(seen()).toBe('b');
});

it('a write that fails of its own after SQLite ended its transaction has the group written again without it', async (ctx) => {
  const { db, real, seen } = await setup();
  if (real.inTransaction === null) return ctx.skip(); // node:sqlite before Node 22.16 cannot say
  const b = db.write(async (tx) => tx.run("INSERT INTO t (k) VALUES ('b')"));
  const a = db.write(async () => {
    // A read of this write met an I/O error, which SQLite answers by ending the transaction (b's
    // row gone with it); the write caught that and fails with an error of its own, having
    // changed nothing.
    real.exec('ROLLBACK');
    throw new Error('refused');
  });
  await expect(a).rejects.toThrow('refused');
  await b;
  expect(seen()).toBe('b');
});

it('a write that fails having changed nothing leaves the others of its group as they are', async () => {
  const { db, seen, commits } = await setup();
  const runs = { a: 0, c: 0 };
  const results = await Promise.allSettled([
    db.write(async (tx) => {
      runs.a++;
      await tx.run("INSERT INTO t (k) VALUES ('a')");
    }),
    db.write(async (tx) => {
      await tx.get("SELECT k FROM t WHERE k = 'a'");
      await tx.run("UPDATE t SET n = 1 WHERE k = 'none'");
      throw new Error('refused');
    }),
    db.write(async (tx) => {
      runs.c++;
      await tx.run("INSERT INTO t (k) VALUES ('c')");
    }),
  ]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect(seen()).toBe('a,c');
  expect(runs).toEqual({ a: 1, c: 1 });
  expect(commits()).toBe(1);
});

it('a write that fails having changed rows takes back only its own: the others of its group run again', async () => {
  const { db, seen } = await setup();
  const runs = { a: 0, c: 0 };
  const results = await Promise.allSettled([
    db.write(async (tx) => {
      runs.a++;
      await tx.run("INSERT INTO t (k) VALUES ('a')");
      return runs.a;
    }),
    db.write(async (tx) => {
      await tx.run("INSERT INTO t (k) VALUES ('b')");
      throw new Error('half done');
    }),
    db.write(async (tx) => {
      runs.c++;
      await tx.run("INSERT INTO t (k) VALUES ('c')");
    }),
  ]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect((results[1] as PromiseRejectedResult).reason.message).toBe('half done');
  // `a` ran again (its answer is the second run's), `c` had not run yet.
  expect((results[0] as PromiseFulfilledResult<number>).value).toBe(2);
  expect(runs).toEqual({ a: 2, c: 1 });
  expect(seen()).toBe('a,c');
});

it("a write that fails on an error of SQLite's ends its group: the others run again, none twice", async () => {
  const { db, seen } = await setup();
  await db.run("INSERT INTO t (k) VALUES ('taken')");
  const results = await Promise.allSettled([
    db.write(async (tx) => tx.run("UPDATE t SET n = n + 1 WHERE k = 'taken'")),
    db.write(async (tx) => {
      await tx.get('SELECT 1 AS one');
      await tx.run("INSERT INTO t (k) VALUES ('taken')");
    }),
    db.write(async (tx) => tx.run("INSERT INTO t (k) VALUES ('z')")),
  ]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect(String((results[1] as PromiseRejectedResult).reason.code)).toMatch(/^SQLITE_CONSTRAINT/);
  expect(seen()).toBe('taken,z');
  expect(await db.get("SELECT n FROM t WHERE k = 'taken'")).toEqual({ n: 1 });
});

it('a commit that fails fails every write of its group and keeps none of them; the next group commits', async () => {
  const { db, seen, failNextCommit } = await setup();
  failNextCommit();
  const results = await Promise.allSettled(
    ['a', 'b'].map((k) => db.write(async (tx) => tx.run('INSERT INTO t (k) VALUES (?)', [k]))),
  );
  expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  expect((results[0] as PromiseRejectedResult).reason.code).toBe('SQLITE_IOERR');
  expect(seen()).toBe('');
  await db.write(async (tx) => tx.run("INSERT INTO t (k) VALUES ('c')"));
  expect(seen()).toBe('c');
});

it('a change outside any write is a write of its own: kept when a write of its group fails', async () => {
  const { db, seen } = await setup();
  const { a, aRan } = insertA(db);
  // The group is open (in this turn still), no write runs: the change would land in its transaction.
  await aRan;
  const results = await Promise.allSettled([
    a,
    db.run("INSERT INTO t (k) VALUES ('outside')"),
    db.write(async (tx) => {
      await tx.run("INSERT INTO t (k) VALUES ('b')");
      throw new Error('half done');
    }),
  ]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
  expect(seen()).toBe('a,outside');
});

it('a read between two writes of a group sees the first as it will be committed', async () => {
  const { db, seen } = await setup();
  const { a, aRan } = insertA(db);
  await aRan;
  // Not committed yet (another connection sees nothing), read inside the group's transaction.
  expect(await db.all("SELECT k FROM t WHERE k = 'a'")).toEqual([{ k: 'a' }]);
  expect(seen()).toBe('');
  await a;
  expect(seen()).toBe('a');
});

it('closes at once when no write is under way, and after committing the writes that are', async () => {
  const file = join(tempDir('collab-groups-'), 'registry.db');
  const idle = openDatabase(file);
  const db = sqliteSql(idle, 5_000);
  await db.run('CREATE TABLE t (k TEXT PRIMARY KEY)');
  // A hook closes its connection and exits in the same turn: nothing waits for a later one.
  void db.close();
  expect(idle.open).toBe(false);

  const busy = openDatabase(file);
  const again = sqliteSql(busy, 5_000);
  const written = again.write(async (tx) => tx.run("INSERT INTO t (k) VALUES ('kept')"));
  await again.close();
  await written;
  expect(busy.open).toBe(false);
  const other = openDatabase(file);
  opened.push(other);
  expect(other.prepare('SELECT k FROM t').all()).toEqual([{ k: 'kept' }]);
});
