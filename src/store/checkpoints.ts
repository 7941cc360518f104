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
  /**
   * Before the server's connection begins a write: null, or, while the checkpointer asks for the
   * writes to pause (`LOG_RESTART_PAGES`), what resolves once it has copied the rest of the log.
   */
  gate(): Promise<void> | null;
  stop(): Promise<void>;
}

/** Where the checkpointer and the server's connection meet (an Int32Array over shared memory). */
export const PAUSE_WANTED = 0;
export const WRITES_PAUSED = 1;
/**
 * The log's size, in pages, at which the checkpointer has the server's writes pause while it copies
 * what is left: under a steady stream of commits a checkpoint beside them never copies all of the
 * log, and only a log copied whole starts over. SQLite's own default, so that another process's
 * commit (a hook's, at that default) seldom finds the log past its limit and copies it itself;
 * under a heavy load the log still grows past it between two ticks (10,000 pages were seen).
 */
export const LOG_RESTART_PAGES = 1_000;
/**
 * The server's connection checkpoints itself past this many pages only should the pauses fail to
 * hold the log back (SQLite's default, 1,000, copies and syncs in the commit that crosses it:
 * milliseconds the whole event loop waits).
 */
const OWN_CHECKPOINT_PAGES = 20_000;
/** How long a write waits for the checkpointer at most. */
const PAUSE_MAX_MS = 500;

/** `Atomics.waitAsync` (every Node this runs on has it; TypeScript's ES2022 library does not say so). */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(
      array: Int32Array,
      index: number,
      value: number,
      timeoutMs: number,
    ): { async: false; value: string } | { async: true; value: Promise<string> };
  }
).waitAsync;

/**
 * What a write of the server's connection waits for at its start (`Checkpoints.gate`), over the
 * flags it shares with the checkpointer: null while no pause is asked for; else it says the writes
 * are paused and resolves once the checkpointer lets them go, or after `maxMs`. A pause that ran
 * out (a checkpointer stuck in a slow disk's sync) is not waited for again until the checkpointer
 * has let that one go: the writes go on meanwhile, as they would without it.
 */
export function pauseGate(flags: Int32Array, maxMs: number): () => Promise<void> | null {
  let outwaited = false;
  return () => {
    if (Atomics.load(flags, PAUSE_WANTED) === 0) {
      outwaited = false;
      return null;
    }
    if (outwaited) return null;
    Atomics.store(flags, WRITES_PAUSED, 1);
    Atomics.notify(flags, WRITES_PAUSED);
    const wait = waitAsync(flags, PAUSE_WANTED, 1, maxMs);
    const resume = (outcome: string) => {
      if (outcome === 'timed-out') outwaited = true;
      Atomics.store(flags, WRITES_PAUSED, 0);
    };
    if (!wait.async) {
      resume(wait.value);
      return null;
    }
    return wait.value.then(resume);
  };
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
  const flags = new Int32Array(new SharedArrayBuffer(8));
  const gate = pauseGate(flags, PAUSE_MAX_MS);
  const worker = new Worker(script, {
    workerData: { file: db.name, everyMs: 50, busyTimeoutMs: options.busyTimeoutMs, flags: flags.buffer },
  });
  /** How many pages of log the server's own commits let by before they copy it. */
  const ownLimit = (pages: number) => {
    try {
      if (db.open) db.exec(`PRAGMA wal_autocheckpoint = ${pages}`);
    } catch {
      // closed meanwhile
    }
  };
  ownLimit(OWN_CHECKPOINT_PAGES);
  let stopped = false;
  /** The thread gone: the connection checkpoints itself as SQLite does, and no write waits. */
  const alone = () => {
    Atomics.store(flags, PAUSE_WANTED, 0);
    Atomics.notify(flags, PAUSE_WANTED);
    Atomics.store(flags, WRITES_PAUSED, 0);
    ownLimit(1_000);
  };
  /** Quick checks asked for and not yet answered, by number. */
  const checks = new Map<number, (detail: string | null) => void>();
  let nextCheck = 0;
  const fallBack = (message: string) => {
    if (stopped) return;
    stopped = true;
    alone();
    for (const answer of checks.values()) answer(null);
    checks.clear();
    options.onFailure(message);
  };
  worker.on('message', (m: { failed?: string; verified?: number; detail?: string }) => {
    if (m.failed) {
      // The thread's copies fail (a disk error, say): the connection copies the log itself again,
      // at SQLite's 1,000 pages, rather than let it grow to 20,000 meanwhile.
      ownLimit(1_000);
      options.onFailure(`a checkpoint failed: ${m.failed}`);
    }
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
    gate: () => (stopped ? null : gate()),
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
      alone();
      for (const answer of checks.values()) answer(null);
      checks.clear();
      const gone = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage({ stop: true });
      await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
    },
  };
}
