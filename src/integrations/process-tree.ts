import { readFileSync, readlinkSync } from 'node:fs';
import { processStartTime } from './process-probe.js';
import { runProgram } from './run-program.js';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** Executable name as the kernel reports it (e.g. `bash`, `node`, `claude`). */
  comm: string;
  /** Command line, space-joined (empty when unreadable). */
  cmdline: string;
  /** Name of the executable file (for a script, its interpreter: `sh` runs a git hook). */
  exe: string;
  start: string | null;
}

function readProc(pid: number): ProcessInfo | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    } catch {
      cmdline = '';
    }
    let exe = comm;
    try {
      exe = readlinkSync(`/proc/${pid}/exe`).split('/').pop() ?? comm;
    } catch {
      exe = comm;
    }
    return { pid, ppid: Number(fields[1]), comm, cmdline, exe, start: fields[19] ?? null };
  } catch {
    return null;
  }
}

function readPs(pid: number): ProcessInfo | null {
  try {
    const out = runProgram('ps', ['-o', 'ppid=,comm=', '-p', String(pid)], {
      encoding: 'utf8',
      timeout: 1000,
    }).trim();
    const match = /^(\d+)\s+(.*)$/.exec(out);
    if (!match) return null;
    const comm = match[2]!.split('/').pop() ?? match[2]!;
    return { pid, ppid: Number(match[1]), comm, cmdline: match[2]!, exe: comm, start: processStartTime(pid) };
  } catch {
    return null;
  }
}

/**
 * A process of this host as another process named it (pid and start time): null unless it lives and
 * started when it was said to (a reused pid is another process).
 */
export function processNamed(pid: number, start: string): ProcessInfo | null {
  if (!Number.isSafeInteger(pid) || pid <= 1) return null;
  const info = (process.platform === 'linux' ? readProc : readPs)(pid);
  return info && info.start === start ? info : null;
}

/** The chain of ancestors of `pid` (its parent first), up to `depth` processes. */
export function ancestors(pid: number, depth = 12): ProcessInfo[] {
  const read = process.platform === 'linux' ? readProc : readPs;
  const out: ProcessInfo[] = [];
  let current = read(pid);
  while (current && out.length < depth) {
    if (current.ppid <= 1) break;
    const parent = read(current.ppid);
    if (!parent) break;
    out.push(parent);
    current = parent;
  }
  return out;
}

const SHELLS = new Set([
  'git',
  'sh',
  'bash',
  'dash',
  'zsh',
  'fish',
  'ksh',
  'mksh',
  'env',
  'timeout',
  'nice',
  'nohup',
  'npm',
  'npx',
  'pnpm',
  'yarn',
  'bunx',
  'cmd.exe',
  'powershell',
  'pwsh',
]);

/** Shells and launchers between a client and the commands it runs (`sh -c`, `npx`, git's hooks…). */
export function isLauncher(p: ProcessInfo): boolean {
  if (SHELLS.has(p.comm) || SHELLS.has(p.exe)) return true;
  // npm and npx run as `node …/npm-cli.js` / `npm exec …`.
  return /(^|[\s/])(npm-cli\.js|npx-cli\.js|npm exec|npx)(\s|$)/.test(p.cmdline) || p.comm.startsWith('npm ');
}

/**
 * The client process (Claude Code, Codex, an editor…) that a command runs under: the nearest
 * ancestor of `pid` that is not a shell or launcher. Two sessions in one folder have two clients.
 */
export function clientProcess(pid: number = process.pid): ProcessInfo | null {
  return ancestors(pid).find((p) => !isLauncher(p)) ?? null;
}

/** The terminal a process of this host reads from (`pts/3`), for a person to find it; null if none. */
export function terminalOf(pid: number): string | null {
  try {
    const target = readlinkSync(`/proc/${pid}/fd/0`);
    const m = /^\/dev\/((?:pts\/\d+)|(?:tty\w*))$/.exec(target);
    return m ? m[1]! : null;
  } catch {
    return null;
  }
}
