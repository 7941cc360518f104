import { readdirSync, readFileSync } from 'node:fs';

/**
 * Fields of /proc/<pid>/stat after the command name: state is field 3, the process group field 5,
 * the start time field 22.
 */
function procStat(pid: number): { state: string; group: number; start: string | null } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: split after the last `)`.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', group: Number(fields[2]), start: fields[19] ?? null };
  } catch {
    return null;
  }
}

/**
 * The start time of a process, as the kernel reports it (clock ticks since boot, field 22 of
 * /proc/<pid>/stat). Together with the pid it identifies one process: a reused pid has another.
 * Null where /proc is not available.
 */
export function processStartTime(pid: number): string | null {
  return procStat(pid)?.start ?? null;
}

/**
 * Whether the process runs and, when its start time was recorded, is the same process. A zombie
 * (exited, not yet reaped by its parent) does not run.
 */
export function processAlive(pid: number, pidStart: string | null): boolean {
  // Every check and every listed session asks about the same few processes, hundreds of times a
  // second under load: an answer holds for a moment (`SIGNAL_MS`, shorter than any process takes
  // to start, so that a hook run after a client exited finds it gone). Past it, a signal 0 is cheap and says at once when a process is gone; reading /proc (a
  // zombie, a reused pid) costs more, and its answer holds longer (`PROC_MS`).
  const key = `${pid}:${pidStart}`;
  const now = Date.now();
  const known = answers.get(key);
  if (known && now - known.signalled < SIGNAL_MS) return known.alive;
  let exists = true;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    exists = (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  let alive = exists;
  let read = now;
  if (exists && known?.alive && now - known.read < PROC_MS) read = known.read;
  else if (exists) {
    const stat = procStat(pid);
    alive =
      stat === null // no /proc: the signal said it exists
        ? true
        : stat.state !== 'Z' &&
          stat.state !== 'X' &&
          (pidStart === null || stat.start === null || stat.start === pidStart);
  }
  if (answers.size > 1_000) answers.clear();
  answers.set(key, { alive, signalled: now, read });
  return alive;
}

/** How long any answer holds (a signal not sent again). */
const SIGNAL_MS = 25;
/** How long an answer read from /proc holds while the signal still finds the process. */
const PROC_MS = 1_000;
const answers = new Map<string, { alive: boolean; signalled: number; read: number }>();

/** What a person needs to know of a process: its command line (bounded) and whether it is stopped. */
export function describeProcess(pid: number): { pid: number; command: string; stopped: boolean } | null {
  const stat = procStat(pid);
  if (stat === null) return null;
  let command = '';
  try {
    command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    // gone meanwhile, or not ours to read
  }
  return { pid, command: command.slice(0, 160), stopped: stat.state === 'T' || stat.state === 't' };
}

/** Whether any process of the process group `pgid` still exists (a zombie counts until reaped). */
export function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The live processes whose environment holds `marker` (NAME=value), each with its process group:
 * what a server started, found whatever group it has moved to since. Null where /proc cannot
 * tell (another system).
 */
export function markedProcesses(marker: string): Array<{ pid: number; group: number }> | null {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return null;
  }
  const found: Array<{ pid: number; group: number }> = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${entry}/environ`, 'utf8');
    } catch {
      continue; // gone meanwhile, or not ours to read
    }
    if (!`\0${environ}`.includes(`\0${marker}\0`)) continue;
    const stat = procStat(Number(entry));
    if (stat && stat.state !== 'Z' && stat.state !== 'X')
      found.push({ pid: Number(entry), group: stat.group });
  }
  return found;
}
