import { sep } from 'node:path';
import { resolveHome } from '../app/home.js';
import { CollabError, ERROR_CODES } from '../core/errors.js';
import { describeStorageFault } from '../core/storage-faults.js';

/** What a person at a terminal does next, where an error's own hint names tools. */
const TERMINAL_HINT =
  'Add --help to the command for what it takes; `session-collab status` shows the sessions and claims, with their ids.';
const TERMINAL_HINTS: Partial<Record<keyof typeof ERROR_CODES, string>> = {
  INVALID_INPUT: 'Add --help to the command for what it takes.',
};

/**
 * A storage fault said of the file it is about: a file outside the home folder (a project's file a
 * command writes) by its own path; the database's faults of the database file; the rest of the home.
 */
function storageFault(error: unknown): CollabError | null {
  const paths = resolveHome();
  const path = (error as { path?: unknown } | null)?.path;
  const code = String((error as { code?: unknown } | null)?.code ?? '');
  if (typeof path === 'string' && path !== paths.home && !path.startsWith(`${paths.home}${sep}`)) {
    if (!/^E[A-Z]+$/.test(code)) return null;
    return new CollabError(
      'CONFIG_ERROR',
      `${path} could not be written or read (${(error as Error).message}).`,
      code === 'ENOTDIR' || code === 'EISDIR'
        ? 'A file stands where a folder is needed, or a folder where a file is: move it away and run the command again.'
        : 'Check that path (its permissions, the disk) and run the command again.',
    );
  }
  const message = String((error as Error | null)?.message ?? '');
  const ofDatabase =
    /SQLITE/.test(code) || /not a database|malformed|database is locked|disk image/i.test(message);
  return describeStorageFault(error, ofDatabase ? paths.database : paths.home);
}

/**
 * A command that failed: one line naming the fault and what to do (a stack only for the
 * unforeseen); exit 1. Asked for `--json`, the same on standard output as `{"error": {code,
 * message, hint}}`, so that a script reads a failure where it reads an answer.
 */
export function failed(error: unknown): never {
  // A CollabError of the hub's bundle is another class: known by its name.
  const collab = error instanceof CollabError || (error as Error | null)?.name === 'CollabError';
  const fault = collab ? (error as CollabError) : storageFault(error);
  let said: { code: string; message: string; hint: string };
  if (fault) {
    // The default hints speak to agents in tool names; a person at a terminal gets the commands.
    const code = (fault as CollabError).code;
    // A default hint that already names a command (`session-collab token list`) is kept.
    const toolHint = collab && fault.hint === ERROR_CODES[code] && !fault.hint.includes('`session-collab');
    const hint = toolHint ? (TERMINAL_HINTS[code] ?? TERMINAL_HINT) : fault.hint;
    process.stderr.write(`session-collab: ${fault.message}\n  → ${hint}\n`);
    said = { code: fault.code, message: fault.message, hint };
  } else {
    process.stderr.write(`session-collab: ${(error as Error).stack ?? String(error)}\n`);
    said = {
      code: 'INTERNAL_ERROR',
      message: (error as Error)?.message ?? String(error),
      hint: ERROR_CODES.INTERNAL_ERROR,
    };
  }
  if (process.argv.includes('--json'))
    process.stdout.write(`${JSON.stringify({ error: said })}\n`, () => process.exit(1));
  else process.exit(1);
  // Until the write is handed over: nothing else runs meanwhile.
  return undefined as never;
}
