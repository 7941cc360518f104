/**
 * The realm model (a folder of YAML files, read by integrations/realm-files) and its rules:
 * what `realm_check` finds. Pure: the files, hashes and history come in as data.
 */
import semver from 'semver';

export type Role = 'provider' | 'consumer' | 'both';
export type Compatibility = 'backward' | 'forward' | 'full' | 'none';

export interface Finding {
  level: 'error' | 'warning';
  code: string;
  /** Relative to the realm folder. */
  file: string;
  field?: string;
  message: string;
}

export interface RepoDef {
  name: string;
  path: string;
  default_branch: string | null;
  file: string;
}

export interface EvolutionEntry {
  version: string;
  change: string;
  schema_hash: string | null;
}

export interface ContractDef {
  name: string;
  domain: string;
  version: string;
  owner: string;
  compatibility: Compatibility;
  schema: Record<string, unknown>;
  value: unknown;
  /** The hash recorded for the current version. */
  schema_hash: string | null;
  /** The hash of the schema as it is in the file now. */
  computed_hash: string;
  evolution: EvolutionEntry[];
  file: string;
}

export interface BindingDef {
  repo: string;
  domain: string;
  role: Role;
  exports: string[];
  imports: Array<{ contract: string; version: string }>;
  file: string;
}

export interface DomainDef {
  name: string;
  description: string | null;
  file: string;
  contracts: Map<string, ContractDef>;
  bindings: Map<string, BindingDef>;
}

export interface RealmModel {
  root: string;
  name: string;
  version: string;
  governance: { contract_changes: 'owner' | 'any' };
  repos: Map<string, RepoDef>;
  domains: Map<string, DomainDef>;
  /** Files that could not be read or did not have the right shape. */
  problems: Finding[];
}

/** A recorded change of a contract file: which repo made it (a `Realm-Repo:` commit trailer). */
export interface ContractChange {
  file: string;
  commit: string;
  repo: string | null;
}

const err = (code: string, file: string, message: string, field?: string): Finding => ({
  level: 'error',
  code,
  file,
  message,
  ...(field ? { field } : {}),
});
const warn = (code: string, file: string, message: string, field?: string): Finding => ({
  level: 'warning',
  code,
  file,
  message,
  ...(field ? { field } : {}),
});

/** Everything wrong with a realm: errors fail `realm check`, warnings are reported. */
export function checkRealm(model: RealmModel, history: ContractChange[] = []): Finding[] {
  const out: Finding[] = [...model.problems];
  if (!semver.valid(model.version))
    out.push(err('BAD_SEMVER', 'realm.yaml', `realm version "${model.version}" is not semver`, 'version'));
  for (const domain of model.domains.values()) {
    for (const c of domain.contracts.values()) {
      if (!semver.valid(c.version))
        out.push(err('BAD_SEMVER', c.file, `version "${c.version}" is not semver (like 1.2.0)`, 'version'));
      if (!model.repos.has(c.owner))
        out.push(err('UNKNOWN_REPO', c.file, `owner "${c.owner}" is not a repo of the realm`, 'owner'));
      let previous: string | null = null;
      c.evolution.forEach((e, i) => {
        if (!semver.valid(e.version)) {
          out.push(
            err(
              'BAD_SEMVER',
              c.file,
              `evolution entry ${i + 1}: "${e.version}" is not semver`,
              `evolution[${i}].version`,
            ),
          );
        } else if (previous && semver.valid(previous) && !semver.gt(e.version, previous)) {
          out.push(
            err(
              'EVOLUTION_ORDER',
              c.file,
              `evolution entry ${i + 1} (${e.version}) is not after ${previous}`,
              `evolution[${i}].version`,
            ),
          );
        }
        previous = e.version;
      });
      const last = c.evolution[c.evolution.length - 1];
      if (last && semver.valid(c.version) && semver.valid(last.version) && last.version !== c.version) {
        out.push(
          err(
            'EVOLUTION_VERSION',
            c.file,
            `version ${c.version} has no evolution entry (the last is ${last.version})`,
            'evolution',
          ),
        );
      }
      if (c.schema_hash && c.schema_hash !== c.computed_hash) {
        out.push(
          warn(
            'SCHEMA_DRIFT',
            c.file,
            `the schema changed but the version is still ${c.version} (recorded ${c.schema_hash.slice(0, 19)}…, now ${c.computed_hash.slice(0, 19)}…): bump the version, or restore the schema`,
            'schema',
          ),
        );
      } else if (!c.schema_hash) {
        out.push(
          warn(
            'SCHEMA_UNRECORDED',
            c.file,
            `no schema_hash recorded for version ${c.version}`,
            'schema_hash',
          ),
        );
      }
    }
    for (const b of domain.bindings.values()) {
      if (!model.repos.has(b.repo))
        out.push(err('UNKNOWN_REPO', b.file, `repo "${b.repo}" is not a repo of the realm`, 'repo'));
      if (b.exports.length > 0 && b.role === 'consumer')
        out.push(err('ROLE', b.file, 'a consumer exports contracts; make it a provider or both', 'role'));
      if (b.imports.length > 0 && b.role === 'provider')
        out.push(err('ROLE', b.file, 'a provider imports contracts; make it a consumer or both', 'role'));
      b.exports.forEach((name, i) => {
        const c = domain.contracts.get(name);
        if (!c)
          out.push(
            err(
              'UNKNOWN_CONTRACT',
              b.file,
              `exports "${name}", which domain ${domain.name} has no contract of`,
              `exports[${i}]`,
            ),
          );
        else if (c.owner !== b.repo)
          out.push(err('NOT_OWNER', b.file, `exports "${name}", which ${c.owner} owns`, `exports[${i}]`));
      });
      b.imports.forEach((imp, i) => {
        const c = domain.contracts.get(imp.contract);
        if (!c) {
          out.push(
            err(
              'UNKNOWN_CONTRACT',
              b.file,
              `imports "${imp.contract}", which domain ${domain.name} has no contract of`,
              `imports[${i}].contract`,
            ),
          );
        } else if (!semver.validRange(imp.version)) {
          out.push(
            err('BAD_RANGE', b.file, `"${imp.version}" is not a semver range`, `imports[${i}].version`),
          );
        } else if (semver.valid(c.version) && !semver.satisfies(c.version, imp.version)) {
          out.push(
            err(
              'RANGE_UNSATISFIED',
              b.file,
              `imports ${imp.contract} ${imp.version}, but it is at ${c.version}`,
              `imports[${i}].version`,
            ),
          );
        }
      });
    }
  }
  if (model.governance.contract_changes === 'owner') {
    const owners = new Map<string, string>();
    for (const d of model.domains.values()) for (const c of d.contracts.values()) owners.set(c.file, c.owner);
    for (const h of history) {
      const owner = owners.get(h.file);
      if (!owner) continue;
      if (h.repo === null) {
        out.push(
          warn(
            'CHANGE_UNATTRIBUTED',
            h.file,
            `commit ${h.commit.slice(0, 10)} changed this contract without a "Realm-Repo:" trailer: cannot tell which repo made it`,
          ),
        );
      } else if (h.repo !== owner) {
        out.push(
          err(
            'NOT_OWNER_CHANGE',
            h.file,
            `commit ${h.commit.slice(0, 10)} by repo ${h.repo} changed a contract that ${owner} owns`,
          ),
        );
      }
    }
  }
  return out;
}

/** The repos that share a domain with `repo` (itself included when it is in any). */
export function domainPeers(model: RealmModel, repo: string): { repos: string[]; domains: string[] } {
  const domains = [...model.domains.values()].filter((d) => d.bindings.has(repo)).map((d) => d.name);
  const repos = new Set<string>([repo]);
  for (const name of domains) for (const r of model.domains.get(name)!.bindings.keys()) repos.add(r);
  return { repos: [...repos], domains };
}

/**
 * The realm's state as it matters for notifications: contract versions and bindings. Compared
 * with the last recorded one to find changes made by anyone, however they were made.
 */
export function realmSnapshot(model: RealmModel): Map<string, string> {
  const out = new Map<string, string>();
  for (const d of model.domains.values()) {
    for (const c of d.contracts.values()) out.set(`contract:${d.name}/${c.name}`, c.version);
    for (const b of d.bindings.values()) out.set(`binding:${d.name}/${b.repo}`, b.role);
  }
  return out;
}

export type RealmChange =
  | { kind: 'contract'; domain: string; contract: string; old_version: string; new_version: string }
  | { kind: 'binding'; domain: string; repo: string; change: 'added' | 'removed' };

export function diffSnapshots(before: Map<string, string>, after: Map<string, string>): RealmChange[] {
  const out: RealmChange[] = [];
  for (const [key, value] of after) {
    const old = before.get(key);
    const [kind, rest] = key.split(':') as [string, string];
    const [domain, name] = rest.split('/') as [string, string];
    if (kind === 'contract' && old !== undefined && old !== value)
      out.push({ kind: 'contract', domain, contract: name, old_version: old, new_version: value });
    if (kind === 'binding' && old === undefined)
      out.push({ kind: 'binding', domain, repo: name, change: 'added' });
  }
  for (const key of before.keys()) {
    if (after.has(key) || !key.startsWith('binding:')) continue;
    const [domain, repo] = key.slice('binding:'.length).split('/') as [string, string];
    out.push({ kind: 'binding', domain, repo, change: 'removed' });
  }
  return out;
}
