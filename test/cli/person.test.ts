import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { runCli } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

const cli = runCli;

/** A pid that no process has any more. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).stdout);
}

describe('the person in charge, from a terminal', () => {
  it('messages a session by name, releases a claim and ends a session by the first characters of their ids', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo({ 'src/a.ts': 'a\n' });
    const app = await testApp({ home, backend: 'sqlite' });
    const alice = (await app.sessions.start({ projectRoot: repo, name: 'alice', pid: process.pid })).session;
    const bob = (await app.sessions.start({ projectRoot: repo, name: 'bob', pid: process.pid })).session;
    const claim = await app.claims.claim({
      session: alice,
      files: ['src/a.ts'],
      intent: 'refactoring a',
      scope: 'small',
      exclusive: true,
      ttlSeconds: undefined,
    });

    const sent = await cli(home, ['message', 'bob', 'please', 'wait', 'for', 'alice'], repo);
    expect(sent.code).toBe(0);
    expect(sent.stdout).toContain('Sent to "bob"');
    const inbox = await app.notifications.deliver(bob.id);
    expect(inbox.map((n) => n.type)).toContain('message');
    expect(JSON.stringify(inbox)).toContain('please wait for alice');

    const released = await cli(
      home,
      ['release', claim.claim_id.slice(0, 6), '--reason', 'alice is stuck'],
      repo,
    );
    expect(released.code).toBe(0);
    expect(released.stdout).toContain('Released src/a.ts');
    expect((await app.store.claims.get(claim.claim_id))?.status).toBe('abandoned');
    const told = await app.notifications.deliver(alice.id);
    expect(JSON.stringify(told.find((n) => n.type === 'claim_released'))).toContain('alice is stuck');

    const ended = await cli(home, ['end', bob.id.slice(0, 8), '--json'], repo);
    expect(ended.code).toBe(0);
    expect(JSON.parse(ended.stdout)).toMatchObject({ session_id: bob.id, session: 'bob' });
    expect((await app.store.sessions.get(bob.id))?.status).toBe('ended');
    expect((await app.store.sessions.get(bob.id))?.end_reason).toContain('(terminal)');

    // What cannot be told apart or found says so, and what to do.
    await app.sessions.start({ projectRoot: repo, name: 'alice', pid: process.pid });
    const ambiguous = await cli(home, ['message', 'alice', 'hi'], repo);
    expect(ambiguous.code).not.toBe(0);
    expect(ambiguous.stderr).toContain('2 live sessions are named "alice"');
    const unknown = await cli(home, ['end', 'nobody'], repo);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('session-collab status');
    await app.close();
  });

  it('`clean` ends the sessions whose process is gone, releasing their claims; --dry-run only lists them', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo({ 'src/a.ts': 'a\n' });
    const app = await testApp({ home, backend: 'sqlite' });
    const gone = (await app.sessions.start({ projectRoot: repo, name: 'gone', pid: deadPid() })).session;
    const live = (await app.sessions.start({ projectRoot: repo, name: 'live', pid: process.pid })).session;
    await app.claims.claim({
      session: gone,
      files: ['src/a.ts'],
      intent: 'x',
      scope: 'small',
      exclusive: false,
      ttlSeconds: undefined,
    });
    const dry = await cli(home, ['clean', '--dry-run'], repo);
    expect(dry.stdout).toContain('would end gone');
    expect(dry.stdout).not.toContain('live');
    expect((await app.store.sessions.get(gone.id))?.status).toBe('active');
    const cleaned = await cli(home, ['clean', '--json'], repo);
    expect(JSON.parse(cleaned.stdout)).toMatchObject({
      dry_run: false,
      sessions: [{ session_id: gone.id, name: 'gone', released: 1 }],
    });
    expect((await app.store.sessions.get(gone.id))?.status).toBe('ended');
    expect((await app.store.sessions.get(live.id))?.status).toBe('active');
    expect((await cli(home, ['clean'], repo)).stdout).toContain('No dead sessions');
    await app.close();
  });
});
