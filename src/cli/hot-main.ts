/**
 * The entry of the commands that run on every edit or commit (`hook`, `guard check`): bundled apart
 * from the rest of the CLI (no commander, no MCP SDK), so that they start fast.
 */
import { guardCheck } from './guard-check.js';
import { hook } from './hook.js';

const [command, arg] = process.argv.slice(2);
if (command === 'hook') void hook(arg ?? '');
else if (command === 'guard' && arg === 'check') void guardCheck();
else {
  process.stderr.write(`session-collab: unexpected command for the hot entry: ${command}\n`);
  process.exitCode = 2;
}
