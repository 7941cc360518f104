import { readFileSync } from 'node:fs';

/** Fields of /proc/<pid>/stat after the command name: state is field 3, start time field 22. */
function procStat(pid: number): { state: string; start: string | null } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: split after the last `)`.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', start: fields[19] ?? null };
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
  // A signal 0 is cheap and says at once when a process is gone. Reading /proc (a zombie, a reused
  // pid) costs more; its answer holds for a moment, since every check and every listed session asks
  // about the same few processes.
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const key = `${pid}:${pidStart}`;
  const now = Date.now();
  const known = answers.get(key);
  if (known && now - known.at < ANSWER_MS) return known.alive;
  const stat = procStat(pid);
  const alive =
    stat === null // no /proc: the signal said it exists
      ? true
      : stat.state !== 'Z' &&
        stat.state !== 'X' &&
        (pidStart === null || stat.start === null || stat.start === pidStart);
  if (answers.size > 1_000) answers.clear();
  answers.set(key, { alive, at: now });
  return alive;
}

/** How long an answer read from /proc holds. */
const ANSWER_MS = 1_000;
const answers = new Map<string, { alive: boolean; at: number }>();

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
