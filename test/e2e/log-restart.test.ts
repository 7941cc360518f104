/**
 * The machine's server under a steady stream of writes keeps SQLite's write-ahead log short: its
 * checkpointer (store/checkpoints.ts) pauses the server's writes for a moment past 1,000 pages so
 * that the log, copied whole, starts over; the server's own commits never copy it (they would past
 * 20,000 pages, the fallback, should the pauses fail). Read off the log's index (the `-shm` file),
 * sampled while four real clients claim and release through their relays.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileHeader } from '../helpers/sqlite.js';
import { connectStdio, stopServer } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

type Closable = { close: () => Promise<unknown> };
const open: Closable[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => {})));
});

/**
 * The frames the log holds now: `mxFrame` of the log index's header (its first copy, at byte 16 of
 * the `-shm` file, in the machine's byte order); null before the file has it.
 */
function framesInLog(home: string): number | null {
  return fileHeader(join(home, 'registry.db-shm'), 48)?.readUInt32LE(16) ?? null;
}

describe.skipIf(process.platform !== 'linux' || process.arch !== 'x64')(
  'the write-ahead log under load',
  () => {
    it('starts over again and again: the server pauses its writes for the checkpointer rather than copy the log itself', async () => {
      const home = tempDir('collab-home-');
      const repo = gitRepo();
      const clients = await Promise.all(
        Array.from({ length: 4 }, async (_, i) => {
          const c = await connectStdio({ cwd: repo, home, name: `w${i}` });
          open.push(c);
          return c;
        }),
      );
      const samples: number[] = [];
      const sampling = setInterval(() => {
        const frames = framesInLog(home);
        if (frames !== null) samples.push(frames);
      }, 10);
      try {
        // ~30 pages a cycle (a claim and its release): 4 × 250 cycles write ~30,000 pages, past the
        // fallback's 20,000 were the log never to start over.
        await Promise.all(
          clients.map(async (c, i) => {
            for (let n = 0; n < 250; n++) {
              const { claim_id } = await c.call<{ claim_id: string }>('collab_claim', {
                files: [`src/w${i}/f${n}.ts`],
                intent: 'log',
              });
              await c.call('collab_release', { claim_id, status: 'completed' });
            }
          }),
        );
      } finally {
        clearInterval(sampling);
      }
      const restarts = samples.filter((frames, k) => k > 0 && frames < samples[k - 1]!).length;
      expect(samples.length).toBeGreaterThan(20);
      // Without the pauses the log starts over once in those pages, at the fallback's 20,000; with
      // them, every 1,000–3,000 or so (how far past 1,000 it grows between two ticks depends on the
      // machine's load, so the count is what is asserted, not a length).
      expect(restarts).toBeGreaterThanOrEqual(3);
      await stopServer(home);
    }, 60_000);
  },
);
