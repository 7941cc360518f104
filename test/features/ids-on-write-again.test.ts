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
import type { Config } from '../../src/app/config.js';
import type { SessionRow } from '../../src/store/sessions-store.js';
import { testApp } from '../helpers/app.js';
import { gitRepo } from '../helpers/temp.js';

async function setUp(config: Partial<Config> = {}) {
  const app = await testApp({ config });
  const repo = gitRepo({ 'src/app.ts': 'a\n' });
  const alice = (await app.sessions.start({ projectRoot: repo, name: 'alice' })).session;
  const bob = (await app.sessions.start({ projectRoot: repo, name: 'bob' })).session;
  return { app, repo, alice, bob, sqlite: app.store.dialect === 'sqlite' };
}

/** What a store module writes a row with (a row that has an id). */
type RowWriter = (row: never, ...rest: never[]) => Promise<unknown>;

/**
 * The ids a store module's `method` (`insert` unless told) is called with, and what resolves once
 * it first ran (its write still under way).
 */
function spyInsert<K extends string = 'insert'>(
  module: { [k in NoInfer<K>]: RowWriter },
  method: K = 'insert' as K,
) {
  const ids: string[] = [];
  let ran = () => {};
  const first = new Promise<void>((resolve) => {
    ran = resolve;
  });
  const target = module as unknown as Record<
    string,
    (row: { id: string }, ...rest: unknown[]) => Promise<unknown>
  >;
  const real = target[method]!.bind(module);
  const spy = vi.spyOn(target, method).mockImplementation(async (row, ...rest) => {
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

it('a question the dashboard showed before its write was committed is the one committed, and can be answered', async () => {
  const { app, alice, sqlite } = await setUp();
  const inserted = spyInsert(app.store.questions);
  const asked = app.human.ask(alice, { question: 'Which cache?', options: ['LRU', 'LFU'] });
  await inserted.first;
  // The dashboard lists the questions waiting for a person meanwhile: inside the group, before its commit.
  const shown = sqlite ? await app.human.list(null, 'pending', 10) : null;
  const failed = failingWrite(app, alice);
  const question = await asked;
  expect(await failed).toBe('half done');
  inserted.restore();
  // The person answers the question the page showed them.
  const seen = shown ? shown.map((q) => q.id) : [question.id];
  const outcome = await app.human.answer(seen[0]!, 'LRU', 'web', 'pat');
  expect(outcome.won).toBe(true);
  expect(seen).toEqual([question.id]);
  expect(inserted.ids).toHaveLength(sqlite ? 2 : 1);
  expect(new Set(inserted.ids)).toEqual(new Set([question.id]));
});

it('a decision listed before its write was committed is the one committed', async () => {
  const { app, alice, bob, sqlite } = await setUp();
  const inserted = spyInsert(app.store.decisions);
  const added = app.decisions.add(alice, {
    category: 'architecture',
    title: 'An LRU cache',
    description: 'Bounded at 1,000 entries.',
  });
  await inserted.first;
  // Bob lists the decisions meanwhile: inside the group, before its commit.
  const listed = sqlite ? await app.decisions.list(bob, { limit: 10 }) : null;
  const failed = failingWrite(app, alice);
  const { decision_id } = await added;
  expect(await failed).toBe('half done');
  inserted.restore();
  // Listed again, the decision Bob saw is there under the id he saw (not gone, another in its place).
  const seen = listed ? listed.items.map((d) => d.decision_id) : [decision_id];
  expect((await app.decisions.list(bob, { limit: 10 })).items.map((d) => d.decision_id)).toEqual(seen);
  expect(seen).toEqual([decision_id]);
  expect(inserted.ids).toHaveLength(sqlite ? 2 : 1);
  expect(new Set(inserted.ids)).toEqual(new Set([decision_id]));
});

it('a work item listed for review before its write was committed is the one committed, and can be opened', async () => {
  const { app, alice, bob, sqlite } = await setUp();
  const inserted = spyInsert(app.store.workItems);
  const submitted = app.reviews.submitWork(alice, {
    type: 'design',
    phase: 'planning',
    title: 'Cache design',
    content: 'Use an LRU cache\n',
  });
  await inserted.first;
  // Bob, a reviewer, lists the work waiting for review meanwhile: inside the group, before its commit.
  const pending = sqlite ? await app.reviews.pendingReviews(bob, {}) : null;
  const failed = failingWrite(app, alice);
  const item = await submitted;
  expect(await failed).toBe('half done');
  inserted.restore();
  // Bob opens the item he saw.
  const seen = pending ? pending.work_items.map((i) => i.id) : [item.id];
  expect((await app.reviews.workDetail(bob, seen[0]!, false)).status).toBe('in_review');
  expect(seen).toEqual([item.id]);
  expect(inserted.ids).toHaveLength(sqlite ? 2 : 1);
  expect(new Set(inserted.ids)).toEqual(new Set([item.id]));
});

const SUGGESTION = {
  type: 'bug',
  severity: 'major',
  title: 'Unbounded growth',
  explanation: 'Nothing evicts entries.',
} as const;

it.each(['review', 'suggestion', 'response'] as const)(
  'a %s read before its write was committed is the one committed, and can be answered',
  async (what) => {
    const { app, alice, bob, sqlite } = await setUp();
    const item = await app.reviews.submitWork(alice, {
      type: 'design',
      phase: 'planning',
      title: 'Cache design',
      content: 'Use an LRU cache\n',
    });
    const review = (verdict: 'request_changes' | 'comment', suggestions: (typeof SUGGESTION)[]) =>
      app.reviews.submitReview(bob, { workItemId: item.id, verdict, summary: 'Bound it.', suggestions });
    // What is written: a review with a suggestion (its suggestion written last), a suggestion
    // added to a review, an answer to a review.
    const before = what === 'review' ? null : await review('comment', []);
    const inserted = spyInsert(app.store.reviews, what === 'response' ? 'addResponse' : 'addSuggestion');
    const written =
      what === 'review'
        ? review('request_changes', [SUGGESTION]).then((r) => ({
            review: r.review_id,
            row: r.suggestions[0]!.id,
          }))
        : what === 'suggestion'
          ? app.reviews
              .addSuggestion(bob, before!.review_id, SUGGESTION)
              .then((s) => ({ review: before!.review_id, row: s.id }))
          : app.reviews
              .respond(alice, {
                workItemId: item.id,
                reviewId: before!.review_id,
                response: 'Bounded now.',
                action: 'acknowledged',
              })
              .then((r) => ({ review: r.review_id, row: r.response_id }));
    await inserted.first;
    // The other side reads the item's feedback meanwhile: inside the group, before its commit.
    const read = sqlite ? await app.reviews.feedback(item.id) : null;
    const failed = failingWrite(app, alice);
    const ids = await written;
    expect(await failed).toBe('half done');
    inserted.restore();
    const seenReview = read ? read.reviews.at(-1)! : null;
    const seen = {
      review: seenReview?.id ?? ids.review,
      row:
        (what === 'response' ? seenReview?.responses[0]?.id : seenReview?.suggestions[0]?.id) ??
        (read ? 'none seen' : ids.row),
    };
    // What was read is answered: the suggestion resolved, the review answered; a response, read
    // again, is the one read.
    if (what === 'response') {
      const again = (await app.reviews.feedback(item.id)).reviews.at(-1)!;
      expect(again.responses.map((r) => r.id)).toEqual([seen.row]);
    } else {
      await app.reviews.respond(alice, {
        workItemId: item.id,
        reviewId: seen.review,
        response: 'Bounded now.',
        action: 'will_fix',
      });
      await app.reviews.resolveSuggestion(alice, { suggestionId: seen.row, resolution: 'accepted' });
    }
    expect(seen).toEqual(ids);
    expect(inserted.ids).toHaveLength(sqlite ? 2 : 1);
    expect(new Set(inserted.ids)).toEqual(new Set([ids.row]));
  },
);

it('an automatic approval read before its write was committed is the one committed, and can be answered', async () => {
  const { app, alice, bob, sqlite } = await setUp({ review_auto_approve: true });
  const item = await app.reviews.submitWork(alice, {
    type: 'design',
    phase: 'planning',
    title: 'Cache design',
    content: 'Use an LRU cache\n',
  });
  await app.reviews.submitReview(bob, {
    workItemId: item.id,
    verdict: 'request_changes',
    summary: 'Bound it.',
    suggestions: [{ ...SUGGESTION, severity: 'minor' }],
  });
  const inserted = spyInsert(app.store.reviews);
  // A new version small enough to be approved automatically: the approval is a review.
  const updated = app.reviews.updateWork(alice, {
    workItemId: item.id,
    content: 'Use an LRU cache of 1,000 entries\n',
    changeDescription: 'bounded',
  });
  await inserted.first;
  // Bob reads the item's feedback meanwhile: inside the group, before its commit.
  const read = sqlite ? await app.reviews.feedback(item.id) : null;
  const failed = failingWrite(app, alice);
  expect((await updated).auto_approved).toBe(true);
  expect(await failed).toBe('half done');
  inserted.restore();
  const committed = (await app.reviews.feedback(item.id)).reviews.filter((r) => r.automatic);
  const seen = read ? read.reviews.filter((r) => r.automatic).map((r) => r.id) : committed.map((r) => r.id);
  // Alice answers the approval she read.
  await app.reviews.respond(alice, {
    workItemId: item.id,
    reviewId: seen[0]!,
    response: 'Thanks.',
    action: 'acknowledged',
  });
  expect(seen).toEqual(committed.map((r) => r.id));
  expect(inserted.ids).toHaveLength(sqlite ? 2 : 1);
  expect(new Set(inserted.ids)).toEqual(new Set(seen));
});

it("a project a hook saw before its first session's write was committed is the one committed: the session's edits are claimed in it", async () => {
  const app = await testApp();
  const repo = gitRepo({ 'src/app.ts': 'a\n' });
  const sqlite = app.store.dialect === 'sqlite';
  // The first session of a repository: its write makes the project too.
  const inserted = spyInsert(app.store.sessions);
  const started = app.sessions.start({ projectRoot: repo, name: 'alice' });
  await inserted.first;
  // A hook of Alice's finds her session meanwhile (inside the group, before its commit), in the
  // project just made.
  const seen = sqlite ? ((await app.sessions.find(inserted.ids[0]!)) ?? undefined) : undefined;
  const failed = seen ? failingWrite(app, seen) : Promise.resolve(null);
  const { session: alice } = await started;
  expect(await failed).toBe(seen ? 'half done' : null);
  inserted.restore();
  const bob = (await app.sessions.start({ projectRoot: repo, name: 'bob' })).session;
  // The hook goes on with the session it found: Alice's edit is claimed in her project, and Bob's
  // edit of the file is stopped.
  const hooked = seen ?? alice;
  await app.claims.recordEdits(hooked, ['src/app.ts']);
  const verdict = await app.enforcement.checkPaths(bob, ['src/app.ts'], repo, 'Editing');
  expect(verdict.conflicts.map((c) => c.session_id)).toEqual([alice.id]);
  expect(hooked.project_id).toBe(alice.project_id);
  expect(bob.project_id).toBe(alice.project_id);
  expect(inserted.ids).toHaveLength(sqlite ? 2 : 1);
});
