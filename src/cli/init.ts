import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { DEFAULT_HUB, loadConfig } from '../app/config.js';
import { resolveHome } from '../app/home.js';
import { CollabError, invalidInput } from '../core/errors.js';
import { shown } from '../core/fence.js';
import { unifiedDiff } from '../core/line-diff.js';
import { splitCommands } from '../core/shell-words.js';
import {
  CLIENTS,
  type ClientName,
  detectClients,
  type Launch,
  planClient,
  type Transport,
} from '../integrations/client-setup.js';
import {
  codexTrustFolders,
  geminiTrust,
  geminiTrusts,
  samePath,
  type TrustingClient,
  trustFile,
} from '../integrations/client-trust.js';
import { claudePluginFile, codexConflict, readText } from '../integrations/client-wiring.js';
import { codexHookHashes } from '../integrations/codex-hook-trust.js';
import { codexTrust, codexTrustHooks, codexTrusts } from '../integrations/codex-toml.js';
import { checkReplaceable, editLocked, replaceText } from '../integrations/file-replace.js';
import { locateFolder } from '../integrations/git-repo.js';
import { bold, dim, green, printJson, yellow } from './format.js';
import { cliInvocation, onPathIsThis } from './invocation.js';

export interface InitOptions {
  client?: string;
  /** stdio (the client starts `serve`) or http (the client connects to a running hub). */
  transport?: string;
  /** The hub's MCP endpoint, for --transport http. */
  url?: string;
  dryRun?: boolean;
  json?: boolean;
  command?: string;
  /** Trust the project in Codex CLI's and Gemini CLI's user settings, where it is not yet. */
  trust?: boolean;
}

const CLIENT_LABELS: Record<ClientName, string> = {
  claude: 'Claude Code',
  codex: 'Codex CLI',
  gemini: 'Gemini CLI',
  cursor: 'Cursor',
};

/**
 * How clients should start session-collab: `session-collab` when that command on PATH is this
 * install (portable: the files can be committed), else this Node and this install by absolute path.
 */
function defaultLaunch(): Launch {
  if (onPathIsThis()) return { command: 'session-collab', args: [] };
  const own = cliInvocation();
  return { command: own.command, args: own.args };
}

export function parseClients(value: string | undefined, root: string): ClientName[] {
  if (!value) {
    const found = detectClients((p) => existsSync(join(root, p)));
    return found.length > 0 ? found : ['claude'];
  }
  const names = value === 'all' ? [...CLIENTS] : value.split(',').map((s) => s.trim());
  const unknown = names.filter((n) => !(CLIENTS as readonly string[]).includes(n));
  if (unknown.length > 0) {
    throw new CollabError(
      'INVALID_INPUT',
      `Unknown client ${unknown.map((u) => `"${u}"`).join(', ')}.`,
      `Use one or more of: ${CLIENTS.join(', ')} (comma-separated), or all.`,
    );
  }
  return names as ClientName[];
}

/** The hub's MCP endpoint: --url, else the running hub's, else where config says a hub listens. */
function hubUrl(given: string | undefined): string {
  if (given) {
    if (!/^https?:\/\/[^\s]+$/.test(given))
      throw new CollabError(
        'INVALID_INPUT',
        `--url "${given}" is not an http(s) address.`,
        'e.g. --url http://127.0.0.1:8787/mcp',
      );
    return given;
  }
  const home = resolveHome();
  try {
    const { url } = JSON.parse(readFileSync(join(home.home, 'hub.json'), 'utf8')) as { url: string };
    return `${url}/mcp`;
  } catch {
    let listen = DEFAULT_HUB.listen;
    try {
      listen = loadConfig(home.config).hub.listen;
    } catch {
      // the default address, then
    }
    return `http://${listen.replace(/^0\.0\.0\.0:/, '127.0.0.1:')}/mcp`;
  }
}

function parseTransport(options: InitOptions): Transport {
  const kind = options.transport ?? 'stdio';
  if (kind === 'stdio') {
    if (options.url) throw new CollabError('INVALID_INPUT', '--url goes with --transport http.');
    return { kind: 'stdio' };
  }
  if (kind !== 'http')
    throw new CollabError(
      'INVALID_INPUT',
      `Unknown transport "${kind}".`,
      'Use --transport stdio (default) or http.',
    );
  return {
    kind: 'http',
    url: hubUrl(options.url),
    tokenEnv: process.env.SESSION_COLLAB_TOKEN ? 'SESSION_COLLAB_TOKEN' : null,
  };
}

/**
 * What this machine's config says a hook does when it cannot check (`enforcement_on_error`): where
 * it is `allow`, Cursor is not told to stop a call whose hook failed.
 */
function onErrorHere(): 'allow' | 'ask' | 'deny' {
  try {
    return loadConfig(resolveHome().config).enforcement_on_error;
  } catch {
    return 'ask';
  }
}

/**
 * The project init sets up or takes out: the repository (else the folder) of the working folder;
 * never the user's home folder, where the clients' files are their settings for every project.
 */
export function projectHere(): string {
  const root = locateFolder(process.cwd()).worktree;
  if (samePath(root, homedir()))
    throw new CollabError(
      'INVALID_INPUT',
      `${root} is your home folder: there, .claude/settings.json, .codex/config.toml and .gemini/settings.json are your clients' settings for every project, not one project's.`,
      "Run init in a project's folder (a git repository); nothing was written.",
    );
  return root;
}

/**
 * How the clients start session-collab: `--command` read as a shell reads one command (a program and
 * its arguments: `npx session-collab`), else `defaultLaunch`.
 */
function launchOf(command: string | undefined): Launch {
  if (command === undefined) return defaultLaunch();
  const commands = splitCommands(command);
  if (commands.length !== 1 || commands[0]!.length === 0)
    throw invalidInput(
      `--command ${shown(command)}: give one command, a program and its arguments (e.g. session-collab, or npx session-collab).`,
    );
  const [program, ...args] = commands[0]!;
  return { command: program!, args };
}

/** `session-collab init`: wires the clients of this project to session-collab. */
export function init(options: InitOptions): void {
  const root = projectHere();
  const clients = parseClients(options.client, root);
  const transport = parseTransport(options);
  const launch = launchOf(options.command);
  const read = (path: string) => readText(join(root, path));
  const failClosed = onErrorHere() !== 'allow';
  const changes = clients.flatMap((client) =>
    planClient(client, launch, read, transport, failClosed).map((file) => {
      const before = read(file.path);
      return { client, ...file, before, changed: before !== file.after };
    }),
  );

  // Codex CLI and Gemini CLI load the project's files only where the user trusts the folder.
  const trust = clients
    .filter((c): c is TrustingClient => c === 'codex' || c === 'gemini')
    .map((client) => {
      const file = trustFile(client);
      const before = readText(file);
      // Gemini CLI: the folder trusted. Codex: the project trusted, and each of our hooks in
      // .codex/hooks.json (by its hash).
      const hooksFile = changes.find((c) => c.client === 'codex' && c.path === '.codex/hooks.json');
      const hashes = hooksFile ? codexHookHashes(join(root, hooksFile.path), hooksFile.after) : [];
      const lacks =
        client === 'gemini'
          ? { project: !geminiTrusts(before, root), hooks: false }
          : {
              project: !codexTrusts(before, codexTrustFolders(root), samePath),
              hooks: codexTrustHooks(before, hashes, file) !== (before ?? ''),
            };
      const trusted = !lacks.project && !lacks.hooks;
      // From the file's text as it is when written (read again under its lock: another init, or the
      // client itself, may have changed it since).
      const trustedText = (text: string | null): string =>
        client === 'gemini'
          ? geminiTrust(text, root)
          : codexTrustHooks(
              codexTrusts(text, codexTrustFolders(root), samePath) ? text : codexTrust(text, root, file),
              hashes,
              file,
            );
      const after = trusted || !options.trust ? before : trustedText(before);
      return {
        client,
        file,
        before,
        after,
        trusted,
        added: !trusted && options.trust === true,
        lacks,
        trustedText,
      };
    });

  if (!options.dryRun) {
    const written = changes.filter((x) => x.changed);
    // Every file refused before any is written: init changes all of them or none.
    checkReplaceable([
      ...trust.filter((x) => x.added).map((t) => t.file),
      ...written.map((c) => join(root, c.path)),
    ]);
    for (const t of trust.filter((x) => x.added)) {
      mkdirSync(dirname(t.file), { recursive: true });
      editLocked(t.file, t.trustedText);
    }
    for (const c of written) {
      const target = join(root, c.path);
      mkdirSync(dirname(target), { recursive: true });
      replaceText(target, c.after);
    }
  }

  // A server of the same name in the user's Codex config that Codex would merge with this one.
  const codexUser = trustFile('codex');
  const codexClash = clients.includes('codex')
    ? codexConflict(
        codexUser,
        readText(codexUser),
        changes.find((c) => c.path === '.codex/config.toml')?.after ?? read('.codex/config.toml'),
      )
    : null;

  if (options.json) {
    printJson({
      root,
      dry_run: options.dryRun === true,
      command: [launch.command, ...launch.args],
      transport: transport.kind,
      ...(transport.kind === 'http' ? { url: transport.url } : {}),
      files: changes.map((c) => ({ client: c.client, path: c.path, purpose: c.purpose, changed: c.changed })),
      trust: trust.map((t) => ({
        client: t.client,
        file: t.file,
        trusted: t.trusted || t.added,
        added: t.added,
        ...(t.trusted || t.added
          ? {}
          : { missing: [...(t.lacks.project ? ['project'] : []), ...(t.lacks.hooks ? ['hooks'] : [])] }),
      })),
      problems: codexClash ? [{ client: 'codex', ...codexClash }] : [],
    });
    return;
  }
  if (options.dryRun) {
    for (const c of changes.filter((x) => x.changed)) {
      process.stdout.write(
        unifiedDiff(
          c.before ?? '',
          c.after,
          c.before === null ? '/dev/null' : `a/${c.path}`,
          `b/${c.path}`,
        ) ?? `${c.path}: too many changed lines to show as a diff\n`,
      );
    }
    for (const t of trust.filter((x) => x.added))
      process.stdout.write(unifiedDiff(t.before ?? '', t.after ?? '', t.file, t.file) ?? '');
    console.log(dim(`\n(dry run: nothing written in ${root})`));
    return;
  }
  console.log(`${bold('session-collab init')} in ${root}`);
  console.log(
    dim(
      transport.kind === 'http'
        ? `Clients connect to the hub at ${transport.url} (start it with \`session-collab hub\`; with tokens, each agent needs SESSION_COLLAB_TOKEN set)`
        : `Clients start it as: ${[launch.command, ...launch.args].join(' ')}`,
    ),
  );
  for (const client of clients) {
    console.log(`\n${CLIENT_LABELS[client]}`);
    for (const c of changes.filter((x) => x.client === client)) {
      const verb = !c.changed
        ? dim('unchanged')
        : c.before === null
          ? green('created  ')
          : green('updated  ');
      console.log(`  ${verb} ${c.path.padEnd(34)} ${dim(c.purpose)}`);
    }
  }
  for (const t of trust) {
    if (t.added) {
      console.log(`\n${green('Trusted')} this folder in ${t.file}:`);
      process.stdout.write(unifiedDiff(t.before ?? '', t.after ?? '', t.file, t.file) ?? '');
    } else if (!t.trusted) {
      console.log(
        t.client === 'gemini'
          ? `\n${yellow('Gemini CLI loads .gemini/settings.json only in trusted folders, and this one is not.')} Add "${root}": "TRUST_FOLDER" to ${t.file}, trust the folder when Gemini CLI asks, or run ${bold('session-collab init --trust')}.`
          : t.lacks.project
            ? `\n${yellow('Codex CLI loads .codex/config.toml and runs .codex/hooks.json only in trusted projects, and each hook only once trusted; here neither is.')} Run ${bold('session-collab init --trust')}, or add to ${t.file}:\n  [projects.${JSON.stringify(root)}]\n  trust_level = "trusted"\nand review the hooks when Codex asks.`
            : `\n${yellow('Codex CLI trusts this project, but runs each of its hooks only once that hook is trusted, and ours are not yet.')} Run ${bold('session-collab init --trust')} (it records their hashes in ${t.file}), or review them when Codex asks.`,
      );
    }
  }
  const plugin = clients.includes('claude') ? claudePluginFile(root) : null;
  if (plugin)
    console.log(
      `\n${yellow('The session-collab plugin is enabled for Claude Code here')} (${plugin}): with these files Claude Code runs two session-collab servers and every hook twice. Keep one: claude plugin uninstall session-collab@session-collab, or use --client without claude.`,
    );
  if (codexClash)
    console.log(`\n${yellow(`Codex CLI will not start here: ${codexClash.detail}.`)}\n${codexClash.hint}`);
  console.log(
    `\nNext: restart the client in this folder. To refuse commits that touch files another live session holds, also run ${bold('session-collab guard install')}.`,
  );
  if (!options.command && launch.command !== 'session-collab') {
    console.log(
      dim(
        `Files name this install by absolute path (${resolve(launch.args[0] ?? launch.command)}); with \`npm link\` they would say just "session-collab".`,
      ),
    );
  }
}
