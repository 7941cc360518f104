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
  .command('init')
  .description('Set up this project for your agent clients: MCP server, hooks, collaboration rules')
  .option(
    '--client <names>',
    'claude, codex, gemini, cursor (comma-separated) or all; default: the ones found here, else claude',
  )
  .option('--dry-run', 'print what would change, as a diff, and write nothing')
  .option('--command <cmd>', 'how clients should start session-collab (default: this install)')
  .option('--json', 'machine-readable output')
  .action(async (options) => (await import('./init.js')).init(options));

program
  .command('hook <event>')
  .description(
    'Handle an agent client hook (JSON on stdin): session-start, session-end, pre-tool-use, post-tool-use',
  )
  .action(async (event: string) => (await import('./hook.js')).hook(event));

const guard = program
  .command('guard')
  .description('The git pre-commit guard: refuse commits touching files another live session holds');
guard
  .command('install')
  .description('Install the guard in this repository (keeps and chains an existing pre-commit hook)')
  .option('--json', 'machine-readable output')
  .action(async (options) => (await import('./guard.js')).guardInstall(options));
guard
  .command('uninstall')
  .description('Remove the guard and restore the hook it chained')
  .option('--json', 'machine-readable output')
  .action(async (options) => (await import('./guard.js')).guardUninstall(options));
guard
  .command('status')
  .description('Whether the guard is installed here')
  .option('--json', 'machine-readable output')
  .action(async (options) => (await import('./guard.js')).guardStatus(options));
guard
  .command('check')
  .description('Check the staged files (run by the pre-commit hook)')
  .action(async () => (await import('./guard-check.js')).guardCheck());

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
