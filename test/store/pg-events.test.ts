import type pg from 'pg';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { migratePg, openPgPool } from '../../src/store/pg-database.js';
import { PgEventListener } from '../../src/store/pg-events.js';
import { freshPgDatabase, pgAvailable } from '../helpers/pg.js';

let available = false;
beforeAll(async () => {
  available = await pgAvailable('test/store/pg-events.test.ts');
});
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  // Last opened, first closed: a listener (which wakes the readers) before the pool they read.
  for (const close of closers.splice(0).reverse()) await close();
});

const until = async (what: string, ok: () => boolean, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

/** A reader as a replica's feed is: on each wake it reads the events after the last id it has. */
function reader(pool: pg.Pool) {
  const seen: number[] = [];
  let reading = Promise.resolve();
  const wake = () => {
    reading = reading.then(async () => {
      const last = seen.at(-1) ?? 0;
      const { rows } = await pool.query<{ id: number }>('SELECT id FROM events WHERE id > $1 ORDER BY id', [
        last,
      ]);
      seen.push(...rows.map((r) => r.id));
    });
  };
  /** Settles once the reads woken so far are done. */
  const settled = () => reading;
  return { seen, wake, settled };
}

describe('events across replicas (LISTEN/NOTIFY)', () => {
  it('announces each new event by id, and a listener whose connection is killed catches up with no gap', async (ctx) => {
    if (!available) return ctx.skip();
    const url = await freshPgDatabase();
    const pool = openPgPool(url, 3);
    closers.push(() => pool.end());
    await migratePg(pool);
    const announced: Array<number | null> = [];
    const statuses: string[] = [];
    const feed = reader(pool);
    const listener = new PgEventListener({
      url,
      wake: (id) => {
        announced.push(id);
        feed.wake();
      },
      onStatus: (s) => statuses.push(s),
    });
    await listener.start();
    // Closed, then its last woken read let finish, before the pool ends.
    closers.push(async () => {
      await listener.close();
      await feed.settled();
    });
    const add = (n: number) =>
      pool.query(
        `INSERT INTO events (at, project_id, kind, subject, op) SELECT 1, 'p', 'claim', 'c' || g, 'created' FROM generate_series(1, ${n}) g`,
      );

    await add(3);
    await until('3 events', () => feed.seen.length === 3);
    expect(announced.filter((id) => id !== null)).toEqual(feed.seen);

    // Another replica kills this one's listening connection; events keep coming meanwhile.
    const pid = await listener.backendPid();
    await pool.query('SELECT pg_terminate_backend($1)', [pid]);
    await until('the drop', () => statuses.includes('disconnected'));
    await add(5);
    await until('the reconnect', () => statuses.filter((s) => s === 'connected').length === 2);
    await add(2);
    await until('10 events', () => feed.seen.length === 10);
    const { rows } = await pool.query<{ id: number }>('SELECT id FROM events ORDER BY id');
    expect(feed.seen).toEqual(rows.map((r) => r.id));
    expect(new Set(feed.seen).size).toBe(10);
  });
});
