/**
 * Running another agent CLI as a sub-worker: finding its executable, and running it with the
 * prompt on stdin in a process group of its own, reading its output line by line, bounded in time
 * and size. Cancelling or timing out kills the whole group (the CLI and whatever it started).
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { groupExists, markedProcesses } from './process-probe.js';

/**
 * The variable every run's CLI gets (its run's id): it marks the CLI and what it starts, so that a
 * later server can tell a group this product started from another that was given the same id.
 */
const RUN_MARKER = 'SESSION_COLLAB_AGENT_RUN';

/** How long a process group is given to end on SIGTERM before it is killed. */
const GRACE_MS = 2_000;

/**
 * Ends a process group: SIGTERM to all of it, then SIGKILL to what is left after the grace time.
 * Resolves once no process of the group remains (or, past the grace, once SIGKILL is sent).
 */
export async function endProcessGroup(pgid: number, graceMs = GRACE_MS): Promise<void> {
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-pgid, name);
    } catch {
      // gone
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (groupExists(pgid)) {
    if (Date.now() >= deadline) {
      signal('SIGKILL');
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Where each CLI is usually installed, besides PATH. */
const USUAL_PATHS: Record<string, string[]> = {
  claude: [
    '~/.claude/local/claude',
    '~/.local/bin/claude',
    '/usr/local/bin/claude',
    '/opt/homebrew/bin/claude',
    '~/.npm-global/bin/claude',
  ],
  codex: ['~/.local/bin/codex', '/usr/local/bin/codex', '/opt/homebrew/bin/codex', '~/.npm-global/bin/codex'],
  gemini: [
    '~/.local/bin/gemini',
    '/usr/local/bin/gemini',
    '/opt/homebrew/bin/gemini',
    '~/.npm-global/bin/gemini',
  ],
};

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The CLI's executable: on PATH, then in the usual install paths, then at `<NAME>_PATH`
 * (CLAUDE_PATH, CODEX_PATH, GEMINI_PATH). `tried` lists every place looked at, for the error.
 */
export function findCli(
  name: string,
  env: NodeJS.ProcessEnv = process.env,
): { path: string | null; tried: string[] } {
  const tried: string[] = [];
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    if (executable(candidate)) return { path: candidate, tried };
  }
  tried.push(`PATH (${name})`);
  for (const usual of USUAL_PATHS[name] ?? []) {
    const candidate = usual.startsWith('~/') ? join(homedir(), usual.slice(2)) : usual;
    tried.push(candidate);
    if (executable(candidate)) return { path: candidate, tried };
  }
  const variable = `${name.toUpperCase()}_PATH`;
  const fromEnv = env[variable];
  tried.push(`$${variable}${fromEnv ? ` (${fromEnv})` : ' (not set)'}`);
  if (fromEnv && executable(fromEnv)) return { path: fromEnv, tried };
  return { path: null, tried };
}

/**
 * Ends whatever carries a run's mark (its environment), wherever it is (Linux, through /proc): a
 * group whose leader carries it whole, a marked process in another group (one that left the CLI's
 * group) alone. Whether anything was; null where /proc cannot tell.
 */
export function endMarked(runId: string): Promise<boolean | null> {
  return endMarkedBy(`${RUN_MARKER}=${runId}`);
}

/** As `endMarked`, for any mark (`NAME=value` in the environment). */
export async function endMarkedBy(marker: string): Promise<boolean | null> {
  const marked = markedProcesses(marker);
  if (marked === null) return null;
  if (marked.length === 0) return false;
  const pids = new Set(marked.map((p) => p.pid));
  const groups = new Set(marked.filter((p) => pids.has(p.group)).map((p) => p.group));
  const alone = marked.filter((p) => !groups.has(p.group)).map((p) => p.pid);
  await Promise.all([...[...groups].map((g) => endProcessGroup(g)), ...alone.map((pid) => endProcess(pid))]);
  return true;
}

/**
 * Ends what a run's CLI left running after its server was killed: what carries its mark, or,
 * where /proc cannot tell, the group recorded (`pgid`) when it exists and the run is younger than
 * `maxAgeMs` (its own timeout would have ended it by then, and the id may since have gone to
 * another group). Whether anything was ended.
 */
export async function endLeftGroup(
  pgid: number | null,
  runId: string,
  ageMs: number,
  maxAgeMs: number,
): Promise<boolean> {
  const marked = await endMarked(runId);
  if (marked !== null) return marked;
  if (pgid === null || ageMs > maxAgeMs || !groupExists(pgid)) return false;
  await endProcessGroup(pgid);
  return true;
}

/** Ends one process: SIGTERM, then SIGKILL after the grace time. */
async function endProcess(pid: number, graceMs = GRACE_MS): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    if (Date.now() >= deadline) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface CliRun {
  /** Exit code, or null when a signal ended it. */
  code: number | null;
  timedOut: boolean;
  cancelled: boolean;
  /** A line was longer than `maxLineChars` and was dropped. */
  truncated: boolean;
  /** The end of its stderr (2,000 characters), for an error message. */
  stderr: string;
}

/**
 * Runs `file args` in `cwd` with `input` on stdin (UTF-8), calling `onLine` for each line of its
 * stdout (a line over `maxLineChars` is dropped). Ends it (and its whole process group: SIGTERM,
 * then SIGKILL 2 s later) when `timeoutMs` pass or `signal` aborts; then resolves once the group is
 * gone.
 */
export function runCli(options: {
  file: string;
  args: string[];
  cwd: string;
  input: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs: number;
  maxLineChars: number;
  signal: AbortSignal;
  onLine: (line: string) => void;
  /** The run this is: marked in the CLI's environment (see endLeftGroup). */
  runId?: string;
  /** Called once the CLI runs, with its pid (the id of its process group). */
  onSpawn?: (pid: number) => void;
}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const env = options.env ?? process.env;
    const child = spawn(options.file, options.args, {
      cwd: options.cwd,
      env: options.runId ? { ...env, [RUN_MARKER]: options.runId } : env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true, // a process group of its own, to end it whole
    });
    let timedOut = false;
    let cancelled = false;
    let truncated = false;
    let pending = '';
    let stderr = '';
    const decoder = new StringDecoder('utf8');
    // Set once the group is being ended (timeout or cancel): the run is over when the group is gone.
    let ending: Promise<void> | null = null;
    // Once the CLI has exited and its group was ended, a process that left the group may still
    // hold the output pipes open, which would keep 'close' from ever coming: they are closed then.
    const closeWhenEnded = () => {
      if (ending === null || (child.exitCode === null && child.signalCode === null)) return;
      void ending.then(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      });
    };
    const endGroup = () => {
      if (child.pid === undefined || ending !== null) return;
      // The group, then anything of the run's that left it.
      const runId = options.runId;
      ending = endProcessGroup(child.pid).then(async () => {
        if (runId) await endMarked(runId);
      });
      closeWhenEnded();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      endGroup();
    }, options.timeoutMs);
    const onAbort = () => {
      cancelled = true;
      endGroup();
    };
    options.signal.addEventListener('abort', onAbort, { once: true });
    // Lines are handed on one by one; a line longer than maxLineChars is dropped (and said so),
    // so that memory stays bounded whatever the CLI prints.
    let skipping = false;
    const take = (text: string) => {
      pending += text;
      let nl = pending.indexOf('\n');
      while (nl !== -1) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        if (skipping) skipping = false;
        else if (line.length > options.maxLineChars) truncated = true;
        else if (line.trim()) options.onLine(line);
        nl = pending.indexOf('\n');
      }
      if (pending.length > options.maxLineChars) {
        truncated = true;
        skipping = true;
        pending = '';
      }
    };
    child.stdout.on('data', (chunk: Buffer) => take(decoder.write(chunk)));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-2_000);
    });
    child.stdin.on('error', () => {}); // a CLI that exits before reading its input
    child.on('error', (error) => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.on('exit', closeWhenEnded);
    child.on('close', (code) => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      take(`${decoder.end()}\n`);
      // Whatever the CLI started in its group goes with it when it was ended.
      void (ending ?? Promise.resolve()).then(() =>
        resolve({ code, timedOut, cancelled, truncated, stderr }),
      );
    });
    if (child.pid !== undefined) options.onSpawn?.(child.pid);
    child.stdin.end(options.input, 'utf8');
    if (options.signal.aborted) onAbort();
  });
}
