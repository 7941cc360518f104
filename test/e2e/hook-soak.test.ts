/**
 * A Claude Code session's hooks while the machine's server is SIGKILLed every few seconds: a relay
 * sends it messages while its turn-end hook runs again and again (real hook processes that ask the
 * server, ask the next one, or run the ask themselves when it dies under them: the same call,
 * `features/enforcement/hook-calls.ts`). Every message is said by exactly one hook: none read and
 * lost with a server that died before its answer, none said twice.
 */
import { describe, expect, it } from 'vitest';
import { hookFixture } from '../helpers/hook-fixtures.js';
import { killServers } from '../helpers/server-kills.js';
import { connectStdio, hookClient } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

/** Kills, and how long each server lives first (past 3 s: no crash loop for the relay). */
const KILLS = 3;
const LIFE_MS = 4_500;
/** From this long before each kill until the next server runs, the hooks go at full speed. */
const BURST_MS = 400;
const SEND_REST_MS = 100;
/** A hook process is ~70 ms of CPU. */
const HOOK_REST_MS = 200;

describe.skipIf(process.platform !== 'linux')("a session's hooks across the machine server's kills", () => {
  it('every message sent is said by exactly one turn-end hook', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const client = await hookClient({ cwd: repo, home });
    const sender = await connectStdio({ cwd: repo, home, name: 'sender' });
    try {
      await sender.call('collab_session_start', { name: 'sender', project_root: repo });
      const started = await client.hook(
        'session-start',
        hookFixture('claude-code/session-start', repo, 'B-1'),
      );
      const reader = /session_id ([0-9a-f-]{36})/.exec(started.stdout)![1]!;
      const sent: string[] = [];
      const said: string[] = [];
      const failures: string[] = [];
      const turnEnd = async () => {
        const out = await client.hook('turn-end', {
          ...hookFixture('claude-code/stop', repo, 'B-1'),
          stop_hook_active: false,
        });
        const reason: string = out.stdout.trim() ? (JSON.parse(out.stdout).reason ?? '') : '';
        const got = [...reason.matchAll(/^> (m-\d+)$/gm)].map((m) => m[1]!);
        said.push(...got);
        return got.length;
      };
      let stop = false;
      let burst = false;
      const sending = (async () => {
        for (let n = 0; !stop; n++) {
          try {
            await sender.call('collab_message_send', { to_session_id: reader, content: `m-${n}` });
            sent.push(`m-${n}`);
          } catch (error) {
            failures.push((error as Error).message);
          }
          await new Promise((r) => setTimeout(r, SEND_REST_MS));
        }
      })();
      const hooks = (async () => {
        while (!stop) {
          await turnEnd();
          if (!burst) await new Promise((r) => setTimeout(r, HOOK_REST_MS));
        }
      })();
      try {
        await killServers(home, {
          kills: KILLS,
          lifeMs: LIFE_MS,
          burstMs: BURST_MS,
          burst: (on) => {
            burst = on;
          },
        });
        await new Promise((r) => setTimeout(r, 500));
      } finally {
        stop = true;
      }
      await Promise.all([sending, hooks]);
      // What is left unread is said by the next turn-ends (a few at a time).
      for (let i = 0; i < 100 && said.length < sent.length; i++) if ((await turnEnd()) === 0) break;

      expect(failures).toEqual([]);
      expect(sent.length).toBeGreaterThan(20);
      expect([...said].sort()).toEqual([...sent].sort());
    } finally {
      await sender.close();
      await client.close();
    }
  }, 90_000);
});
