/**
 * Checkpoints of a long-lived server's SQLite file on a thread of their own. SQLite copies its
 * write-ahead log into the database file every 1,000 pages by default, in the commit that crosses
 * that size: under many clients, a third of the machine server's time in SQLite went to commits
 * doing that (docs/benchmarks.md). With a checkpointer copying the log as it comes, on another
 * thread, those commits find it copied already.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Db } from './database.js';

export interface Checkpoints {
  /** SQLite's quick check of the file, run on the thread: 'ok' or what it found; null once the thread is gone. */
  quickCheck(): Promise<string | null>;
  stop(): Promise<void>;
}

/**
 * Starts the checkpointer for `db` (the server's connection) where the build has it
 * (dist/checkpointer.cjs beside this bundle); null where it has not (run from source) or `db` is
 * in memory. Should the thread fail, `db`'s commits checkpoint as before, all of it.
 */
export function checkpointsApart(
  db: Db,
  options: { busyTimeoutMs: number; onFailure: (message: string) => void },
): Checkpoints | null {
  if (db.name === ':memory:' || db.name === '') return null;
  const script = join(dirname(__filename), 'checkpointer.cjs');
  if (!__filename.endsWith('.cjs') || !existsSync(script)) return null;
  // Loaded here: a short process (a hook) never checkpoints apart, and node:worker_threads costs ~1 ms.
  const { Worker } = createRequire(__filename)('node:worker_threads') as typeof import('node:worker_threads');
  const worker = new Worker(script, {
    workerData: { file: db.name, everyMs: 50, busyTimeoutMs: options.busyTimeoutMs },
  });
  let stopped = false;
  /** Quick checks asked for and not yet answered, by number. */
  const checks = new Map<number, (detail: string | null) => void>();
  let nextCheck = 0;
  const fallBack = (message: string) => {
    if (stopped) return;
    stopped = true;
    for (const answer of checks.values()) answer(null);
    checks.clear();
    options.onFailure(message);
  };
  worker.on('message', (m: { failed?: string; verified?: number; detail?: string }) => {
    if (m.failed) options.onFailure(`a checkpoint failed: ${m.failed}`);
    if (m.verified !== undefined) {
      checks.get(m.verified)?.(m.detail ?? null);
      checks.delete(m.verified);
    }
  });
  worker.on('error', (error) => fallBack(error.message));
  worker.on('exit', (code) => {
    if (code !== 0) fallBack(`the checkpointer thread exited with ${code}`);
  });
  // The thread keeps no process alive: the server's own life decides.
  worker.unref();
  return {
    quickCheck() {
      if (stopped) return Promise.resolve(null);
      const id = nextCheck++;
      return new Promise((resolve) => {
        checks.set(id, resolve);
        worker.postMessage({ verify: id });
      });
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const answer of checks.values()) answer(null);
      checks.clear();
      const gone = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage({ stop: true });
      await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
    },
  };
}
