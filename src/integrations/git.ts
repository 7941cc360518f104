import { runProgram } from './run-program.js';

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
