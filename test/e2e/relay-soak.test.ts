/**
 * The machine's server killed under load is invisible to its clients: real relays (each under its
 * own client process) claim, check and release for tens of seconds while the server is SIGKILLed
 * every few seconds, and one session waits for a person's answer across the kills. No client sees
 * an error, every claim is made once and released once, and the wait is answered. On the embedded
 * file and on PostgreSQL (the home's database_url: its server, relays and CLI all on it).
 */
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freshPgDatabase, pgAvailable } from '../helpers/pg.js';
import { openSqlite } from '../helpers/sqlite.js';
import { connectStdio, runCli, serverPid, stopServer, waitForExit } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

type Closable = { close: () => Promise<unknown> };
const open: Closable[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => {})));
});

/** How long the load runs, and how often the server is killed meanwhile. */
const SOAK_MS = 24_000;
const KILL_EVERY_MS = 5_000;
const WORKERS = 4;

let pgUp = false;
beforeAll(async () => {
  pgUp = await pgAvailable('test/e2e/relay-soak.test.ts');
});

/** The soak's claims of `session`, from the home's database. */
async function claimsOf(
  home: string,
  url: string | null,
  session: string,
): Promise<Array<{ id: string; status: string }>> {
  const sql = "SELECT id, status FROM claims WHERE session_id = ? AND intent = 'soak'";
  if (url) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(sql.replace('?', '$1'), [session])).rows;
    } finally {
      await client.end();
    }
  }
  const db = openSqlite(join(home, 'registry.db'), { readonly: true });
  try {
    return db.prepare(sql).all(session) as Array<{ id: string; status: string }>;
  } finally {
    db.close();
  }
}

describe.skipIf(process.platform !== 'linux').each(['sqlite', 'postgresql'] as const)(
  'the machine server killed under load (%s)',
  (backend) => {
    it('no client sees an error, every claim is made once and released once, a wait across the kills is answered', async (ctx) => {
      if (backend === 'postgresql' && !pgUp) return ctx.skip();
      const home = tempDir('collab-home-');
      const url = backend === 'postgresql' ? await freshPgDatabase() : null;
      if (url) writeFileSync(join(home, 'config.json'), JSON.stringify({ database_url: url }));
      const repo = gitRepo();
      const workers = await Promise.all(
        Array.from({ length: WORKERS }, async (_, i) => {
          const c = await connectStdio({ cwd: repo, home, name: `w${i}` });
          open.push(c);
          const { session_id } = await c.call<{ session_id: string }>('collab_session_start', {
            name: `w${i}`,
            project_root: repo,
          });
          return { c, session: session_id };
        }),
      );
      const waiter = await connectStdio({
        cwd: repo,
        home,
        name: 'waiter',
        args: ['--toolsets', 'collab,human'],
      });
      open.push(waiter);
      const asked = await waiter.call<{ question_id: string }>('ask_human', {
        question: 'Merge once the load is over?',
        wait_seconds: 0,
      });
      const waiting = waiter.call<{
        questions: Array<{ question_id: string; status: string; answer?: string }>;
      }>('check_answers', { question_ids: [asked.question_id], wait_seconds: 90 });

      let stop = false;
      const failures: string[] = [];
      const made: Array<Set<string>> = workers.map(() => new Set());
      const work = workers.map(async ({ c }, i) => {
        let cycles = 0;
        while (!stop) {
          const file = `src/w${i}-${cycles % 7}.ts`;
          try {
            const claim = await c.call<{ claim_id: string }>('collab_claim', {
              files: [file],
              intent: 'soak',
            });
            made[i]!.add(claim.claim_id);
            await c.call('collab_check', { files: [file] });
            await c.call('collab_release', { claim_id: claim.claim_id, status: 'completed' });
            cycles += 1;
          } catch (error) {
            failures.push((error as Error).message);
          }
        }
        return cycles;
      });

      // The killer: the server the relays have, every few seconds, while the load runs.
      const killed: number[] = [];
      const started = Date.now();
      while (Date.now() - started < SOAK_MS) {
        await new Promise((r) => setTimeout(r, KILL_EVERY_MS));
        const pid = serverPid(home);
        if (pid === null) continue;
        process.kill(pid, 'SIGKILL');
        await waitForExit(pid);
        killed.push(pid);
      }
      await new Promise((r) => setTimeout(r, 1_000));
      stop = true;
      const cycles = await Promise.all(work);

      expect(failures).toEqual([]);
      expect(killed.length).toBeGreaterThanOrEqual(4);
      for (const n of cycles) expect(n).toBeGreaterThan(0);
      // Served by a machine's server to the end (a server killed after serving is no crash loop).
      expect(serverPid(home)).not.toBeNull();

      // The wait, asked again of each next server, is answered.
      expect((await runCli(home, ['answer', asked.question_id, 'yes'])).code).toBe(0);
      expect((await waiting).questions).toEqual([
        expect.objectContaining({ question_id: asked.question_id, status: 'answered', answer: 'yes' }),
      ]);

      // The write-ahead log stays small under the load (its checkpoints run on the server's own
      // thread, store/checkpoints.ts): unchecked, thousands of writes would grow it past 100 MB.
      if (!url) expect(statSync(join(home, 'registry.db-wal')).size).toBeLessThan(32 * 1024 * 1024);

      // Every claim a client was told of exists once, and was released once: none is left active,
      // and none exists that no client was told of.
      await stopServer(home);
      for (const [i, { session }] of workers.entries()) {
        const rows = await claimsOf(home, url, session);
        expect(new Set(rows.map((r) => r.id))).toEqual(made[i]);
        expect(rows.filter((r) => r.status !== 'completed')).toEqual([]);
      }
    }, 90_000);
  },
);
