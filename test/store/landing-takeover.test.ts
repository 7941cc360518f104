// Taking over a landing whose lander looked gone: a lander that renewed its lease after the taker
// read the landing keeps it (two landers never land one request at once).
import { expect, it } from 'vitest';
import { connectInMemory, testApp } from '../helpers/app.js';
import { gitRepo } from '../helpers/temp.js';

it('a lease renewed after the landing was read is not taken over; one that ran out is', async () => {
  const app = await testApp();
  const repo = gitRepo();
  const s = await connectInMemory(app, repo, 's');
  await s.call('collab_session_start', { name: 's', project_root: repo });
  const session = (await app.sessions.get(s.connection.currentId!))!;
  const { landings } = app.store;
  const lander = (id: string, pid: number) => ({ id, pid, host: app.host, start: null });
  const t0 = app.now();
  await app.store.write(async () => {
    await landings.add({
      id: 'l1',
      project_id: session.project_id,
      session_id: session.id,
      requester: 's',
      host: app.host,
      worktree: repo,
      branch: 'main',
      head_commit: '0'.repeat(40),
      onto: 'main',
      commits: 1,
      requested_at: t0,
    });
    expect(await landings.start('l1', lander('first', 1), t0, t0 + 1_000)).toBe(true);
  });
  // The taker reads the landing (its lease looks run out), then the lander renews it.
  const read = (await landings.get('l1'))!;
  expect(await app.store.write(() => landings.renew('l1', 'first', t0 + 60_000))).toBe(true);
  expect(await app.store.write(() => landings.takeOver(read, lander('second', 2), t0 + 90_000))).toBe(false);
  expect((await landings.get('l1'))!.runner).toBe('first');
  // Read again as it is now: taken over (the lease read is the lease it has).
  const now = (await landings.get('l1'))!;
  expect(await app.store.write(() => landings.takeOver(now, lander('second', 2), t0 + 90_000))).toBe(true);
  expect((await landings.get('l1'))!.runner).toBe('second');
  expect(await app.store.write(() => landings.renew('l1', 'first', t0 + 120_000))).toBe(false);
});
