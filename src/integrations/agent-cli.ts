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
 * then SIGKILL 2 s later) when `timeoutMs` pass or `signal` aborts.
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
}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.file, options.args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true, // a process group of its own, to end it whole
    });
    let timedOut = false;
    let cancelled = false;
    let truncated = false;
    let pending = '';
    let stderr = '';
    const decoder = new StringDecoder('utf8');
    const endGroup = () => {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      setTimeout(() => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // gone
        }
      }, 2_000).unref();
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
    child.on('close', (code) => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      take(`${decoder.end()}\n`);
      resolve({ code, timedOut, cancelled, truncated, stderr });
    });
    child.stdin.end(options.input, 'utf8');
    if (options.signal.aborted) onAbort();
  });
}
