/**
 * `collab_wait` for files, and a release that commits while the wait reads who holds them: the wait
 * must see it (it used to take the release into its baseline count after reading the holders, and
 * wait out its whole time for a file already free: seen across a machine server's restart on
 * PostgreSQL, where the re-sent wait and the holder's release reach the next server together).
 */
import { describe, expect, it } from 'vitest';
import { connectInMemory, testApp } from '../helpers/app.js';
import { gitRepo } from '../helpers/temp.js';

describe('collab_wait', () => {
  it('a release committed while the wait reads the holders ends the wait as free', async () => {
    const app = await testApp();
    const repo = gitRepo({ 'src/auth.ts': 'export function login() {}\n' });
    const holder = await connectInMemory(app, repo, 'holder');
    const waiter = await connectInMemory(app, repo, 'waiter');
    await holder.call('collab_session_start', { name: 'holder', project_root: repo });
    await waiter.call('collab_session_start', { name: 'waiter', project_root: repo });
    const { claim_id } = await holder.call<{ claim_id: string }>('collab_claim', {
      files: ['src/auth.ts'],
      intent: 'rename login',
    });

    // The holder releases just after the wait's first read of the holders found it holding.
    const check = app.claims.check.bind(app.claims);
    let releasedMidRead = false;
    app.claims.check = async (...args: Parameters<typeof check>) => {
      const found = await check(...args);
      if (!releasedMidRead && found.conflicts.length > 0) {
        releasedMidRead = true;
        await holder.call('collab_release', { claim_id, status: 'completed' });
      }
      return found;
    };

    const freed = await waiter.call<{ outcome: string; released: Array<{ how: string }> }>('collab_wait', {
      files: ['src/auth.ts'],
      wait_seconds: 5,
    });
    expect(releasedMidRead).toBe(true);
    expect(freed.outcome).toBe('free');
    expect(freed.released[0]).toMatchObject({ how: 'completed' });
  }, 30_000);
});
