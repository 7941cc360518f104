import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqlite } from '../helpers/sqlite.js';
import { connectStdio } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

const PROCESSES = 8;

/**
 * `count` servers on one database: each under a client process of its own (as real clients run
 * them), or all started by this one process (`direct`, as an orchestrator does).
 */
async function startServers(count: number, direct = false) {
  const home = tempDir('collab-home-');
  const repo = gitRepo();
  const servers = await Promise.all(
    Array.from({ length: count }, (_, i) => connectStdio({ cwd: repo, home, name: `racer-${i}`, direct })),
  );
  await Promise.all(
    servers.map((s, i) => s.call('collab_session_start', { name: `racer-${i}`, project_root: repo })),
  );
  return { home, repo, servers };
}

describe('races between real server processes on one database', () => {
  it.each([
    ['each under its own client process', false],
    ['all started by one parent process', true],
  ])(
    `${PROCESSES} processes (%s) claim the same file exclusively, 200 rounds: exactly one winner per round`,
    async (_label, direct) => {
      const { home, servers } = await startServers(PROCESSES, direct);
      try {
        const winners: number[] = [];
        for (let round = 0; round < 200; round++) {
          const results = await Promise.all(
            servers.map((s) =>
              s.client.callTool({
                name: 'collab_claim',
                arguments: { files: [`src/round-${round}.ts`], intent: `round ${round}`, exclusive: true },
              }),
            ),
          );
          const won = results.filter((r) => !r.isError);
          const lost = results.filter((r) => r.isError);
          expect(
            lost.every(
              (r) => (r.structuredContent as { error: { code: string } }).error.code === 'CLAIM_CONFLICT',
            ),
          ).toBe(true);
          winners.push(won.length);
        }
        expect(winners.every((n) => n === 1)).toBe(true);
        const db = openSqlite(join(home, 'registry.db'), { readonly: true });
        const rows = db
          .prepare(
            "SELECT f.pattern, COUNT(*) AS n FROM claim_files f JOIN claims c ON c.id = f.claim_id WHERE c.status = 'active' GROUP BY f.pattern",
          )
          .all() as Array<{ n: number }>;
        db.close();
        expect(rows).toHaveLength(200);
        expect(rows.every((r) => r.n === 1)).toBe(true);
      } finally {
        await Promise.all(servers.map((s) => s.close()));
      }
    },
    120_000,
  );

  it(`${PROCESSES} processes claim, check and release for a while: no busy errors, nothing lost or duplicated`, async () => {
    const { home, servers } = await startServers(PROCESSES);
    const ITERATIONS = 60;
    try {
      const perProcess = await Promise.all(
        servers.map(async (s, i) => {
          const ids: string[] = [];
          const errors: unknown[] = [];
          for (let k = 0; k < ITERATIONS; k++) {
            const claim = await s.client.callTool({
              name: 'collab_claim',
              arguments: { files: [`shared/${k % 5}.ts`, `own/${i}/${k}.ts`], intent: `iteration ${k}` },
            });
            if (claim.isError) {
              errors.push(claim.structuredContent);
              continue;
            }
            const id = (claim.structuredContent as { claim_id: string }).claim_id;
            ids.push(id);
            const check = await s.client.callTool({
              name: 'collab_check',
              arguments: { files: [`shared/${(k + 1) % 5}.ts`] },
            });
            if (check.isError) errors.push(check.structuredContent);
            const release = await s.client.callTool({
              name: 'collab_release',
              arguments: { claim_id: id, status: 'completed' },
            });
            if (release.isError) errors.push(release.structuredContent);
          }
          return { ids, errors };
        }),
      );
      const errors = perProcess.flatMap((p) => p.errors);
      expect(errors).toEqual([]);
      const ids = perProcess.flatMap((p) => p.ids);
      expect(ids).toHaveLength(PROCESSES * ITERATIONS);
      expect(new Set(ids).size).toBe(ids.length);
      const db = openSqlite(join(home, 'registry.db'), { readonly: true });
      const counts = db.prepare('SELECT status, COUNT(*) AS n FROM claims GROUP BY status').all();
      const files = db.prepare('SELECT COUNT(*) AS n, SUM(active) AS live FROM claim_files').get();
      db.close();
      expect(counts).toEqual([{ status: 'completed', n: PROCESSES * ITERATIONS }]);
      expect(files).toEqual({ n: PROCESSES * ITERATIONS * 2, live: 0 });
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  }, 120_000);
});
