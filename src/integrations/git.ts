import { inline } from '../core/fence.js';
import { runProgram, runProgramAsync } from './run-program.js';

/**
 * Runs `git` in a folder and returns its raw standard output (callers trim or split it: `-z`
 * output must keep its leading spaces). Throws with git's message when it fails.
 */
export function gitOutput(
  cwd: string,
  args: string[],
  timeoutMs = 30_000,
  maxBytes = 64 * 1024 * 1024,
): string {
  return runProgram('git', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: timeoutMs,
    maxBuffer: maxBytes,
  });
}

/** One-line answers (`rev-parse` and the like), trimmed. */
export function git(cwd: string, ...args: string[]): string {
  return gitOutput(cwd, args).trim();
}

/** As `git`, but null when git fails (a missing ref, no repository). */
export function tryGit(cwd: string, ...args: string[]): string | null {
  try {
    return git(cwd, ...args);
  } catch {
    return null;
  }
}

/** As `gitOutput`, without blocking the process (what a serving process runs for a request). */
export function gitOutputAsync(
  cwd: string,
  args: string[],
  timeoutMs = 30_000,
  maxBytes = 64 * 1024 * 1024,
): Promise<string> {
  return runProgramAsync('git', args, { cwd, encoding: 'utf8', timeout: timeoutMs, maxBuffer: maxBytes });
}

/** As `tryGit`, without blocking: trimmed output, or null when git fails. */
export async function tryGitAsync(cwd: string, ...args: string[]): Promise<string | null> {
  try {
    return (await gitOutputAsync(cwd, args)).trim();
  } catch {
    return null;
  }
}

/** git's own words when it failed (its standard error, trimmed), for a reason. */
export function gitWords(error: unknown): string {
  const e = error as { stderr?: string; message?: string };
  return inline(e.stderr || e.message || String(error), 500);
}
