/**
 * A lock on a file shared by several processes: `<file>.lock`, created exclusively and holding the
 * taker's pid, taken with retries and exponential backoff. A lock whose holder is gone, or older
 * than any holder keeps one, is broken.
 */
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { processAlive } from './process-probe.js';

/** Waits between attempts to take a file's lock (then it gives up). */
const BACKOFF_MS = [100, 200, 400, 800, 1600];
/** A lock older than this was left by a process that died while holding it. */
const STALE_LOCK_MS = 10_000;

/** Takes `<file>.lock`; the function that gives it back, or null when it stayed taken through the retries. */
export function lockFile(file: string): (() => void) | null {
  const lock = `${file}.lock`;
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(lock, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        try {
          unlinkSync(lock);
        } catch {
          // already broken by another process as stale
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (stale(lock)) {
      try {
        unlinkSync(lock);
      } catch {
        // another process broke it first
      }
      continue;
    }
    const wait = BACKOFF_MS[attempt];
    if (wait === undefined) return null;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, wait);
  }
}

function stale(lock: string): boolean {
  try {
    const holder = Number(readFileSync(lock, 'utf8'));
    if (Number.isInteger(holder) && holder > 0 && !processAlive(holder, null)) return true;
    return Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS;
  } catch {
    return false;
  }
}
