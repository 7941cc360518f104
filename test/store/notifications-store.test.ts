import { describe, expect, it } from 'vitest';
import { NotificationsStore } from '../../src/store/notifications-store.js';
import { sqlBackends } from '../helpers/sql-backends.js';

const { backends, pgUp } = sqlBackends('test/store/notifications-store.test.ts');

describe.each(Object.keys(backends))('notifications on %s', (backend) => {
  it('delivers the pending ones oldest first (then as made), seen now; the stale ones expire unseen', async (ctx) => {
    if (backend === 'postgresql' && !pgUp()) return ctx.skip();
    const sql = await backends[backend as keyof typeof backends]();
    const store = new NotificationsStore(sql);
    const add = (id: string, session: string, subject: string, at: number) =>
      store.insert({
        id,
        session_id: session,
        project_id: null,
        type: 'claim_conflict',
        subject,
        payload: JSON.stringify({ files: [subject] }),
        created_at: at,
      });
    // Ids out of order, two made in the same millisecond: in the order they were made.
    await add('n-z', 's', 'a.ts', 50);
    await add('n-b', 's', 'b.ts', 50);
    await add('n-a', 's', 'c.ts', 20);
    await add('n-old', 's', 'd.ts', 5);
    await add('n-other', 't', 'a.ts', 50);
    await sql.write(async () => {
      await sql.run("UPDATE notifications SET state = 'seen', seen_at = 1 WHERE id = 'n-a'");
    });
    await add('n-a2', 's', 'c.ts', 30);

    const { delivered, full } = await sql.write(() => store.deliverPending('s', 10, 100));
    expect(full).toBe(false);
    expect(delivered.map((r) => [r.id, r.state, r.seen_at])).toEqual([
      ['n-a2', 'pending', null],
      ['n-z', 'pending', null],
      ['n-b', 'pending', null],
    ]);
    const states = async () =>
      Object.fromEntries(
        (
          await sql.all<{ id: string; state: string; seen_at: number | null }>(
            'SELECT id, state, seen_at FROM notifications ORDER BY id',
          )
        ).map((r) => [r.id, `${r.state}@${r.seen_at === null ? '-' : Number(r.seen_at)}`]),
      );
    expect(await states()).toEqual({
      'n-a': 'seen@1',
      'n-a2': 'seen@100',
      'n-b': 'seen@100',
      'n-old': 'expired@-',
      'n-other': 'pending@-',
      'n-z': 'seen@100',
    });
    // Nothing pending: nothing delivered, nothing changed.
    expect(await sql.write(() => store.deliverPending('s', 10, 200))).toEqual({ delivered: [], full: false });
    expect((await states())['n-z']).toBe('seen@100');
  });

  it('delivers the oldest `limit` only; the others stay pending for the next delivery', async (ctx) => {
    if (backend === 'postgresql' && !pgUp()) return ctx.skip();
    const sql = await backends[backend as keyof typeof backends]();
    const store = new NotificationsStore(sql);
    for (let i = 0; i < 5; i++)
      await store.insert({
        id: `n-${i}`,
        session_id: 's',
        project_id: null,
        type: 'claim_conflict',
        subject: `f${i}.ts`,
        payload: '{}',
        // One stale among the oldest: it expires, and takes a place of the first delivery.
        created_at: i === 0 ? 5 : 50 + (4 - i),
      });
    const first = await sql.write(() => store.deliverPending('s', 10, 100, 3));
    expect(first.full).toBe(true);
    expect(first.delivered.map((r) => r.id)).toEqual(['n-4', 'n-3']);
    const second = await sql.write(() => store.deliverPending('s', 10, 100, 3));
    expect(second).toMatchObject({ full: false });
    expect(second.delivered.map((r) => r.id)).toEqual(['n-2', 'n-1']);
  });
});
