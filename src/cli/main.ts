import { Command } from 'commander';
import { CollabError } from '../core/errors.js';

declare const __VERSION__: string | undefined;

const program = new Command()
  .name('session-collab')
  .description('Coordination hub for AI coding sessions that work on the same code.')
  .version(typeof __VERSION__ === 'string' ? __VERSION__ : '0.0.0-dev');

program
  .command('serve')
  .description('Run the MCP server over stdio (started by an MCP client)')
  .option('--toolsets <list>', 'comma-separated toolsets to expose (default from config: collab)')
  .action(async (options) => (await import('./serve.js')).serve(options));

program
  .command('status')
  .description('Show sessions, claims and conflicts per project')
  .option('--json', 'machine-readable output')
  .option('--all', 'include ended and inactive sessions, and idle projects')
  .action(async (options) => (await import('./status.js')).status(options));

program
  .command('doctor')
  .description('Check the home folder, configuration, database and versions')
  .option('--json', 'machine-readable output')
  .action(async (options) => (await import('./doctor.js')).doctor(options));

program.parseAsync().catch((error: unknown) => {
  if (error instanceof CollabError) {
    process.stderr.write(`session-collab: ${error.message}\n  → ${error.hint}\n`);
  } else {
    process.stderr.write(`session-collab: ${(error as Error).stack ?? String(error)}\n`);
  }
  process.exit(1);
});
