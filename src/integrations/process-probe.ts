import { readFileSync } from 'node:fs';

/**
 * The start time of a process, as the kernel reports it (clock ticks since boot, field 22 of
 * /proc/<pid>/stat). Together with the pid it identifies one process: a reused pid has another.
 * Null where /proc is not available.
 */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: split after the last `)`.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

/** Whether the process runs and, when its start time was recorded, is the same process. */
export function processAlive(pid: number, pidStart: string | null): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (pidStart === null) return true;
  const current = processStartTime(pid);
  return current === null || current === pidStart;
}
