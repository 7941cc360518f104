/**
 * The checkpointer of a long-lived server's SQLite file, on a worker thread (built as
 * dist/checkpointer.cjs; started by `checkpointsApart` in store/checkpoints.ts). It copies what
 * the write-ahead log holds into the database file as it comes, with its own connection, so that
 * the copying (and its fsyncs) never holds the server's event loop: a PASSIVE checkpoint waits for
 * no reader or writer. For the log to start over (as a write does when it finds all of it copied),
 * it has the server's writes pause now and then (`restart`).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { LOG_RESTART_PAGES, PAUSE_WANTED, WRITES_PAUSED } from './checkpoints.js';
import { pragmaValue, sqliteConnection } from './sqlite.js';

interface Settings {
  file: string;
  /** How often what the log holds is copied. */
  everyMs: number;
  busyTimeoutMs: number;
  /** Shared with the server's connection (store/checkpoints.ts). */
  flags: SharedArrayBuffer;
}

/** How long the checkpointer waits for the server's writes to pause, at most, before it tries later. */
const PAUSE_WAIT_MS = 200;

const settings = workerData as Settings;
const flags = new Int32Array(settings.flags);
const db = sqliteConnection(settings.file);
db.exec(`PRAGMA busy_timeout = ${settings.busyTimeoutMs}`);
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');

/** Copies what the log holds: how many pages it holds, and whether all of them were copied. */
function copy(): { log: number; whole: boolean } {
  const { log, checkpointed } = checkpoint.get() as { log: number; checkpointed: number };
  return { log, whole: checkpointed >= log };
}

/**
 * Past `LOG_RESTART_PAGES`, the server's writes pause (each new one waits in `gate`) while the rest
 * of the log is copied, so that the next write starts it over: a copy beside a stream of commits
 * copies what was there when it began (and says it copied all of it), never what came meanwhile,
 * and only a log copied whole starts over. A write under way ends first; a server that writes
 * nothing within `PAUSE_WAIT_MS` adds nothing meanwhile either.
 */
function restart(): void {
  Atomics.store(flags, PAUSE_WANTED, 1);
  try {
    const deadline = Date.now() + PAUSE_WAIT_MS;
    for (let left = PAUSE_WAIT_MS; left > 0 && Atomics.load(flags, WRITES_PAUSED) === 0; ) {
      Atomics.wait(flags, WRITES_PAUSED, 0, left);
      left = deadline - Date.now();
    }
    copy();
  } finally {
    Atomics.store(flags, PAUSE_WANTED, 0);
    Atomics.notify(flags, PAUSE_WANTED);
  }
}

let failures = 0;
/** The log's length at the tick before. */
let before = -1;
const timer = setInterval(() => {
  try {
    const { log, whole } = copy();
    // Copied whole with nothing written since the tick before (the server idle): the next write
    // starts the log over, no pause needed. ("Whole" alone says little: a copy beside a stream of
    // commits says it copied all there was when it began.)
    if (log >= LOG_RESTART_PAGES && !(whole && log === before)) restart();
    before = log;
    failures = 0;
  } catch (error) {
    // Told once in a row, not on every tick (a damaged file fails every time).
    if (failures++ === 0) parentPort?.postMessage({ failed: (error as Error).message });
  }
}, settings.everyMs);

/** SQLite's quick check of the whole file: 'ok', or what it found (pages too damaged to read: why). */
function quickCheck(): string {
  try {
    return String(pragmaValue(db, 'quick_check'));
  } catch (error) {
    return (error as Error).message;
  }
}

parentPort?.on('message', (message: { stop?: boolean; verify?: number }) => {
  if (message.verify !== undefined) {
    parentPort?.postMessage({ verified: message.verify, detail: quickCheck() });
    return;
  }
  if (!message.stop) return;
  clearInterval(timer);
  db.close();
  parentPort?.close();
});
