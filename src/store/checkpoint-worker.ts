/**
 * The checkpointer of a long-lived server's SQLite file, on a worker thread (built as
 * dist/checkpointer.cjs; started by `checkpointsApart` in store/checkpoints.ts). It copies what
 * the write-ahead log holds into the database file as it comes, with its own connection, so that
 * the copying (and its fsyncs) never holds the server's event loop: a PASSIVE checkpoint waits for
 * no reader or writer. The server's commits still checkpoint past SQLite's 1,000 pages, as they
 * must for the log to start over (it does when a writer finds all of it copied), but find little
 * left to copy.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { pragmaValue, sqliteConnection } from './sqlite.js';

interface Settings {
  file: string;
  /** How often what the log holds is copied. */
  everyMs: number;
  busyTimeoutMs: number;
}

const settings = workerData as Settings;
const db = sqliteConnection(settings.file);
db.exec(`PRAGMA busy_timeout = ${settings.busyTimeoutMs}`);
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');

let failures = 0;
const timer = setInterval(() => {
  try {
    checkpoint.get();
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
