import { existsSync, readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import semver from 'semver';
import { parse } from 'yaml';
import { App } from '../app/app.js';
import { isBranchName } from '../core/branch-name.js';
import { CollabError } from '../core/errors.js';
import { shown } from '../core/fence.js';
import { shellQuote } from '../core/shell-words.js';
import { git } from '../integrations/git.js';
import { locateFolder } from '../integrations/git-repo.js';
import {
  realmPaths,
  realPath,
  writeBinding,
  writeContract,
  writeDomain,
  writeMembership,
  writeRealm,
  writeRepo,
} from '../integrations/realm-files.js';
import { bold, dim, green, printJson, red, yellow } from './format.js';

interface RealmOption {
  realm?: string;
  json?: boolean;
}

const NAME = /^[a-z0-9][a-z0-9._-]*$/i;

function checkName(what: string, value: string): string {
  if (!NAME.test(value))
    throw new CollabError(
      'INVALID_INPUT',
      `${what} ${shown(value)} is not a valid name.`,
      'Use letters, digits, ".", "_" and "-".',
    );
  return value;
}

/** The realm folder a command works on: --realm, else the one this folder belongs to. */
async function realmRoot(app: App, option?: string): Promise<string> {
  return (await app.realm.context(process.cwd(), option)).model.root;
}

async function withApp<T>(fn: (app: App) => T | Promise<T>): Promise<T> {
  const app = await App.open();
  try {
    return await fn(app);
  } finally {
    await app.close();
  }
}

export async function realmInit(folder: string, options: { name?: string }): Promise<void> {
  const root = resolve(folder);
  if (existsSync(resolve(root, 'realm.yaml')))
    throw new CollabError(
      'INVALID_INPUT',
      `${root} is already a realm.`,
      'Add repos with `session-collab realm add-repo`.',
    );
  const name = checkName('realm name', options.name ?? root.split('/').pop() ?? 'realm');
  writeRealm(root, name);
  let history: string;
  try {
    if (locateFolder(root).kind === 'dir') {
      git(root, 'init', '-q');
      history = 'initialised as a git repository, so contract changes have a history';
    } else history = 'inside a git repository already';
  } catch {
    history = 'git is not available: realm_check cannot see who changed contracts';
  }
  await withApp((app) => app.realm.register(root));
  console.log(`${green('Created')} realm ${bold(name)} in ${root} (${history}); registered on this machine.`);
  console.log(`Next: ${bold(`session-collab realm add-repo <name> --path <repo folder> --realm ${root}`)}`);
}

export async function realmAddRepo(
  name: string,
  options: RealmOption & { path: string; defaultBranch?: string; force?: boolean },
): Promise<void> {
  checkName('repo name', name);
  if (options.defaultBranch !== undefined && !isBranchName(options.defaultBranch))
    throw new CollabError(
      'INVALID_INPUT',
      `--default-branch ${shown(options.defaultBranch)} is not a branch name git allows.`,
      'Name the branch others merge into, e.g. main.',
    );
  const repoPath = resolve(options.path);
  if (!existsSync(repoPath))
    throw new CollabError(
      'INVALID_INPUT',
      `--path ${repoPath} does not exist.`,
      'Give the folder of a clone of the repo.',
    );
  const repoRoot = locateFolder(repoPath).worktree;
  const root = await realmRootFromCwd(options.realm);
  // A name of the realm that is another repository's is not taken from it.
  const entry = realmPaths(root).repo(name);
  if (existsSync(entry) && !options.force) {
    const was = (parse(readFileSync(entry, 'utf8')) as { path?: unknown } | null)?.path;
    if (typeof was === 'string' && realPath(resolve(root, was)) !== realPath(repoRoot))
      throw new CollabError(
        'INVALID_STATE',
        `The realm's repo "${name}" is ${resolve(root, was)}, not ${repoRoot}.`,
        'Choose another name, or add --force to point it here; nothing was written.',
      );
  }
  // The membership first: it refuses a repository of another realm before anything is written.
  writeMembership(repoRoot, root, name, options.force === true);
  writeRepo(root, name, relative(root, repoRoot) || '.', options.defaultBranch ?? null);
  console.log(
    `${green('Added')} repo ${bold(name)} (${repoRoot}); it now names the realm in ${resolve(repoRoot, '.session-collab.yaml')}.`,
  );
}

/** For add-repo: the realm folder is --realm, else the working folder when it is one, else this repo's. */
async function realmRootFromCwd(option?: string): Promise<string> {
  const here = existsSync(resolve(process.cwd(), 'realm.yaml')) ? process.cwd() : undefined;
  return await withApp((app) => realmRoot(app, option ?? here));
}

/** `realm register [folder]`: this machine works with the realm in that folder (default: here). */
export async function realmRegister(folder: string | undefined, options: { json?: boolean }): Promise<void> {
  const done = await withApp((app) => app.realm.register(resolve(folder ?? '.')));
  if (options.json) {
    printJson(done);
    return;
  }
  console.log(
    done.already
      ? `Realm ${bold(done.name)} (${done.root}) was registered already.`
      : `${green('Registered')} realm ${bold(done.name)} (${done.root}): realm tools and commands work with it now.`,
  );
}

/** `realm unregister [folder]`: forget a realm (its files stay). */
export async function realmUnregister(
  folder: string | undefined,
  options: { json?: boolean },
): Promise<void> {
  const root = resolve(folder ?? '.');
  const removed = await withApp((app) => app.realm.unregister(root));
  if (options.json) {
    printJson({ root, unregistered: removed });
    return;
  }
  if (!removed)
    throw new CollabError(
      'REALM_NOT_REGISTERED',
      `${root} was not registered.`,
      'See the registered realms with `session-collab realm list` (config.json may list it under "realms").',
    );
  console.log(`${green('Unregistered')} ${root}; its files are untouched.`);
}

/** `realm list`: the realm folders this machine works with. */
export async function realmList(options: { json?: boolean }): Promise<void> {
  const realms = await withApp((app) => app.realm.registered());
  if (options.json) {
    printJson({ realms });
    return;
  }
  if (realms.length === 0) {
    console.log(
      'No realms registered. Create one with `session-collab realm init <folder>`, or register one with `session-collab realm register <folder>`.',
    );
    return;
  }
  for (const r of realms) {
    console.log(
      `${bold(r.name ?? '(unnamed)')}  ${r.root}${r.source === 'config' ? dim('  (config.json)') : ''}${r.exists ? '' : red('  missing: no realm.yaml there')}`,
    );
  }
}

export async function realmAddDomain(
  name: string,
  options: RealmOption & { description?: string },
): Promise<void> {
  checkName('domain name', name);
  const root = await withApp((app) => realmRoot(app, options.realm));
  writeDomain(root, name, options.description ?? null);
  console.log(`${green('Added')} domain ${bold(name)}.`);
}

function readData(file: string): unknown {
  const text = readFileSync(resolve(file), 'utf8');
  return file.endsWith('.json') ? JSON.parse(text) : parse(text);
}

export async function realmContract(
  domain: string,
  name: string,
  options: RealmOption & {
    owner: string;
    version: string;
    schema: string;
    value?: string;
    compatibility?: string;
    change?: string;
  },
): Promise<void> {
  checkName('domain name', domain);
  checkName('contract name', name);
  checkName('--owner', options.owner);
  if (!semver.valid(options.version))
    throw new CollabError(
      'INVALID_INPUT',
      `--version ${shown(options.version)} is not semver.`,
      'Write a version like 1.2.0.',
    );
  const root = await withApp((app) => realmRoot(app, options.realm));
  if (!existsSync(resolve(root, 'domains', domain)))
    throw new CollabError(
      'INVALID_INPUT',
      `No domain "${domain}" in ${root}.`,
      'Add it with `session-collab realm add-domain`.',
    );
  const schema = readData(options.schema);
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema))
    throw new CollabError('INVALID_INPUT', `--schema ${options.schema} does not hold a JSON Schema object.`);
  const result = writeContract(root, domain, {
    name,
    owner: options.owner,
    version: options.version,
    schema: schema as Record<string, unknown>,
    ...(options.value ? { value: readData(options.value) } : {}),
    ...(options.compatibility ? { compatibility: options.compatibility } : {}),
    ...(options.change ? { change: options.change } : {}),
  });
  const what = result.created
    ? 'Created'
    : result.previous === options.version
      ? 'Updated (same version)'
      : `Updated ${result.previous} →`;
  console.log(`${green(what)} ${domain}/${name}@${options.version}.`);
  console.log(
    dim(
      `Commit it in the realm's repository with the owner named, so realm_check can tell who changed it: git -C ${shellQuote(root)} add -A && git -C ${shellQuote(root)} commit -m ${shellQuote(`${domain}/${name}@${options.version}`)} --trailer ${shellQuote(`Realm-Repo: ${options.owner}`)}`,
    ),
  );
}

export async function realmBind(
  domain: string,
  repo: string,
  options: RealmOption & { role: string; exports?: string; imports?: string },
): Promise<void> {
  checkName('domain name', domain);
  checkName('repo name', repo);
  const root = await withApp((app) => realmRoot(app, options.realm));
  if (!['provider', 'consumer', 'both'].includes(options.role))
    throw new CollabError('INVALID_INPUT', `--role ${options.role}: use provider, consumer or both.`);
  const list = (s?: string) =>
    s
      ? s
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean)
      : [];
  const imports = list(options.imports).map((spec) => {
    const at = spec.indexOf('@');
    if (at <= 0)
      throw new CollabError(
        'INVALID_INPUT',
        `--imports ${spec}: write contract@range, e.g. s3-permissions@^1.0.0.`,
      );
    const range = spec.slice(at + 1);
    if (semver.validRange(range) === null)
      throw new CollabError(
        'INVALID_INPUT',
        `--imports ${shown(spec)}: ${shown(range)} is not a semver range.`,
      );
    return { contract: checkName('contract name', spec.slice(0, at)), version: range };
  });
  writeBinding(root, domain, { repo, role: options.role, exports: list(options.exports), imports });
  console.log(`${green('Bound')} ${repo} to ${domain} as ${options.role}.`);
  // Bound before it is added (allowed: the repo may come next), but `realm check` fails until then.
  if (!existsSync(resolve(root, 'repos', `${repo}.yaml`)))
    process.stderr.write(
      `${yellow('Warning:')} ${repo} is not a repo of this realm yet; \`realm check\` fails until it is. Add it: session-collab realm add-repo ${repo} --path <its clone> --realm ${root}\n`,
    );
}

export async function realmCheckCommand(options: RealmOption): Promise<void> {
  await withApp(async (app) => {
    const ctx = await app.realm.context(process.cwd(), options.realm);
    const result = app.realm.check(ctx);
    if (options.json) printJson(result);
    else {
      for (const f of [...result.errors, ...result.warnings]) {
        console.log(
          `${f.level === 'error' ? red('error  ') : yellow('warning')} ${f.file}${f.field ? dim(` ${f.field}`) : ''}: ${f.message}`,
        );
      }
      console.log(
        result.ok
          ? green(
              `Realm ${ctx.model.name}: OK${result.warnings.length ? ` (${result.warnings.length} warning(s))` : ''}.`,
            )
          : red(`Realm ${ctx.model.name}: ${result.errors.length} error(s).`),
      );
    }
    if (!result.ok) process.exitCode = 1;
  });
}

export async function realmStatusCommand(options: RealmOption): Promise<void> {
  await withApp(async (app) => {
    const { model, repo } = await app.realm.context(process.cwd(), options.realm);
    const data = {
      realm: model.name,
      root: model.root,
      repo,
      repos: await Promise.all(
        [...model.repos.values()].map(async (r) => ({
          name: r.name,
          path: r.path,
          sessions: (await app.realm.liveSessionsOf(model, r.name)).map((s) => s.name),
        })),
      ),
      domains: [...model.domains.values()].map((d) => ({
        name: d.name,
        contracts: [...d.contracts.values()].map((c) => `${c.name}@${c.version} (${c.owner})`),
        bindings: [...d.bindings.values()].map((b) => `${b.repo}: ${b.role}`),
      })),
    };
    if (options.json) {
      printJson(data);
      return;
    }
    console.log(`${bold(`Realm ${data.realm}`)} ${dim(data.root)}${repo ? ` — this repo: ${repo}` : ''}`);
    for (const r of data.repos)
      console.log(
        `  repo ${r.name} ${dim(r.path)}${r.sessions.length ? ` — sessions: ${r.sessions.join(', ')}` : ''}`,
      );
    for (const d of data.domains)
      console.log(
        `  domain ${d.name}: ${d.contracts.join(', ') || 'no contracts'}; ${d.bindings.join(', ') || 'no bindings'}`,
      );
  });
}
