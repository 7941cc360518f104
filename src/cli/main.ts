import { createRequire } from 'node:module';
import { Command, Option } from 'commander';
import { CollabError } from '../core/errors.js';
import { VERSION } from '../core/version.js';
import { DEFAULT_TOOLSETS, TOOLSETS } from '../mcp/toolsets.js';
import { failed } from './failed.js';

/**
 * The hub's commands. Bundled apart (dist/hub.cjs, scripts/build.mjs) so that the rest of the CLI,
 * `serve` above all, does not load the HTTP server and the dashboard; required from beside this
 * bundle when running from dist/.
 */
async function hubCommands(): Promise<typeof import('./hub.js')> {
  if (typeof __filename === 'string' && __filename.endsWith('.cjs'))
    return createRequire(__filename)('./hub.cjs') as typeof import('./hub.js');
  return import('./hub.js');
}

const program = new Command()
  .name('session-collab')
  .description('Coordination hub for AI coding sessions that work on the same code.')
  .version(VERSION)
  // Program options only before the command, so that `realm contract --version 1.0.0` is the contract's.
  .enablePositionalOptions()
  // A missing argument or an unknown option: the command's usage, not only what was wrong.
  .showHelpAfterError('(run it with --help for its usage)')
  .configureOutput({
    outputError: (text, write) => {
      write(text);
      // Asked for --json, a usage error is said as JSON on standard output too, as every failure is.
      if (process.argv.includes('--json') && text.startsWith('error: '))
        process.stdout.write(
          `${JSON.stringify({ error: { code: 'INVALID_INPUT', message: text.slice('error: '.length).trim(), hint: 'Run the command with --help for its usage.' } })}\n`,
        );
    },
  });

program
  .command('serve')
  .description('Run the MCP server over stdio (started by an MCP client)')
  .option(
    '--toolsets <list>',
    `comma-separated toolsets: ${TOOLSETS.map((t) => `${t.id} (${t.description})`).join('; ')}. Default from config.json: ${DEFAULT_TOOLSETS.join(', ')}`,
  )
  .option('--read-only', 'serve only the tools that change nothing other sessions or people see')
  .option(
    '--session-name <name>',
    'name of the session this server starts (default: $SESSION_COLLAB_SESSION_NAME, else the client name)',
  )
  .option('--in-process', "serve in this process, not through this machine's server")
  // Run from dist/ it never comes here: the launcher gives `serve` to the relay in the hot bundle.
  .action(async () => (await import('./relay.js')).relay(process.argv.slice(3)));

program
  .command('hub')
  .description(
    'Run the shared hub: MCP over HTTP for many clients at once, and the live dashboard (npm start)',
  )
  .option(
    '--listen <host:port>',
    'where to listen (default: config hub.listen, 127.0.0.1:8787; port 0 picks one)',
  )
  .option('--toolsets <list>', 'comma-separated toolsets (default: all of them)')
  .option('--read-only', 'serve only the tools that change nothing other sessions or people see')
  .option('--json', 'print the addresses as one JSON line')
  .addOption(new Option('--machine', "started by a client's serve: quiet, and gone when idle").hideHelp())
  .action(async (options) => (await hubCommands()).hubCommand(options));

program
  .command('demo')
  .description(
    'Watch three scripted agents share a repository on the dashboard (about a minute; its own home folder)',
  )
  .option('--fast', 'no pauses (what the tests run)')
  .option(
    '--linger <seconds>',
    'keep the dashboard up this long after the last step (default 60; 0 with --fast)',
  )
  .option('--home <dir>', 'run in this home folder and keep it (default: a new one, removed at the end)')
  .action(async (options) => (await hubCommands()).demo(options));

program
  .command('hub-headers')
  .description("Print the headers of this client's connection to the hub (Claude Code's headersHelper)")
  .action(async () => (await import('./hub-headers.js')).hubHeadersCommand());

program
  .command('dashboard')
  .description("Print a one-time login link to the running hub's dashboard")
  .option('--json', 'machine-readable output')
  .action(async (options) => (await hubCommands()).dashboardCommand(options));

program
  .command('token <action> [name]')
  .description('Bearer tokens for agents using the hub: create <name> (printed once), list, revoke <name>')
  .option('--json', 'machine-readable output')
  .action(async (action: string, name: string | undefined, options) => {
    if (action !== 'create' && action !== 'list' && action !== 'revoke')
      throw new CollabError(
        'INVALID_INPUT',
        `Unknown token action "${action}".`,
        'Use create <name>, list or revoke <name>.',
      );
    await (await hubCommands()).tokenCommand(action, name, options);
  });

program
  .command('message <session> <text...>')
  .description('Send a session a message from you (by its name, or the first characters of its id)')
  .option('--all', 'look for the session in every project, not only this folder’s')
  .option('--json', 'machine-readable output')
  .action(async (session: string, text: string[], options) =>
    (await hubCommands()).messageCommand(session, text, options),
  );

program
  .command('release <claim>')
  .description("Release any session's claim (by the first characters of its id); that session is told")
  .option('--reason <text>', 'why, for the session that held it')
  .option('--json', 'machine-readable output')
  .action(async (claim: string, options) => (await hubCommands()).releaseCommand(claim, options));

program
  .command('end <session>')
  .description('End a session and release its claims (by its name, or the first characters of its id)')
  .option('--reason <text>', 'why, recorded with the session')
  .option('--all', 'look for the session in every project, not only this folder’s')
  .option('--json', 'machine-readable output')
  .action(async (session: string, options) => (await hubCommands()).endCommand(session, options));

program
  .command('clean')
  .description('End the sessions whose process is gone or that fell silent, releasing their claims')
  .option('--dry-run', 'only list them')
  .option('--all', 'in every project, not only this folder’s')
  .option('--json', 'machine-readable output')
  .action(async (options) => (await hubCommands()).cleanCommand(options));

program
  .command('land')
  .description(
    "Land this branch's commits on the target: replayed, checked (land.check), then moved, or refused",
  )
  .option('--onto <branch>', "the target branch (default: the repository's default branch)")
  .option('--no-wait', 'queue it and return; a session-collab server of this machine lands it')
  .option('--status', "show this repository's landing queue and latest outcomes")
  .option('--cancel <id>', 'withdraw a request still waiting (by the first characters of its id)')
  .option('--json', 'machine-readable output')
  .action(async (options) => (await import('./land.js')).landCommand(options));

program
  .command('status')
  .description("Show this project's sessions (where to find them), their claims, and conflicts")
  .option('--json', 'machine-readable output')
  .option('--all', 'every project, with ended sessions and idle projects')
  .option('--watch', 'redraw every 2 s in the terminal')
  .option('--limit <n>', 'sessions, claims and conflicts shown per project (0: all)', '20')
  .action(async (options) => (await import('./status.js')).status(options));

program
  .command('init')
  .description('Set up this project for your agent clients: MCP server, hooks, collaboration rules')
  .option(
    '--client <names>',
    'claude, codex, gemini, cursor (comma-separated) or all; default: the ones found here, else claude',
  )
  .option('--dry-run', 'print what would change, as a diff, and write nothing')
  .option(
    '--command <cmd>',
    'how clients should start session-collab: session-collab (on each PATH), a path, or a command with its arguments (npx session-collab); default: this install',
  )
  .option('--trust', "trust this folder in Codex CLI's and Gemini CLI's user settings, where it is not yet")
  .option(
    '--transport <kind>',
    'stdio (each client starts its own server; default) or http (clients connect to a running hub)',
  )
  .option(
    '--url <url>',
    "the hub's MCP endpoint for --transport http (default: the running hub's, else config hub.listen)",
  )
  .option(
    '--remove',
    "take out what init wrote (every client's, or --client's); your own entries stay, files left empty go",
  )
  .option('--json', 'machine-readable output')
  .action(async (options) =>
    options.remove
      ? (await import('./init-remove.js')).initRemove(options)
      : (await import('./init.js')).init(options),
  );

program
  .command('hook <event>')
  .description(
    "Handle an agent client hook (JSON on stdin): session-start, session-end, pre-tool-use, post-tool-use, user-prompt-submit, turn-end or wake; for Cursor, its own event names. `init` writes these into each client's settings",
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

const realm = program.command('realm').description('Realms: repos that share versioned contracts');
const realmOpt = ['--realm <folder>', 'the realm folder (default: the one this folder belongs to)'] as const;
realm
  .command('init <folder>')
  .description('Create a realm folder (a git repository of YAML files)')
  .option('--name <name>', 'realm name (default: the folder name)')
  .action(async (folder, options) => (await import('./realm.js')).realmInit(folder, options));
realm
  .command('add-repo <name>')
  .description('Add a repo to the realm; writes .session-collab.yaml in the repo')
  .requiredOption('--path <folder>', 'the repo’s folder')
  .option('--default-branch <branch>', 'the branch PRs go to (default: detected)')
  .option('--force', 'take the repo from another realm, or point an existing name at this folder')
  .option(...realmOpt)
  .action(async (name, options) => (await import('./realm.js')).realmAddRepo(name, options));
realm
  .command('add-domain <name>')
  .description('Add a domain (an area repos share contracts in)')
  .option('--description <text>')
  .option(...realmOpt)
  .action(async (name, options) => (await import('./realm.js')).realmAddDomain(name, options));
realm
  .command('contract <domain> <name>')
  .description('Create or update a contract; a new version is recorded with its schema hash')
  .requiredOption('--owner <repo>', 'the repo that owns it')
  .requiredOption('--version <semver>', 'e.g. 1.0.0')
  .requiredOption('--schema <file>', 'JSON Schema, .json or .yaml')
  .option('--value <file>', 'its value, .json or .yaml')
  .option('--compatibility <mode>', 'backward, forward, full or none')
  .option('--change <text>', 'what changed, for the evolution history')
  .option(...realmOpt)
  .action(async (domain, name, options) => (await import('./realm.js')).realmContract(domain, name, options));
realm
  .command('bind <domain> <repo>')
  .description('Say what a repo provides or consumes in a domain')
  .requiredOption('--role <role>', 'provider, consumer or both')
  .option('--exports <names>', 'contracts it provides, comma-separated')
  .option('--imports <specs>', 'contracts it consumes, as name@range, comma-separated')
  .option(...realmOpt)
  .action(async (domain, repo, options) => (await import('./realm.js')).realmBind(domain, repo, options));
realm
  .command('register [folder]')
  .description('Work with an existing realm folder on this machine (e.g. a clone); default: here')
  .option('--json', 'machine-readable output')
  .action(async (folder, options) => (await import('./realm.js')).realmRegister(folder, options));
realm
  .command('unregister [folder]')
  .description('Stop working with a realm folder on this machine (its files stay)')
  .option('--json', 'machine-readable output')
  .action(async (folder, options) => (await import('./realm.js')).realmUnregister(folder, options));
realm
  .command('list')
  .description('The realm folders registered on this machine')
  .option('--json', 'machine-readable output')
  .action(async (options) => (await import('./realm.js')).realmList(options));
realm
  .command('check')
  .description('Validate the realm (for CI): exit 1 on errors')
  .option('--json', 'machine-readable output')
  .option(...realmOpt)
  .action(async (options) => (await import('./realm.js')).realmCheckCommand(options));
realm
  .command('status')
  .description('Repos, domains, contracts and live sessions of the realm')
  .option('--json', 'machine-readable output')
  .option(...realmOpt)
  .action(async (options) => (await import('./realm.js')).realmStatusCommand(options));

program
  .command('import-ai-collab <data.json>')
  .description('Import the data file of AI Collaboration MCP (projects, work items, reviews); idempotent')
  .option('--json', 'machine-readable output')
  .action(async (file, options) =>
    (await import('./import-ai-collab.js')).importAiCollabCommand(file, options),
  );

program
  .command('answer [id] [text...]')
  .description(
    "Answer sessions' questions to a person: pick one in the terminal, or give its id and the answer",
  )
  .option('--option <n>', "answer with the question's choice n (from 1)")
  .option('--list', 'list the pending questions and exit')
  .option('--json', 'machine-readable output')
  .action(async (id: string | undefined, text: string[], options) =>
    (await import('./answer.js')).answerCommand(id, text, options),
  );

program
  .command('migrate')
  .description(
    'Bring the database up to this version: the team database (SESSION_COLLAB_DATABASE_URL) or the embedded one',
  )
  .option('--json', 'machine-readable output')
  .action(async (options) => (await import('./migrate.js')).migrateCommand(options));

program
  .command('export')
  .description(
    'Copy the embedded database into an empty team database (PostgreSQL), then verify both by counts and checksums',
  )
  .option('--to <url>', 'postgres://user@host:5432/database (default: SESSION_COLLAB_DATABASE_URL)')
  .option('--json', 'machine-readable output')
  .action(async (options) => (await import('./transfer.js')).exportCommand(options));

program
  .command('import')
  .description(
    "Copy a team database (PostgreSQL) into this home folder's empty embedded database, then verify both",
  )
  .option('--from <url>', 'postgres://user@host:5432/database (default: SESSION_COLLAB_DATABASE_URL)')
  .option('--json', 'machine-readable output')
  .action(async (options) => (await import('./transfer.js')).importCommand(options));

program
  .command('doctor')
  .description('Check the home folder, configuration, database and versions')
  .option('--json', 'machine-readable output')
  .option(
    '--repair',
    'mend what it can: rebuild a damaged database from what can be read, move a broken config.json aside',
  )
  .action(async (options) => (await import('./doctor.js')).doctor(options));

// `help --help` is the program's help (commander took `--help` for a command's name: nothing
// printed, exit 1).
if (
  process.argv[2] === 'help' &&
  ['--help', '-h'].includes(process.argv[3] ?? '') &&
  process.argv.length === 4
)
  program.help();
program.parseAsync().catch(failed);
