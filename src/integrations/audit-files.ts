/**
 * Per-session audit files, `sessions/<session-id>.jsonl` in the home folder: a human-readable
 * trail beside the database (which stays the source of truth). The first line is the session's
 * metadata; every other line one event. Several processes append to one file (the asker, the
 * process that polls Telegram, a terminal answering), each under a lock file taken with retries
 * and exponential backoff. A damaged file is set aside and started again; nothing here ever fails
 * the operation it records.
 */
import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { processAlive } from './process-probe.js';

/** Waits between attempts to take a file's lock (then it gives up and says so). */
const BACKOFF_MS = [100, 200, 400, 800, 1600];
/** A lock older than this was left by a process that died while holding it. */
const STALE_LOCK_MS = 10_000;
const SESSION_ID = /^[0-9a-f-]{36}$/;

export interface AuditProblem {
  event: 'audit.lock_timeout' | 'audit.damaged' | 'audit.failed';
  file: string;
  detail: string;
}

export class AuditFiles {
  constructor(
    readonly dir: string,
    private readonly report: (problem: AuditProblem) => void,
  ) {}

  fileOf(sessionId: string): string {
    return join(this.dir, `${sessionId}.jsonl`);
  }

  /**
   * Appends an event to the session's file, writing `metadata()` first when the file is new (or
   * was damaged and set aside).
   */
  append(sessionId: string, metadata: () => Record<string, unknown>, event: Record<string, unknown>): void {
    if (!SESSION_ID.test(sessionId)) return;
    const file = this.fileOf(sessionId);
    try {
      mkdirSync(this.dir, { recursive: true });
      const unlock = this.lock(file);
      if (!unlock) return;
      try {
        if (existsSync(file) && !this.firstLineIsMetadata(file)) {
          const aside = `${file}.damaged-${Date.now()}`;
          renameSync(file, aside);
          this.report({
            event: 'audit.damaged',
            file,
            detail: `set aside as ${aside}; a new file is started`,
          });
        }
        const lines = existsSync(file) ? '' : `${JSON.stringify({ type: 'session', ...metadata() })}\n`;
        appendFileSync(file, `${lines}${JSON.stringify({ t: new Date().toISOString(), ...event })}\n`);
      } finally {
        unlock();
      }
    } catch (error) {
      this.report({ event: 'audit.failed', file, detail: (error as Error).message });
    }
  }

  /** Session ids that have a file here (not archived). */
  sessions(): string[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => f.slice(0, -'.jsonl'.length))
      .filter((id) => SESSION_ID.test(id));
  }

  /** Moves a session's file to `archive/YYYY-MM-DD/` (the day it is archived). */
  archive(sessionId: string, now: number): void {
    const file = this.fileOf(sessionId);
    try {
      const day = new Date(now).toISOString().slice(0, 10);
      const target = join(this.dir, 'archive', day);
      mkdirSync(target, { recursive: true });
      const unlock = this.lock(file);
      if (!unlock) return;
      try {
        if (existsSync(file)) renameSync(file, join(target, `${sessionId}.jsonl`));
      } finally {
        unlock();
      }
    } catch (error) {
      this.report({ event: 'audit.failed', file, detail: (error as Error).message });
    }
  }

  private firstLineIsMetadata(file: string): boolean {
    try {
      const fd = openSync(file, 'r');
      try {
        const buffer = Buffer.alloc(4096);
        const n = readSync(fd, buffer, 0, buffer.length, 0);
        const first = buffer.subarray(0, n).toString('utf8').split('\n')[0] ?? '';
        return (JSON.parse(first) as { type?: unknown }).type === 'session';
      } finally {
        closeSync(fd);
      }
    } catch {
      return false;
    }
  }

  /** Takes `<file>.lock` (created exclusively); the function that gives it back, or null after the retries. */
  private lock(file: string): (() => void) | null {
    const lockFile = `${file}.lock`;
    for (let attempt = 0; ; attempt++) {
      try {
        const fd = openSync(lockFile, 'wx');
        writeSync(fd, String(process.pid));
        closeSync(fd);
        return () => {
          try {
            unlinkSync(lockFile);
          } catch {
            // already broken by another process as stale
          }
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      if (this.staleLock(lockFile)) {
        try {
          unlinkSync(lockFile);
        } catch {
          // another process broke it first
        }
        continue;
      }
      const wait = BACKOFF_MS[attempt];
      if (wait === undefined) {
        this.report({ event: 'audit.lock_timeout', file, detail: `${lockFile} stayed taken` });
        return null;
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, wait);
    }
  }

  private staleLock(lockFile: string): boolean {
    try {
      const holder = Number(readFileSync(lockFile, 'utf8'));
      if (Number.isInteger(holder) && holder > 0 && !processAlive(holder, null)) return true;
      return Date.now() - statSync(lockFile).mtimeMs > STALE_LOCK_MS;
    } catch {
      return false;
    }
  }
}
