import { existsSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import type { AppContext } from '../../app/context.js';
import { CollabError } from '../../core/errors.js';
import { shown } from '../../core/fence.js';
import {
  type ContractDef,
  checkRealm,
  diffSnapshots,
  domainPeers,
  type Finding,
  type RealmModel,
  realmSnapshot,
} from '../../core/realm-model.js';
import { gitWords } from '../../integrations/git.js';
import type { ProjectLocation } from '../../integrations/git-repo.js';
import {
  branchStatus,
  currentBranch,
  defaultBranch,
  ensureWorktree,
} from '../../integrations/git-worktrees.js';
import {
  contractHistory,
  findMembership,
  loadRealm,
  membershipProblem,
  realPath,
} from '../../integrations/realm-files.js';
import type { SessionRow } from '../../store/sessions-store.js';
import type { NotificationsService } from '../notifications/notifications-service.js';
import type { SessionsService } from '../sessions/sessions-service.js';

/** Where a call comes from: its realm, and which repo of it (null when run from the realm folder). */
export interface RealmContext {
  model: RealmModel;
  repo: string | null;
}

export class RealmService {
  constructor(
    private readonly app: AppContext,
    private readonly sessions: SessionsService,
    private readonly notifications: NotificationsService,
  ) {}

  /**
   * The realm of a folder: `realm` (a path) when given, else the one its repo's
   * `.session-collab.yaml` names, else the folder itself when it is a realm. Reading a realm also
   * turns what changed since it was last read into notifications.
   */
  async context(cwd: string, realm?: string): Promise<RealmContext> {
    let membership: ReturnType<typeof findMembership>;
    try {
      membership = findMembership(cwd);
    } catch (error) {
      throw new CollabError(
        'INVALID_INPUT',
        (error as Error).message,
        'Fix .session-collab.yaml (realm: <folder>, repo: <name>).',
      );
    }
    const folder = realm
      ? resolve(cwd, realm)
      : (membership?.realm ?? (existsSync(join(cwd, 'realm.yaml')) ? cwd : null));
    if (!folder) {
      throw new CollabError(
        'REALM_NOT_FOUND',
        `${cwd} belongs to no realm (no ${'.session-collab.yaml'} here or above, and it is no realm folder).`,
        'Create one with `session-collab realm init <folder>` and add this repo with `session-collab realm add-repo`, or pass realm.',
      );
    }
    let model: RealmModel;
    try {
      model = loadRealm(realPath(folder) ?? folder);
    } catch (error) {
      throw new CollabError('REALM_NOT_FOUND', (error as Error).message, 'Check the realm folder path.');
    }
    if (!(await this.isRegistered(model.root))) {
      throw new CollabError(
        'REALM_NOT_REGISTERED',
        `${model.root} holds a realm that is not registered on this machine.`,
        `If you trust it, register it: session-collab realm register ${model.root}`,
      );
    }
    let repo = membership && resolve(membership.realm) === model.root ? membership.repo : null;
    if (!repo) {
      // A folder inside one of the realm's repos counts as that repo.
      for (const r of model.repos.values()) {
        const rel = relative(r.path, cwd);
        if (rel === '' || (!rel.startsWith('..') && !rel.startsWith(sep) && !rel.includes(`..${sep}`)))
          repo = r.name;
      }
    }
    await this.refresh(model);
    return { model, repo };
  }

  /** Whether a realm folder (a real path) is registered here, or listed in config.json's `realms`. */
  async isRegistered(root: string): Promise<boolean> {
    if (await this.app.store.realms.get(root)) return true;
    return this.app.config.realms.some((folder) => realPath(resolve(folder)) === root);
  }

  /**
   * Registers a realm folder (it must hold a readable realm.yaml), so that realm tools and commands
   * work with it. Returns its real path and name.
   */
  async register(folder: string): Promise<{ root: string; name: string; already: boolean }> {
    const root = realPath(folder);
    let model: RealmModel;
    try {
      if (!root) throw new Error(`${folder} does not exist`);
      model = loadRealm(root);
    } catch (error) {
      throw new CollabError(
        'REALM_NOT_FOUND',
        (error as Error).message,
        'Pass a realm folder (one with realm.yaml), or create one with `session-collab realm init`.',
      );
    }
    const already = await this.isRegistered(model.root);
    await this.app.store.write(() => this.app.store.realms.register(model.root, model.name, this.app.now()));
    return { root: model.root, name: model.name, already };
  }

  /** Forgets a registered realm folder (its files stay); false when it was not registered. */
  unregister(folder: string): Promise<boolean> {
    const root = realPath(folder) ?? resolve(folder);
    return this.app.store.write(() => this.app.store.realms.unregister(root));
  }

  /** The realm folders this machine works with: registered, and listed in config.json. */
  async registered(): Promise<
    Array<{
      root: string;
      name: string | null;
      source: 'registered' | 'config';
      exists: boolean;
    }>
  > {
    const rows = (await this.app.store.realms.list()).map((r) => ({
      root: r.root,
      name: r.name,
      source: 'registered' as const,
      exists: existsSync(join(r.root, 'realm.yaml')),
    }));
    const listed = this.app.config.realms
      .map((folder) => realPath(resolve(folder)) ?? resolve(folder))
      .filter((root) => !rows.some((r) => r.root === root))
      .map((root) => ({
        root,
        name: null,
        source: 'config' as const,
        exists: existsSync(join(root, 'realm.yaml')),
      }));
    return [...rows, ...listed];
  }

  /** Compares the realm with its last recorded state and notifies the sessions a change concerns. */
  async refresh(model: RealmModel): Promise<void> {
    const { store } = this.app;
    const now = realmSnapshot(model);
    // Which project each repo is, read from its folder before the write: no file is read while the
    // write holds the database.
    const projectKeys = new Map([...model.repos.keys()].map((r) => [r, this.projectKeyOf(model, r)]));
    await store.write(async () => {
      const before = await store.realmState.snapshot(model.root);
      if (before) {
        for (const change of diffSnapshots(before, now)) {
          const domain = model.domains.get(change.domain);
          if (change.kind === 'contract') {
            const contract = domain?.contracts.get(change.contract);
            const consumers = [...(domain?.bindings.values() ?? [])]
              .filter((b) => b.role !== 'provider' && b.repo !== contract?.owner)
              .map((b) => b.repo);
            await this.notifications.notify(await this.liveSessionIds(projectKeys, consumers), {
              type: 'contract_updated',
              subject: `contract:${model.root}:${change.domain}/${change.contract}`,
              payload: {
                realm: model.name,
                domain: change.domain,
                contract: change.contract,
                from_repo: contract?.owner ?? null,
                old_version: change.old_version,
                new_version: change.new_version,
              },
              project: null,
            });
          } else {
            const others = [...(domain?.bindings.keys() ?? [])].filter((r) => r !== change.repo);
            await this.notifications.notify(await this.liveSessionIds(projectKeys, others), {
              type: 'binding_changed',
              subject: `binding:${model.root}:${change.domain}/${change.repo}`,
              payload: {
                realm: model.name,
                domain: change.domain,
                repo: change.repo,
                change: change.change === 'added' ? 'joined the domain' : 'left the domain',
              },
              project: null,
            });
          }
        }
      }
      await store.realmState.record(model.root, now, before);
    });
  }

  /** Live sessions working in a repo of the realm (any of its worktrees). */
  liveSessionsOf(model: RealmModel, repo: string): Promise<SessionRow[]> {
    return this.liveSessionsAt(this.projectKeyOf(model, repo));
  }

  /** Where a repo of the realm is (its project's keys), read from its folder; null if it has none. */
  private projectKeyOf(model: RealmModel, repo: string): ProjectLocation | null {
    const def = model.repos.get(repo);
    if (!def || !existsSync(def.path)) return null;
    try {
      return this.sessions.locate(def.path);
    } catch {
      return null;
    }
  }

  /** Live sessions of the project of this place (any of its worktrees and clones). */
  private async liveSessionsAt(place: ProjectLocation | null): Promise<SessionRow[]> {
    if (place === null) return [];
    const project = await this.app.store.projects.findFor(place);
    if (!project) return [];
    const sessions: SessionRow[] = [];
    for (const s of await this.sessions.liveInProject(project.id))
      sessions.push((await this.app.store.sessions.get(s.id))!);
    return sessions;
  }

  /** The ids of the live sessions in these repos, by the places `refresh` read beforehand. */
  private async liveSessionIds(
    projectKeys: Map<string, ProjectLocation | null>,
    repos: string[],
  ): Promise<string[]> {
    const ids: string[] = [];
    for (const repo of repos)
      for (const s of await this.liveSessionsAt(projectKeys.get(repo) ?? null)) ids.push(s.id);
    return ids;
  }

  check(ctx: RealmContext): { ok: boolean; errors: Finding[]; warnings: Finding[] } {
    const findings = checkRealm(ctx.model, contractHistory(ctx.model.root));
    for (const repo of ctx.model.repos.values()) {
      const problem = membershipProblem(ctx.model.root, repo);
      if (problem)
        findings.push({
          level: 'error',
          code: 'NOT_A_MEMBER',
          file: repo.file,
          message: `repo ${repo.name}: ${problem}; add it with \`session-collab realm add-repo ${repo.name} --path <its folder>\``,
        });
    }
    const errors = findings.filter((f) => f.level === 'error');
    return { ok: errors.length === 0, errors, warnings: findings.filter((f) => f.level === 'warning') };
  }

  contract(ctx: RealmContext, name: string, domain?: string): ContractDef {
    const matches = [...ctx.model.domains.values()]
      .filter((d) => !domain || d.name === domain)
      .flatMap((d) => (d.contracts.has(name) ? [d.contracts.get(name)!] : []));
    if (matches.length === 0) {
      throw new CollabError(
        'CONTRACT_NOT_FOUND',
        `No contract "${name}"${domain ? ` in domain ${domain}` : ''} in realm ${ctx.model.name}.`,
        'See the contracts with realm_status.',
      );
    }
    if (matches.length > 1) {
      throw new CollabError(
        'INVALID_INPUT',
        `Contract "${name}" exists in domains ${matches.map((m) => m.domain).join(', ')}.`,
        'Pass domain to choose one.',
      );
    }
    return matches[0]!;
  }

  /** The domains, exported and imported contracts of a repo. */
  repoContext(ctx: RealmContext) {
    const domains: string[] = [];
    const exports: string[] = [];
    const imports: string[] = [];
    if (ctx.repo) {
      for (const d of ctx.model.domains.values()) {
        const b = d.bindings.get(ctx.repo);
        if (!b) continue;
        domains.push(d.name);
        exports.push(...b.exports.map((c) => `${d.name}/${c}`));
        imports.push(...b.imports.map((i) => `${d.name}/${i.contract}@${i.version}`));
      }
    }
    return { realm: ctx.model.name, repo: ctx.repo, domains, exports, imports };
  }

  /** Worktrees on branch `rfc` for the chosen repos (default: this repo's domain peers). */
  createWorktrees(ctx: RealmContext, rfc: string, repos?: string[]) {
    if (!/^[\w./-]+$/.test(rfc) || rfc.includes('..')) {
      throw new CollabError(
        'INVALID_INPUT',
        `rfc: "${rfc}" is not a usable branch name.`,
        'Use letters, digits, "-", "_", "." and "/".',
      );
    }
    let selected: string[];
    let reason: string;
    if (repos && repos.length > 0) {
      const unknown = repos.filter((r) => !ctx.model.repos.has(r));
      if (unknown.length > 0)
        throw new CollabError(
          'INVALID_INPUT',
          `repos: ${unknown.map((r) => shown(r, 60)).join(', ')} not in realm ${ctx.model.name}.`,
          `Repos: ${[...ctx.model.repos.keys()].join(', ')}.`,
        );
      // Each once, however often it is named.
      selected = [...new Set(repos)];
      reason = 'Repos chosen explicitly';
    } else if (ctx.repo) {
      const peers = domainPeers(ctx.model, ctx.repo);
      selected = peers.repos;
      reason =
        peers.domains.length > 0
          ? `Domain peers of ${ctx.repo} via ${peers.domains.join(', ')}`
          : `${ctx.repo} shares no domain: only itself`;
    } else {
      throw new CollabError(
        'INVALID_INPUT',
        'repos: not in a repo of the realm, so there are no domain peers to choose.',
        'Pass repos.',
      );
    }
    const paths: Record<string, string> = {};
    const created: string[] = [];
    const existing: string[] = [];
    // Only members: a path in the realm's files that is not one could be any repository.
    for (const name of selected) {
      const problem = membershipProblem(ctx.model.root, ctx.model.repos.get(name)!);
      if (problem)
        throw new CollabError(
          'INVALID_INPUT',
          `repos: ${name} is not a member of realm ${ctx.model.name}: ${problem}. No worktree was made.`,
          `Make it one: session-collab realm add-repo ${name} --path <its folder> --realm ${ctx.model.root}`,
        );
    }
    for (const name of selected) {
      const repo = ctx.model.repos.get(name)!;
      const path = join(this.app.paths.home, 'worktrees', ctx.model.name, rfc.replace(/\//g, '-'), name);
      try {
        (ensureWorktree(repo.path, path, rfc) === 'created' ? created : existing).push(name);
      } catch (error) {
        // What was made before stays (a call again finds it and goes on), and is said.
        const made = [...created, ...existing].map((n) => `${n} (${paths[n]})`);
        throw new CollabError(
          'INVALID_INPUT',
          `${name}: git could not make its worktree: ${gitWords(error)}${made.length > 0 ? ` Worktrees on ${rfc} already there: ${made.join(', ')}.` : ''}`,
          'Check the repo path in the realm and that the branch is free (checked out nowhere else); then call again.',
        );
      }
      paths[name] = path;
    }
    return { rfc, created, existing, reason, paths };
  }

  /** Per repo: uncommitted files, commits ahead of the default branch, pushed or not. */
  prStatus(ctx: RealmContext, rfc: string | null) {
    const repos = ctx.repo ? domainPeers(ctx.model, ctx.repo).repos : [...ctx.model.repos.keys()];
    return repos.map((name) => {
      const repo = ctx.model.repos.get(name)!;
      const problem = membershipProblem(ctx.model.root, repo);
      if (problem) return { repo: name, error: `not a member of the realm: ${problem}` };
      const branch = rfc ?? currentBranch(repo.path) ?? 'HEAD';
      const base = defaultBranch(repo.path, repo.default_branch);
      try {
        return { repo: name, ...branchStatus(repo.path, branch, base) };
      } catch (error) {
        return { repo: name, branch, error: (error as Error).message.split('\n')[0] };
      }
    });
  }
}
