/**
 * A realm on disk: a folder (normally its own git repository) of YAML files, read into the model
 * of core/realm-model and written by the `session-collab realm` commands.
 *
 *   realm.yaml                                  name, version, governance
 *   repos/<repo>.yaml                           name, path, default_branch
 *   domains/<domain>/domain.yaml                name, description
 *   domains/<domain>/contracts/<name>.yaml      name, version, owner, compatibility, schema, value,
 *                                               schema_hash, evolution [{version, change, schema_hash}]
 *   domains/<domain>/bindings/<repo>.yaml       repo, role, exports [names], imports [{contract, version}]
 *
 * A member repository names its realm in `.session-collab.yaml` at its root: `realm: <folder>`,
 * `repo: <name>`.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { Document, parse, parseDocument, stringify } from 'yaml';
import { z } from 'zod';
import { isBranchName } from '../core/branch-name.js';
import { canonicalHash } from '../core/canonical-hash.js';
import { CollabError } from '../core/errors.js';
import type {
  BindingDef,
  ContractChange,
  ContractDef,
  DomainDef,
  Finding,
  RealmModel,
  RepoDef,
} from '../core/realm-model.js';
import { replaceText } from './file-replace.js';
import { gitOutput, tryGit } from './git.js';

export const MEMBER_FILE = '.session-collab.yaml';

const name = z.string().regex(/^[a-z0-9][a-z0-9._-]*$/i, 'use letters, digits, ".", "_" and "-"');

const realmFile = z.object({
  name,
  version: z.string(),
  governance: z
    .object({ contract_changes: z.enum(['owner', 'any']).default('owner') })
    .default({ contract_changes: 'owner' }),
});
const repoFile = z.object({
  name,
  path: z.string().min(1),
  // A branch name git allows: it goes on git's command line (never one read as an option).
  default_branch: z.string().refine(isBranchName, 'is not a branch name git allows').nullable().default(null),
});
const domainFile = z.object({ name, description: z.string().nullable().default(null) });
const contractFile = z.object({
  name,
  version: z.string(),
  owner: name,
  compatibility: z.enum(['backward', 'forward', 'full', 'none']).default('backward'),
  schema: z.record(z.string(), z.unknown()),
  value: z.unknown().optional(),
  schema_hash: z.string().nullable().default(null),
  evolution: z
    .array(
      z.object({
        version: z.string(),
        change: z.string().default(''),
        schema_hash: z.string().nullable().default(null),
      }),
    )
    .default([]),
});
const bindingFile = z.object({
  repo: name,
  role: z.enum(['provider', 'consumer', 'both']),
  exports: z.array(z.string()).default([]),
  imports: z.array(z.object({ contract: z.string(), version: z.string() })).default([]),
});
const memberFile = z.object({ realm: z.string().min(1), repo: name });

type Reader<T> = (path: string) => T | null;

function reader(root: string, problems: Finding[]) {
  return <S extends z.ZodType>(schema: S): Reader<z.output<S>> =>
    (path) => {
      const file = relative(root, path);
      let data: unknown;
      try {
        data = parse(readFileSync(path, 'utf8'));
      } catch (error) {
        problems.push({
          level: 'error',
          code: 'BAD_YAML',
          file,
          message: (error as Error).message.split('\n')[0]!,
        });
        return null;
      }
      const parsed = schema.safeParse(data ?? {});
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          problems.push({
            level: 'error',
            code: 'BAD_FIELD',
            file,
            field: issue.path.join('.') || '(file)',
            message: issue.message,
          });
        }
        return null;
      }
      return parsed.data;
    };
}

function yamlFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
    .sort()
    .map((f) => join(dir, f));
}

/** Reads a realm folder. Shape errors are in `problems`, naming file and field; never throws for them. */
export function loadRealm(folder: string): RealmModel {
  const root = resolve(folder);
  if (!existsSync(join(root, 'realm.yaml'))) throw new Error(`${root} is not a realm (no realm.yaml)`);
  const problems: Finding[] = [];
  const read = reader(root, problems);
  const realm = read(realmFile)(join(root, 'realm.yaml'));
  const repos = new Map<string, RepoDef>();
  for (const path of yamlFiles(join(root, 'repos'))) {
    const r = read(repoFile)(path);
    if (r)
      repos.set(r.name, {
        ...r,
        path: isAbsolute(r.path) ? r.path : resolve(root, r.path),
        file: relative(root, path),
      });
  }
  const domains = new Map<string, DomainDef>();
  const domainsDir = join(root, 'domains');
  const domainNames = existsSync(domainsDir)
    ? readdirSync(domainsDir)
        .filter((d) => statSync(join(domainsDir, d)).isDirectory())
        .sort()
    : [];
  for (const dirName of domainNames) {
    const dir = join(domainsDir, dirName);
    const d = existsSync(join(dir, 'domain.yaml'))
      ? read(domainFile)(join(dir, 'domain.yaml'))
      : { name: dirName, description: null };
    if (!d) continue;
    const domain: DomainDef = {
      name: d.name,
      description: d.description,
      file: relative(root, join(dir, 'domain.yaml')),
      contracts: new Map(),
      bindings: new Map(),
    };
    for (const path of yamlFiles(join(dir, 'contracts'))) {
      const c = read(contractFile)(path);
      if (!c) continue;
      const file = relative(root, path);
      if (domain.contracts.has(c.name)) {
        problems.push({
          level: 'error',
          code: 'DUPLICATE',
          file,
          message: `another file already defines contract "${c.name}"`,
        });
        continue;
      }
      const contract: ContractDef = {
        ...c,
        domain: domain.name,
        value: c.value ?? null,
        computed_hash: canonicalHash(c.schema),
        file,
      };
      domain.contracts.set(c.name, contract);
    }
    for (const path of yamlFiles(join(dir, 'bindings'))) {
      const b = read(bindingFile)(path);
      if (b)
        domain.bindings.set(b.repo, {
          ...b,
          domain: domain.name,
          file: relative(root, path),
        } satisfies BindingDef);
    }
    domains.set(domain.name, domain);
  }
  return {
    root,
    name: realm?.name ?? '(unreadable realm.yaml)',
    version: realm?.version ?? '0.0.0',
    governance: realm?.governance ?? { contract_changes: 'owner' },
    repos,
    domains,
    problems,
  };
}

/** Who changed each contract file, from the realm repository's history (empty outside git). */
export function contractHistory(root: string): ContractChange[] {
  let out: string;
  try {
    out = gitOutput(
      root,
      [
        'log',
        '--format=%x1e%H%x1f%(trailers:key=Realm-Repo,valueonly,separator=%x2C)',
        '--name-only',
        '--',
        'domains',
      ],
      10_000,
    );
  } catch {
    return [];
  }
  const changes: ContractChange[] = [];
  for (const record of out.split('\x1e').slice(1)) {
    const [head, ...rest] = record.split('\n');
    const [commit, trailer] = (head ?? '').split('\x1f') as [string, string | undefined];
    const repo = trailer?.trim() ? trailer.trim().split(',')[0]!.trim() : null;
    for (const file of rest
      .join('\n')
      .split('\n')
      .filter((f) => /\/contracts\/[^/]+\.ya?ml$/.test(f))) {
      changes.push({ file, commit, repo });
    }
  }
  return changes;
}

/** The realm and repo a folder belongs to, from `.session-collab.yaml` at or above it. */
export function findMembership(folder: string): { realm: string; repo: string; file: string } | null {
  for (let dir = resolve(folder); ; dir = dirname(dir)) {
    const file = join(dir, MEMBER_FILE);
    if (existsSync(file)) {
      const parsed = memberFile.safeParse(parse(readFileSync(file, 'utf8')));
      if (!parsed.success)
        throw new Error(
          `${file}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
        );
      return { realm: resolve(dir, parsed.data.realm), repo: parsed.data.repo, file };
    }
    if (dirname(dir) === dir) return null;
  }
}

/** A folder's real path (symlinks resolved), or null when it does not exist. */
export function realPath(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/**
 * Why a repo of a realm is not one of its members, or null when it is: its path must be the root of
 * a git repository whose .session-collab.yaml names this realm and this repo. Only members get
 * worktrees and branches made by realm tools.
 */
export function membershipProblem(realmRoot: string, repo: RepoDef): string | null {
  const path = realPath(repo.path);
  if (!path) return `${repo.path} does not exist`;
  const top = tryGit(path, 'rev-parse', '--show-toplevel');
  if (top === null || realPath(top.trim()) !== path) return `${path} is not the root of a git repository`;
  const file = join(path, MEMBER_FILE);
  if (!existsSync(file)) return `${path} has no ${MEMBER_FILE} naming this realm`;
  const parsed = memberFile.safeParse(parse(readFileSync(file, 'utf8')));
  if (!parsed.success) return `${file} is not valid (realm: <folder>, repo: <name>)`;
  if (realPath(resolve(path, parsed.data.realm)) !== realPath(realmRoot))
    return `${file} names another realm (${parsed.data.realm})`;
  if (parsed.data.repo !== repo.name) return `${file} names it "${parsed.data.repo}", not "${repo.name}"`;
  return null;
}

function writeYaml(path: string, data: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, stringify(data, { lineWidth: 100 }));
  renameSync(tmp, path);
}

export function realmPaths(root: string) {
  return {
    realm: join(root, 'realm.yaml'),
    repo: (repo: string) => join(root, 'repos', `${repo}.yaml`),
    domain: (domain: string) => join(root, 'domains', domain, 'domain.yaml'),
    contract: (domain: string, contract: string) =>
      join(root, 'domains', domain, 'contracts', `${contract}.yaml`),
    binding: (domain: string, repo: string) => join(root, 'domains', domain, 'bindings', `${repo}.yaml`),
  };
}

export function writeRealm(root: string, realmName: string): void {
  writeYaml(realmPaths(root).realm, {
    name: realmName,
    version: '1.0.0',
    governance: { contract_changes: 'owner' },
  });
}

export function writeRepo(root: string, repo: string, path: string, defaultBranch: string | null): void {
  writeYaml(realmPaths(root).repo(repo), { name: repo, path, default_branch: defaultBranch });
}

/**
 * Makes a repository a member of a realm: `realm` and `repo` set in its `.session-collab.yaml`, the
 * rest of the file (its `project:` name, `land:` settings, comments) as it was. A repository that is
 * another realm's member, or this realm's under another name, is not moved unless `force`.
 */
export function writeMembership(repoRoot: string, realmRoot: string, repo: string, force = false): void {
  const file = join(repoRoot, MEMBER_FILE);
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const doc: Document = text.trim() === '' ? new Document({}) : parseDocument(text);
  if (doc.errors.length > 0)
    throw new CollabError(
      'CONFIG_ERROR',
      `${file} is not valid YAML (${doc.errors[0]!.message.split('\n')[0]}).`,
      'Fix it and run the command again; nothing was written.',
    );
  const was = { realm: doc.get('realm'), repo: doc.get('repo') };
  if (
    !force &&
    typeof was.realm === 'string' &&
    (realPath(resolve(repoRoot, was.realm)) !== realPath(realmRoot) || was.repo !== repo)
  )
    throw new CollabError(
      'INVALID_STATE',
      `${file} makes this repository "${String(was.repo)}" of the realm at ${was.realm}: adding it as "${repo}" here would take it from there.`,
      'Add --force to move it; nothing was written.',
    );
  doc.set('realm', relative(repoRoot, realmRoot) || '.');
  doc.set('repo', repo);
  replaceText(file, String(doc));
}

export function writeDomain(root: string, domain: string, description: string | null): void {
  writeYaml(realmPaths(root).domain(domain), { name: domain, description });
}

/** Creates or updates a contract; a new version gets an evolution entry with its schema hash. */
export function writeContract(
  root: string,
  domain: string,
  input: {
    name: string;
    owner: string;
    version: string;
    schema: Record<string, unknown>;
    value?: unknown;
    compatibility?: string;
    change?: string;
  },
): { created: boolean; previous: string | null } {
  const path = realmPaths(root).contract(domain, input.name);
  const existing = existsSync(path) ? (parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : null;
  const hash = canonicalHash(input.schema);
  const evolution = Array.isArray(existing?.evolution)
    ? (existing.evolution as Array<Record<string, unknown>>)
    : [];
  const previous = typeof existing?.version === 'string' ? existing.version : null;
  if (previous !== input.version) {
    evolution.push({
      version: input.version,
      change: input.change ?? (previous ? 'updated' : 'created'),
      schema_hash: hash,
    });
  }
  writeYaml(path, {
    name: input.name,
    version: input.version,
    owner: input.owner,
    compatibility: input.compatibility ?? (existing?.compatibility as string | undefined) ?? 'backward',
    schema: input.schema,
    ...(input.value !== undefined
      ? { value: input.value }
      : existing && 'value' in existing
        ? { value: existing.value }
        : {}),
    schema_hash: previous === input.version ? (existing?.schema_hash ?? hash) : hash,
    evolution,
  });
  return { created: existing === null, previous };
}

export function writeBinding(
  root: string,
  domain: string,
  binding: {
    repo: string;
    role: string;
    exports: string[];
    imports: Array<{ contract: string; version: string }>;
  },
): void {
  writeYaml(realmPaths(root).binding(domain, binding.repo), binding);
}
