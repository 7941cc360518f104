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
  readSync,
  renameSync,
} from 'node:fs';
import { join } from 'node:path';
import { lockFile } from './file-lock.js';

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
      const unlock = lockFile(file);
      if (!unlock) {
        this.report({ event: 'audit.lock_timeout', file, detail: `${file}.lock stayed taken` });
        return;
      }
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
      const unlock = lockFile(file);
      if (!unlock) {
        this.report({ event: 'audit.lock_timeout', file, detail: `${file}.lock stayed taken` });
        return;
      }
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
}
