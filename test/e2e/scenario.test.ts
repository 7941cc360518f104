import { describe, expect, it } from 'vitest';
import { connectStdio, waitForExit } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

type Check = {
  safe: boolean;
  message?: string;
  warning?: string;
  conflicts: Array<Record<string, string>>;
  stale: Array<Record<string, string>>;
};

describe('two `serve` processes on one database, over real stdio', () => {
  it('claim, check, message, decide, release: the README scenario', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo({ 'src/api/auth.py': 'def login(): pass\n' });
    const a = await connectStdio({ cwd: repo, home, name: 'claude-code' });
    const b = await connectStdio({ cwd: repo, home, name: 'claude-code' });
    try {
      const sa = await a.call<{ session_id: string }>('collab_session_start', {
        name: 'frontend-refactor',
        project_root: repo,
      });
      const sb = await b.call<{ session_id: string; message: string }>('collab_session_start', {
        name: 'cleanup',
        project_root: repo,
      });
      expect(sb.message).toContain('1 other active session');

      const claim = await a.call<{ claim_id: string; status: string }>('collab_claim', {
        files: ['src/api/*'],
        intent: 'refactor login to JWT',
      });
      expect(claim.status).toBe('created');

      const before = await b.call<Check>('collab_check', { files: ['src/api/auth.py'] });
      expect(before.safe).toBe(false);
      expect(before.conflicts[0]).toMatchObject({
        file: 'src/api/auth.py',
        session: 'frontend-refactor',
        session_id: sa.session_id,
        intent: 'refactor login to JWT',
        scope: 'medium',
      });
      expect(Date.parse(before.conflicts[0]!.started_at!)).toBeGreaterThan(0);
      expect(before.warning).toContain('frontend-refactor');

      await b.call('collab_message_send', {
        to_session_id: sa.session_id,
        content: 'I wanted to delete auth.py; ping me when done',
      });
      const inbox = await a.call<{ messages: Array<{ from: string; content: string }> }>(
        'collab_message_list',
      );
      expect(inbox.messages).toEqual([
        expect.objectContaining({
          from: 'cleanup',
          content: 'I wanted to delete auth.py; ping me when done',
        }),
      ]);

      await a.call('collab_decision_add', {
        category: 'api',
        title: 'JWT auth',
        description: 'Login returns a JWT; sessions are gone.',
      });
      await a.call('collab_release', {
        claim_id: claim.claim_id,
        status: 'completed',
        summary: 'login uses JWT',
      });

      const after = await b.call<Check>('collab_check', { files: ['src/api/auth.py'] });
      expect(after.safe).toBe(true);
      const decisions = await b.call<{ decisions: Array<{ title: string; session: string }> }>(
        'collab_decision_list',
        { query: 'jwt' },
      );
      expect(decisions.decisions).toEqual([
        expect.objectContaining({ title: 'JWT auth', session: 'frontend-refactor' }),
      ]);

      // The text beside the structured result tells a model the same thing.
      const text = await b.client.callTool({
        name: 'collab_claims_list',
        arguments: { status: 'completed' },
      });
      expect((text.content as Array<{ text: string }>)[0]!.text).toContain('login to JWT');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a server whose client disconnects ends its session; one killed with SIGKILL stops blocking', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo({ 'src/a.ts': '1\n', 'src/b.ts': '2\n' });
    const watcher = await connectStdio({ cwd: repo, home });
    const leaver = await connectStdio({ cwd: repo, home });
    // A server of its own (in-process) that crashes: a relay killed outright ends its session at
    // once (relay.test.ts), a server killed is served again by the next (its sessions go on).
    const victim = await connectStdio({ cwd: repo, home, args: ['--in-process'] });
    try {
      const leaverId = (
        await leaver.call<{ session_id: string }>('collab_session_start', {
          name: 'leaver',
          project_root: repo,
        })
      ).session_id;
      const victimId = (
        await victim.call<{ session_id: string }>('collab_session_start', {
          name: 'victim',
          project_root: repo,
        })
      ).session_id;
      await leaver.call('collab_claim', { files: ['src/a.ts'], intent: 'leaving soon' });
      await victim.call('collab_claim', { files: ['src/b.ts'], intent: 'about to crash' });
      expect(
        (await watcher.call<Check>('collab_check', { files: ['src/a.ts', 'src/b.ts'] })).conflicts,
      ).toHaveLength(2);

      await leaver.close();
      await waitForExit(leaver.pid);
      process.kill(victim.pid, 'SIGKILL');
      await waitForExit(victim.pid);

      const check = await watcher.call<Check>('collab_check', { files: ['src/a.ts', 'src/b.ts'] });
      expect(check.safe).toBe(true);
      // The crashed session's claim is still there, shown as stale; the one that left released its own.
      expect(check.stale).toEqual([
        expect.objectContaining({ file: 'src/b.ts', session_id: victimId, session_status: 'inactive' }),
      ]);
      const sessions = await watcher.call<{ sessions: Array<{ id: string; status: string }> }>(
        'collab_session_list',
        { include_inactive: true },
      );
      const status = Object.fromEntries(sessions.sessions.map((s) => [s.id, s.status]));
      expect(status[leaverId]).toBe('ended');
      expect(status[victimId]).toBe('inactive');
      const err = await watcher.fail('collab_message_list', { session_id: victimId });
      expect(err.code).toBe('SESSION_INACTIVE');
    } finally {
      await watcher.close();
    }
  });
});
