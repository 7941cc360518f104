import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { hasScript, inTerminal, runCli } from '../helpers/stdio.js';
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
    const inbox = (await app.notifications.deliver(bob.id)).delivered;
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
    const told = (await app.notifications.deliver(alice.id)).delivered;
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
    // Spoken to a person: commands, never the tools' names.
    const gone = await cli(home, ['end', 'bob'], repo);
    expect(gone.stderr).toContain('Session "bob" has ended.');
    expect(gone.stderr).toContain('status --all');
    const again = await cli(home, ['release', claim.claim_id.slice(0, 6)], repo);
    expect(again.stderr).toContain('is no longer active: it was released (abandoned)');
    const short = await cli(home, ['release', '1'], repo);
    expect(short.stderr).toContain('at least its first 4 characters');
    expect(short.stderr).toContain('--help');
    const bare = await cli(home, ['message'], repo);
    expect(bare.stderr).toContain("missing required argument 'session'");
    expect(bare.stderr).toContain('--help');
    for (const run of [unknown, gone, again, short]) expect(run.stderr).not.toMatch(/collab_\w+/);
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

  it('`status --watch` redraws in a real terminal as sessions claim and release, until Ctrl-C', async () => {
    if (!(await hasScript())) {
      console.warn('SKIPPED: script(1) (util-linux) is not installed: the pseudo-terminal test needs it.');
      return;
    }
    const home = tempDir('collab-home-');
    const repo = gitRepo({ 'src/a.ts': 'a\n' });
    const app = await testApp({ home, backend: 'sqlite' });
    const alice = (await app.sessions.start({ projectRoot: repo, name: 'alice', pid: process.pid })).session;
    let claimId = '';
    const { screen, code } = await inTerminal({
      home,
      cwd: repo,
      args: ['status', '--watch'],
      steps: [
        [
          'alice',
          async () => {
            claimId = (
              await app.claims.claim({
                session: alice,
                files: ['src/a.ts'],
                intent: 'moving the parser out',
                scope: 'small',
                exclusive: false,
                ttlSeconds: undefined,
              })
            ).claim_id;
          },
        ],
        ['moving the parser out', async () => app.claims.release(alice, claimId, 'completed', undefined)],
        // The next frame, drawn whole, and then Ctrl-C.
        ['\x1b[2J', () => undefined],
        ['Ctrl-C to stop', '\x03'],
      ],
    });
    // Each frame clears the screen and draws anew: the claim appeared, then went.
    const frames = screen.split('\x1b[2J').slice(1);
    expect(frames.length).toBeGreaterThanOrEqual(3);
    expect(frames[0]).toContain('alice');
    expect(frames[0]).not.toContain('moving the parser out');
    const withClaim = frames.findIndex((f) => f.includes('moving the parser out'));
    expect(withClaim).toBeGreaterThan(0);
    expect(
      frames.slice(withClaim + 1).some((f) => f.includes('alice') && !f.includes('moving the parser out')),
    ).toBe(true);
    expect(screen).toContain(`claim ${claimId.slice(0, 8)}`);
    expect(code).not.toBe(0); // stopped by Ctrl-C (SIGINT), as a person stops it
    await app.close();
  }, 30_000);
});
