// Reads kept while nothing they read can have changed (store/reads-kept.ts), on real SQLite files:
// another connection's commit, this connection's writes (and what its triggers and foreign keys
// write in turn), a rollback and a statement of unknown effect each make the next read read again.
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { type SqliteSqlDatabase, sqliteSql } from '../../src/store/sql.js';
import { tempDir } from '../helpers/temp.js';

const opened: { close(): unknown }[] = [];
afterEach(async () => {
  for (const db of opened.splice(0).reverse()) await db.close();
});

async function setup({ driverTellsTransactions = true } = {}) {
  const file = join(tempDir('collab-kept-'), 'registry.db');
  const raw = openDatabase(file);
  // As node:sqlite before Node 22.16 is: it cannot say whether a transaction is open.
  const connection = driverTellsTransactions
    ? raw
    : new Proxy(raw, {
        get: (target, key) => {
          if (key === 'inTransaction') return null;
          const value = Reflect.get(target, key, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
  const db: SqliteSqlDatabase = sqliteSql(connection, 5_000);
  opened.push(db);
  await db.run('CREATE TABLE parent (id TEXT PRIMARY KEY, n INTEGER NOT NULL)');
  await db.run(
    'CREATE TABLE child (id TEXT PRIMARY KEY, parent_id TEXT NOT NULL REFERENCES parent(id) ON DELETE CASCADE)',
  );
  await db.run('CREATE TABLE log (what TEXT NOT NULL)');
  await db.run('CREATE TABLE other (x INTEGER)');
  await db.run(
    "CREATE TRIGGER parent_logged AFTER UPDATE ON parent BEGIN INSERT INTO log (what) VALUES ('updated ' || NEW.id); END",
  );
  await db.run("INSERT INTO parent (id, n) VALUES ('p', 1)");
  await db.run("INSERT INTO child (id, parent_id) VALUES ('c', 'p')");
  const other = openDatabase(file);
  opened.push(other);
  let reads = 0;
  /** A kept read of `table`'s row count, and how many times it was read for real. */
  const count = (table: string) =>
    db.kept(`count:${table}`, [table], async () => {
      reads++;
      return Number((await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))!.n);
    });
  const parentN = () =>
    db.kept('parent n', ['parent'], async () => {
      reads++;
      return Number((await db.get<{ n: number }>("SELECT n FROM parent WHERE id = 'p'"))!.n);
    });
  return { db, raw, other, count, parentN, reads: () => reads };
}

it('answers from what it read while nothing changed, and reads again after another connection commits', async () => {
  const { other, parentN, reads } = await setup();
  expect(await parentN()).toBe(1);
  expect(await parentN()).toBe(1);
  expect(reads()).toBe(1);
  other.exec("UPDATE parent SET n = 2 WHERE id = 'p'");
  expect(await parentN()).toBe(2);
  expect(reads()).toBe(2);
});

it('reads again after this connection writes the table, or a table its trigger or foreign key writes, and not after others', async () => {
  const { db, count, parentN, reads } = await setup();
  await parentN();
  await count('log');
  await count('child');
  const before = reads();
  await db.run('INSERT INTO other (x) VALUES (1)');
  await parentN();
  await count('log');
  await count('child');
  expect(reads()).toBe(before);
  // The trigger writes log.
  await db.run("UPDATE parent SET n = 5 WHERE id = 'p'");
  expect(await parentN()).toBe(5);
  expect(await count('log')).toBe(1);
  expect(reads()).toBe(before + 2);
  // The foreign key's cascade deletes the child.
  await db.write(async (tx) => {
    await tx.run("DELETE FROM parent WHERE id = 'p'");
  });
  expect(await count('child')).toBe(0);
});

it('forgets what was read inside a transaction that is rolled back, and everything after a statement it cannot read', async () => {
  const { db, parentN, count, reads } = await setup();
  await expect(
    db.write(async (tx) => {
      await tx.run("UPDATE parent SET n = 9 WHERE id = 'p'");
      // Read inside the transaction: its own uncommitted row.
      expect(await parentN()).toBe(9);
      throw new Error('changed its mind');
    }),
  ).rejects.toThrow('changed its mind');
  expect(await parentN()).toBe(1);
  await count('other');
  const before = reads();
  await db.run('CREATE TABLE more (y INTEGER)');
  await count('other');
  expect(reads()).toBe(before + 1);
});

it('a transaction SQLite rolled back by itself: what was read in it is forgotten, and other connections commit again', async (ctx) => {
  const { db, raw, other, parentN } = await setup();
  // node:sqlite before Node 22.16 cannot say: there, nothing is kept (the test below).
  if (raw.inTransaction === null) return ctx.skip();
  let ran = () => {};
  const aRan = new Promise<void>((resolve) => {
    ran = resolve;
  });
  const a = db.write(async (tx) => {
    await tx.run("UPDATE parent SET n = 4 WHERE id = 'p'");
    ran();
  });
  await aRan;
  // A read between the group's writes: the group's own row, as it will commit.
  expect(await parentN()).toBe(4);
  // What SQLite does itself on an I/O error or a full disk in a statement between them: the
  // group hears of it only at its COMMIT.
  raw.exec('ROLLBACK');
  expect(raw.inTransaction).toBe(false);
  other.exec("UPDATE parent SET n = 6 WHERE id = 'p'");
  expect(await parentN()).toBe(6);
  await expect(a).rejects.toThrow(/no transaction is active/);
  expect(await parentN()).toBe(6);
});

it('keeps nothing on a driver that cannot say whether SQLite rolled a transaction back by itself', async () => {
  const { db, parentN, reads } = await setup({ driverTellsTransactions: false });
  expect(await parentN()).toBe(1);
  expect(await parentN()).toBe(1);
  expect(reads()).toBe(2);
  // Nor inside a write group: a row read there could outlive a rollback the store cannot see.
  await db.write(async (tx) => {
    await tx.run("UPDATE parent SET n = 3 WHERE id = 'p'");
    expect(await parentN()).toBe(3);
    expect(await parentN()).toBe(3);
  });
  expect(reads()).toBe(4);
});

it('never keeps a value older than its stamp: a write while the read waits makes the next read read again', async () => {
  const { db, parentN, reads } = await setup();
  // A write under way: the read waits for it, then reads its result; the stamp was taken before.
  let started = () => {};
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const writing = db.write(async (tx) => {
    started();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await tx.run("UPDATE parent SET n = 3 WHERE id = 'p'");
  });
  await running;
  const during = parentN();
  await writing;
  expect(await during).toBe(3);
  expect(await parentN()).toBe(3);
  expect(reads()).toBe(2);
});

it('reads a long key each time, and keeps a bounded number of reads', async () => {
  const { db } = await setup();
  let reads = 0;
  const read = (key: string) =>
    db.kept(key, ['other'], async () => {
      reads++;
      return key.length;
    });
  const long = 'x'.repeat(5_000);
  await read(long);
  await read(long);
  expect(reads).toBe(2);
  for (let i = 0; i < 2_500; i++) await read(`k${i}`);
  reads = 0;
  await read('k2499');
  expect(reads).toBe(0);
});

it("tells a table written by its schema's name, a read written WITH from a write, and a trigger another connection added", async () => {
  const { db, other, count, parentN, reads } = await setup();
  await parentN();
  await db.run("UPDATE main.parent SET n = 7 WHERE id = 'p'");
  expect(await parentN()).toBe(7);
  const before = reads();
  await db.all('WITH x AS (SELECT 1 AS one) SELECT one FROM x');
  await parentN();
  expect(reads()).toBe(before);
  // A newer version's migration, run by another process while this one serves.
  other.exec(
    'CREATE TRIGGER parent_counted AFTER UPDATE ON parent BEGIN INSERT INTO other (x) VALUES (NEW.n); END',
  );
  expect(await count('other')).toBe(0);
  await db.run("UPDATE parent SET n = 8 WHERE id = 'p'");
  expect(await count('other')).toBe(1);
});
