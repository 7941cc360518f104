/**
 * A write run again keeps the ids it made. On SQLite a process's writes share a transaction
 * (store/write-groups.ts), and a read between two of them sees the first's rows before the commit;
 * if a later write of the group fails having changed rows, the group is rolled back and the first
 * runs again. What the read saw (a message to answer, a claim a hook's check waits on) names a row
 * that must then be committed, not one made anew. The group is made to roll back on purpose: a
 * write that changed a row and fails, begun right after the read. On PostgreSQL (no groups, the
 * read sees nothing before the commit) the id is only seen to be the one committed.
 */
import { expect, it, vi } from 'vitest';
import type { App } from '../../src/app/app.js';
import type { SessionRow } from '../../src/store/sessions-store.js';
import { testApp } from '../helpers/app.js';
import { gitRepo } from '../helpers/temp.js';

async function setUp() {
  const app = await testApp();
  const repo = gitRepo({ 'src/app.ts': 'a\n' });
  const alice = (await app.sessions.start({ projectRoot: repo, name: 'alice' })).session;
  const bob = (await app.sessions.start({ projectRoot: repo, name: 'bob' })).session;
  return { app, repo, alice, bob, sqlite: app.store.dialect === 'sqlite' };
}

/** The ids a store module's `insert` is called with, and what resolves once it first ran (its write still under way). */
function spyInsert(module: { insert(row: { id: string }, ...rest: never[]): Promise<unknown> }) {
  const ids: string[] = [];
  let ran = () => {};
  const first = new Promise<void>((resolve) => {
    ran = resolve;
  });
  const real = module.insert.bind(module);
  const spy = vi.spyOn(module, 'insert').mockImplementation(async (row, ...rest) => {
    const out = await real(row, ...rest);
    ids.push(row.id);
    ran();
    return out;
  });
  return { ids, first, restore: () => spy.mockRestore() };
}

/** A write that changes a row and fails: the group it joins is rolled back, its other writes run again. */
function failingWrite(app: App, session: SessionRow): Promise<unknown> {
  return app.store
    .write(async () => {
      await app.store.sql.run('UPDATE sessions SET name = name WHERE id = ?', [session.id]);
      throw new Error('half done');
    })
    .catch((error: Error) => error.message);
}

it('a message read before its write was committed is the one committed, and can be answered', async () => {
  const { app, alice, bob, sqlite } = await setUp();
  const inserted = spyInsert(app.store.messages);
  const sent = app.messages.send(alice, { to: bob.id, content: 'shall I take the parser?' });
  await inserted.first;
  // Bob reads his inbox meanwhile (without marking it read): inside the group, before its commit.
  const read = sqlite
    ? await app.messages.list(bob, { unreadOnly: true, markAsRead: false, limit: 10 })
    : null;
  const failed = failingWrite(app, alice);
  const { message_id } = await sent;
  expect(await failed).toBe('half done');
  inserted.restore();
  // Bob answers the message he read.
  const seen = read ? read.map((m) => m.id) : [message_id];
  const reply = await app.messages.send(bob, { content: 'yes, go ahead', replyTo: seen[0]! });
  expect(reply.to_session_id).toBe(alice.id);
  expect(seen).toEqual([message_id]);
  // Written twice on SQLite (the group rolled back), once on PostgreSQL: always with one id.
  expect(inserted.ids).toHaveLength(sqlite ? 2 : 1);
  expect(new Set(inserted.ids)).toEqual(new Set([message_id]));
});

it.each(['claim', 'edit'] as const)(
  'a %s a hook saw before its write was committed is the one committed: the session it stopped waits on it',
  async (how) => {
    const { app, repo, alice, bob, sqlite } = await setUp();
    const inserted = spyInsert(app.store.claims);
    const claimed =
      how === 'claim'
        ? app.claims.claim({
            session: alice,
            files: ['src/app.ts'],
            intent: 'refactoring app',
            scope: 'small',
            exclusive: false,
            ttlSeconds: undefined,
          })
        : app.claims.recordEdits(alice, ['src/app.ts']);
    await inserted.first;
    const check = () => app.enforcement.checkPaths(bob, ['src/app.ts'], repo, 'Editing');
    // Bob's edit is checked meanwhile (a hook's read): inside the group, before its commit.
    const seen = sqlite ? await check() : null;
    const failed = failingWrite(app, alice);
    const { claim_id } = await claimed;
    expect(await failed).toBe('half done');
    inserted.restore();
    // Stopped, Bob waits for the claim: it is still held, so nothing is freed (a claim that never
    // was would be told released).
    const verdict = seen ?? (await check());
    await app.enforcement.waitFor(bob, verdict.conflicts);
    expect(await app.store.claimWaits.freed(bob.id)).toEqual([]);
    expect(verdict.conflicts.map((c) => c.claim_id)).toEqual([claim_id]);
    expect(inserted.ids).toHaveLength(sqlite ? 2 : 1);
    expect(new Set(inserted.ids)).toEqual(new Set([claim_id]));
  },
);
