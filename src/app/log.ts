import { mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
export type LogLevel = keyof typeof LEVELS;

export interface Logger {
  debug(event: string, fields?: Record<string, unknown>): void;
  info(event: string, fields?: Record<string, unknown>): void;
  warn(event: string, fields?: Record<string, unknown>): void;
  error(event: string, fields?: Record<string, unknown>): void;
}

/**
 * One JSON line per event in logs/collab.log; never throws (logging must not break a tool call).
 * The file is opened once, on the first line, in append mode: each line is one write, whole, however
 * many processes log at once.
 */
export function createLogger(file: string, level: LogLevel): Logger {
  let fd: number | null = null;
  const write = (lvl: LogLevel, event: string, fields?: Record<string, unknown>) => {
    if (LEVELS[lvl] < LEVELS[level]) return;
    try {
      if (fd === null) {
        mkdirSync(dirname(file), { recursive: true });
        fd = openSync(file, 'a');
      }
      // The line's own keys win over fields of the same name.
      writeSync(
        fd,
        `${JSON.stringify({ ...fields, t: new Date().toISOString(), level: lvl, pid: process.pid, event })}\n`,
      );
    } catch {
      // The log is best effort.
    }
  };
  return {
    debug: (e, f) => write('debug', e, f),
    info: (e, f) => write('info', e, f),
    warn: (e, f) => write('warn', e, f),
    error: (e, f) => write('error', e, f),
  };
}
