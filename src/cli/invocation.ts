import { existsSync, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { shellQuote } from '../core/shell-words.js';

/**
 * The command line that runs this session-collab from a hook or a client's config: this Node and
 * this install's executable, by absolute path, so it works without `session-collab` on PATH.
 * (The CLI runs as a CommonJS bundle in dist/, next to the executable.)
 */
export function cliInvocation(): { command: string; args: string[]; line: string } {
  const cli = join(__dirname, 'cli.cjs');
  return {
    command: process.execPath,
    args: [cli],
    line: `${shellQuote(process.execPath)} ${shellQuote(cli)}`,
  };
}

/** Whether `session-collab` on PATH is this install (then files and messages may just say so). */
export function onPathIsThis(): boolean {
  const own = realpathOrNull(join(__dirname, 'cli.cjs'));
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'session-collab');
    if (own && existsSync(candidate) && realpathOrNull(candidate) === own) return true;
  }
  return false;
}

/** The command a person types to run this install: `session-collab` when PATH has it, else by path. */
export function commandForPerson(): string {
  return onPathIsThis() ? 'session-collab' : cliInvocation().line;
}

function realpathOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null; // unreadable PATH entries are skipped
  }
}
