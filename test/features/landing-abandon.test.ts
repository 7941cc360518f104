/**
 * A request that looked as if it would never land (its lander on another machine silent for long,
 * its session gone quiet) is ended only if it still looks so inside the write that ends it: a lander
 * that renewed its hold, or a session that came back, after the queue was read keeps its request.
 * The competing write is made there on purpose, just before the landing's write begins: the race,
 * made certain.
 */
import { expect, it } from 'vitest';
import { connectInMemory, testApp } from '../helpers/app.js';
import { beforeNextWrite } from '../helpers/interleave.js';
import { gitRepo } from '../helpers/temp.js';

const MINUTE = 60_000;

async function setUp() {
  const app = await testApp();
  const repo = gitRepo();
  const s = await connectInMemory(app, repo, 's');
  await s.call('collab_session_start', { name: 's', project_root: repo });
  const session = (await app.sessions.get(s.connection.currentId!))!;
  // Asked from another machine by default: this process never lands it itself.
  const request = (id: string, sessionId: string | null, host = 'elsewhere') =>
    app.store.landings.add({
      id,
      project_id: session.project_id,
      session_id: sessionId,
      requester: 's',
      host,
      worktree: repo,
      branch: 'topic',
      head_commit: '0'.repeat(40),
      onto: 'main',
      commits: 1,
      requested_at: app.now() - 30 * MINUTE,
    });
  return { app, session, request };
}

it('a lander on another machine that renewed its hold after the queue was read keeps its landing', async () => {
  const { app, session, request } = await setUp();
  const { landings } = app.store;
  const t0 = app.now();
  const lander = { id: 'far', pid: 4242, host: 'elsewhere', start: null };
  // Its lease ran out 20 minutes ago: the landing looks abandoned.
  await app.store.write(async () => {
    await request('l1', null);
    expect(await landings.start('l1', lander, t0 - 21 * MINUTE, t0 - 20 * MINUTE)).toBe(true);
  });
  beforeNextWrite(app.store, () => app.store.write(() => landings.renew('l1', 'far', app.now() + MINUTE)));
  await app.landing.drive(session.project_id);
  expect(await landings.get('l1')).toMatchObject({ state: 'landing', runner: 'far', reason_code: null });
  // Silent for long again: ended.
  await app.store.write(() => landings.renew('l1', 'far', t0 - 20 * MINUTE));
  await app.landing.drive(session.project_id);
  expect(await landings.get('l1')).toMatchObject({ state: 'cancelled', reason_code: 'LANDER_STOPPED' });
});

it('a request whose session came back after the queue was read stays queued', async () => {
  const { app, session, request } = await setUp();
  const { landings, sessions } = app.store;
  await app.store.write(() => request('l2', session.id));
  // Its session went quiet a day ago: the request looks abandoned.
  await sessions.heartbeat(session.id, app.now() - 24 * 60 * MINUTE);
  beforeNextWrite(app.store, () => sessions.heartbeat(session.id, app.now()));
  await app.landing.drive(session.project_id);
  expect(await landings.get('l2')).toMatchObject({ state: 'queued', reason_code: null });
  // Quiet again: ended.
  await sessions.heartbeat(session.id, app.now() - 24 * 60 * MINUTE);
  await app.landing.drive(session.project_id);
  expect(await landings.get('l2')).toMatchObject({ state: 'cancelled', reason_code: 'SESSION_ENDED' });
});

it('a lander of this machine that renewed its hold after the queue was read keeps a landing out of attempts', async () => {
  const { app, session, request } = await setUp();
  const { landings } = app.store;
  const t0 = app.now();
  const lander = { id: 'near', pid: process.pid, host: app.host, start: null };
  // Taken over until it is out of attempts, its lease then run out: the landing looks refused.
  await app.store.write(async () => {
    await request('l3', null, app.host);
    expect(await landings.start('l3', lander, t0 - 2 * MINUTE, t0 - MINUTE)).toBe(true);
    for (let i = 0; i < 4; i++)
      expect(await landings.takeOver((await landings.get('l3'))!, lander, t0 - MINUTE)).toBe(true);
  });
  expect((await landings.get('l3'))!.attempts).toBe(5);
  beforeNextWrite(app.store, () => app.store.write(() => landings.renew('l3', 'near', app.now() + MINUTE)));
  await app.landing.drive(session.project_id);
  expect(await landings.get('l3')).toMatchObject({ state: 'landing', runner: 'near', reason_code: null });
  // Its lease run out again: refused.
  await app.store.write(() => landings.renew('l3', 'near', t0 - MINUTE));
  await app.landing.drive(session.project_id);
  expect(await landings.get('l3')).toMatchObject({ state: 'rejected', reason_code: 'LANDER_STOPPED' });
});
