import { readFileSync, statSync } from 'node:fs';
import { describeProcess } from './process-probe.js';

/**
 * SQLite's write locks are POSIX locks: in WAL mode on byte 120 of the `-shm` file (the checkpoint
 * and recovery locks are bytes 121 and 122); before WAL is set up (a file another program created)
 * on the reserved and pending bytes of the database file itself. Linux lists POSIX locks in
 * /proc/locks with the pid that holds them, so the process keeping everyone waiting can be named.
 */
const WAL_LOCK_BYTES = new Set(['120', '121', '122']);
const ROLLBACK_LOCK_BYTES = new Set(['1073741824', '1073741825']);

function inodeOf(file: string): number | null {
  try {
    return statSync(file).ino;
  } catch {
    return null;
  }
}

/** The process holding the database's write lock, when this system can tell; else null. */
export function writeLockHolder(
  databaseFile: string,
): { pid: number; command: string; stopped: boolean } | null {
  let locks: string;
  try {
    locks = readFileSync('/proc/locks', 'utf8');
  } catch {
    return null;
  }
  const shm = inodeOf(`${databaseFile}-shm`);
  const main = inodeOf(databaseFile);
  for (const line of locks.split('\n')) {
    // "1: POSIX  ADVISORY  WRITE 8949 fe:00:2146513 120 120"
    const f = line.trim().split(/\s+/);
    if (f[1] !== 'POSIX' || f[3] !== 'WRITE' || Number(f[4]) === process.pid) continue;
    const inode = Number(f[5]?.split(':')[2]);
    const byte = f[6] ?? '';
    const held =
      (inode === shm && WAL_LOCK_BYTES.has(byte)) || (inode === main && ROLLBACK_LOCK_BYTES.has(byte));
    if (held) return describeProcess(Number(f[4])) ?? { pid: Number(f[4]), command: '', stopped: false };
  }
  return null;
}

/**
 * Processes that have the database open (in WAL mode each connection keeps a shared lock in the
 * `-shm` file while it is open), other than this one. Empty where the system cannot tell.
 */
export function databaseUsers(
  databaseFile: string,
): Array<{ pid: number; command: string; stopped: boolean }> {
  let locks: string;
  try {
    locks = readFileSync('/proc/locks', 'utf8');
  } catch {
    return [];
  }
  const inodes = [inodeOf(`${databaseFile}-shm`), inodeOf(databaseFile)].filter((i) => i !== null);
  const pids = new Set<number>();
  for (const line of locks.split('\n')) {
    const f = line.trim().split(/\s+/);
    const pid = Number(f[4]);
    if (f[1] !== 'POSIX' || pid === process.pid || !inodes.includes(Number(f[5]?.split(':')[2]))) continue;
    pids.add(pid);
  }
  return [...pids].map((pid) => describeProcess(pid) ?? { pid, command: '', stopped: false });
}
