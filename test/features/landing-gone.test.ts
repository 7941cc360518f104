/**
 * A request whose copy or commit went away while it waited in the queue is refused saying so: the
 * copy's folder deleted (NOT_A_REPOSITORY), its commit deleted with its branch and pruned
 * (WORK_GONE), not an error of git's or advice to fetch a whole history.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { connectInMemory, testApp } from '../helpers/app.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

it('a deleted copy, and a commit no longer in the repository, are refused saying which', async () => {
  const app = await testApp();
  const repo = gitRepo();
  const s = await connectInMemory(app, repo, 's');
  await s.call('collab_session_start', { name: 's', project_root: repo });
  const session = await app.sessions.get(s.connection.currentId!);
  const request = (id: string, worktree: string, head: string) =>
    app.store.write(() =>
      app.store.landings.add({
        id,
        project_id: session.project_id,
        session_id: session.id,
        requester: 's',
        host: app.host,
        worktree,
        branch: 'topic',
        head_commit: head,
        onto: 'main',
        commits: 1,
        requested_at: app.now(),
      }),
    );
  await request('gone-copy', join(tempDir('collab-gone-'), 'deleted'), '1'.repeat(40));
  await app.landing.drive(session.project_id);
  expect(await app.store.landings.get('gone-copy')).toMatchObject({
    state: 'rejected',
    reason_code: 'NOT_A_REPOSITORY',
    reason: expect.stringContaining('no longer exists'),
  });
  await request('gone-commit', repo, '2'.repeat(40));
  await app.landing.drive(session.project_id);
  expect(await app.store.landings.get('gone-commit')).toMatchObject({
    state: 'rejected',
    reason_code: 'WORK_GONE',
    reason: expect.stringContaining('no longer in the repository'),
  });
});

it("a copy git cannot read is refused with git's words, not as an internal error", async () => {
  const app = await testApp();
  const repo = gitRepo();
  const s = await connectInMemory(app, repo, 's');
  await s.call('collab_session_start', { name: 's', project_root: repo });
  writeFileSync(join(repo, '.git', 'index'), 'not an index');
  const refused = await s.fail('collab_land', {});
  expect(refused.code).toBe('INVALID_INPUT');
  expect(refused.message).toContain('git could not read the copy');
  expect(refused.message).toContain('index');
});
