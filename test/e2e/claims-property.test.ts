/**
 * Random claims, checks and releases from 4 server processes on one database, with random patterns
 * within the limits: every call answers (none waits on another's lock for long), exclusivity holds
 * across processes, and the database is intact afterwards.
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { glob, overlap } from '../../src/core/glob.js';
import { openSqlite, pragmaValue } from '../helpers/sqlite.js';
import { connectStdio } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

const PROCESSES = 4;
const OPS = 40;
/** A call that takes longer than this has waited on something it should not (the usual is ms). */
const ANSWER_BOUND_MS = 5_000;

type Server = Awaited<ReturnType<typeof connectStdio>>;
const open: Server[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

const segment = fc.oneof(
  fc.constantFrom('src', 'lib', 'api', 'a', 'b', 'x.ts', 'y.ts'),
  fc.constantFrom('*', '**', '*.ts', '?', '[ab]', '{a,b}', '{src,lib}'),
);
const pattern = fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => s.join('/'));
const op = fc.oneof(
  fc.record({
    kind: fc.constant('claim' as const),
    files: fc.array(pattern, { minLength: 1, maxLength: 3 }),
    exclusive: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('check' as const),
    files: fc.array(pattern, { minLength: 1, maxLength: 3 }),
  }),
  fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
);

async function bounded<T>(what: string, call: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not answer within ${ANSWER_BOUND_MS} ms`)),
      ANSWER_BOUND_MS,
    );
  });
  try {
    return await Promise.race([call, limit]);
  } finally {
    clearTimeout(timer);
  }
}

describe('random claims from several processes', () => {
  it(`${PROCESSES} processes × ${OPS} random operations: every answer comes, exclusivity holds, integrity_check passes`, async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const servers = await Promise.all(
      Array.from({ length: PROCESSES }, () => connectStdio({ cwd: repo, home })),
    );
    open.push(...servers);
    const plans = fc.sample(fc.array(op, { minLength: OPS, maxLength: OPS }), {
      numRuns: PROCESSES,
      seed: 20261122,
    });
    await Promise.all(
      servers.map(async (server, p) => {
        const mine: string[] = [];
        for (const step of plans[p]!) {
          if (step.kind === 'claim') {
            const result = await bounded(
              'collab_claim',
              server.client.callTool({
                name: 'collab_claim',
                arguments: { files: step.files, intent: `p${p}`, exclusive: step.exclusive },
              }),
            );
            const body = result.structuredContent as { claim_id?: string; error?: { code: string } };
            if (result.isError) expect(['CLAIM_CONFLICT', 'INVALID_INPUT']).toContain(body.error!.code);
            else mine.push(body.claim_id!);
          } else if (step.kind === 'check') {
            const result = await bounded(
              'collab_check',
              server.client.callTool({ name: 'collab_check', arguments: { files: step.files } }),
            );
            expect(
              result.isError ? (result.structuredContent as { error: { code: string } }).error.code : 'ok',
            ).toMatch(/ok|INVALID_INPUT/);
          } else if (mine.length > 0) {
            const id = mine.splice(step.pick % mine.length, 1)[0]!;
            const result = await bounded(
              'collab_release',
              server.client.callTool({
                name: 'collab_release',
                arguments: { claim_id: id, status: 'completed' },
              }),
            );
            expect(result.isError).toBeFalsy();
          }
        }
      }),
    );
    const db = openSqlite(join(home, 'registry.db'), { readonly: true });
    try {
      expect(pragmaValue(db, 'integrity_check')).toBe('ok');
      const live = db
        .prepare(
          "SELECT c.id, c.session_id, c.exclusive, f.pattern FROM claims c JOIN claim_files f ON f.claim_id = c.id WHERE c.status = 'active'",
        )
        .all() as Array<{ id: string; session_id: string; exclusive: number; pattern: string }>;
      // No exclusive claim overlaps any other session's active claim.
      for (const x of live.filter((r) => r.exclusive === 1)) {
        for (const y of live) {
          if (y.session_id === x.session_id) continue;
          expect(
            overlap(glob(x.pattern), glob(y.pattern)),
            `${x.pattern} (exclusive) vs ${y.pattern}`,
          ).toBeNull();
        }
      }
    } finally {
      db.close();
    }
  }, 120_000);
});
