import { mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { recordedCall } from '../store/call-records-store.js';

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
export type LogLevel = keyof typeof LEVELS;

export interface Logger {
  debug(event: string, fields?: Record<string, unknown>): void;
  info(event: string, fields?: Record<string, unknown>): void;
  warn(event: string, fields?: Record<string, unknown>): void;
  error(event: string, fields?: Record<string, unknown>): void;
}

/** Lines of one event a process writes per minute at most; the rest are counted, not written. */
const PER_EVENT_PER_MINUTE = 120;
/** A field's text is cut to this many characters (a client's malformed message is quoted in errors). */
const FIELD_CHARS = 2_000;

/**
 * One JSON line per event in logs/collab.log; never throws (logging must not break a tool call).
 * A line logged in a call sent again after a write answered from its record says so
 * (`answered_from_record`): the write was done once, when the call was first sent.
 * The file is opened once, on the first line, in append mode: each line is one write, whole, however
 * many processes log at once. A client cannot fill the disk through it: each event writes at most
 * `PER_EVENT_PER_MINUTE` lines a minute (the next line says how many were left out) and long texts
 * are cut.
 */
export function createLogger(file: string, level: LogLevel): Logger {
  let fd: number | null = null;
  const minutes = new Map<string, { from: number; written: number; left: number }>();
  const bounded = (fields: Record<string, unknown> | undefined) => {
    if (!fields) return fields;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(fields))
      out[k] = typeof v === 'string' && v.length > FIELD_CHARS ? `${v.slice(0, FIELD_CHARS)}…` : v;
    return out;
  };
  const write = (lvl: LogLevel, event: string, given?: Record<string, unknown>) => {
    if (LEVELS[lvl] < LEVELS[level]) return;
    const now = Date.now();
    let minute = minutes.get(event);
    if (!minute || now - minute.from >= 60_000) {
      const left = minute?.left ?? 0;
      minute = { from: now, written: 0, left: 0 };
      minutes.set(event, minute);
      if (left > 0) given = { ...given, left_out: left };
    }
    if (minute.written >= PER_EVENT_PER_MINUTE) {
      minute.left += 1;
      return;
    }
    minute.written += 1;
    // A call sent again whose write was done before: the line tells of it again, not of a second.
    const fields = bounded(recordedCall()?.fromRecord ? { ...given, answered_from_record: true } : given);
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
