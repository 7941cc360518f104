import { join } from 'node:path';
import { shellQuote } from '../core/shell-command.js';

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
