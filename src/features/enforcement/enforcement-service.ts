import { join, resolve } from 'node:path';
import type { AppContext } from '../../app/context.js';
import { pathOf } from '../../core/claim-target.js';
import { inline, shown } from '../../core/fence.js';
import { glob, globBudget, matchPath } from '../../core/glob.js';
import { LIMITS } from '../../core/limits.js';
import { describeAge } from '../../core/liveness.js';
import { type FileEffect, fileEffects } from '../../core/shell-command.js';
import { fileAt, findBase } from '../../integrations/git-changes.js';
import { locateFolder } from '../../integrations/git-repo.js';
import { workingTreeChanges } from '../../integrations/git-status.js';
import { patchedPaths } from '../../integrations/patch-files.js';
import type { SessionRow } from '../../store/sessions-store.js';
import type { ChangesService } from '../changes/changes-service.js';
import { type Fence, fencesOf } from '../claims/claim-fences.js';
import { normalizeInside } from '../claims/claim-paths.js';
import type { CheckConflict, StaleClaim, Viewpoint } from '../claims/claim-types.js';
import type { ClaimsService } from '../claims/claims-service.js';
import type { ClientIdentity } from '../sessions/session-types.js';
import type { SessionsService } from '../sessions/sessions-service.js';
import { blobOf, editBreaksUses, editMeetsChanges, editOf, readEdit } from './edit-merge-check.js';
import { holdsPart, reachedBy } from './partial-holds.js';

export type Enforcement = 'deny' | 'ask' | 'warn';

/** What a sighting keeps of a shell command, and how many files of one edit. */
const SIGHTED_COMMAND_CHARS = 500;
const SIGHTED_FILES = 100;

/** What an edit or command would touch that another live session holds. */
export interface Verdict {
  conflicts: CheckConflict[];
  stale: StaleClaim[];
  /** For the agent (and the person asked): who holds what, and how to coordinate. Null when clear. */
  reason: string | null;
  /** Why the action could not be checked at all (then `enforcement_on_error` decides). */
  unchecked?: string;
}

const CLEAR: Verdict = { conflicts: [], stale: [], reason: null };

/**
 * Turns claims into protection at the moment a session is about to change files: used by the
 * client hooks and the git pre-commit guard.
 */
export class EnforcementService {
  constructor(
    private readonly app: AppContext,
    private readonly sessions: SessionsService,
    private readonly claims: ClaimsService,
    private readonly changes: ChangesService,
  ) {}

  /**
   * Whose edit a hook sees: the collab session of the client session (started in `cwd` if it has
   * none yet), or, when the client process has several and nothing tells them apart, none of them
   * (then everyone else's claims count, and the edit is nobody's claim). `continues`: the client
   * says its new session id carries on the previous session (Claude Code's /clear).
   */
  async sessionFor(
    identity: ClientIdentity,
    cwd: string,
    client: string | null,
    continues = false,
    /** Whether a client session with none yet gets one (a wake hook never starts one). */
    create = true,
  ): Promise<{ session: SessionRow | null; viewpoint: Viewpoint }> {
    const location = this.sessions.locate(cwd);
    const found = await this.sessions.clients.forHook(identity, location.worktree, {
      create: create ? { projectRoot: cwd, client } : null,
      continues,
    });
    if (found.session) {
      // Hooks run on every tool call: a heartbeat only when one is due.
      if (this.sessions.heartbeatDue(found.session.last_heartbeat))
        await this.sessions.touch(found.session.id);
      return { session: found.session, viewpoint: found.session };
    }
    // Not made (`create` false) and nobody else here: a viewpoint outside any session.
    if (found.ambiguous.length === 0)
      return { session: null, viewpoint: { id: null, project_id: '', worktree: location.worktree } };
    return { session: null, viewpoint: this.amongSeveral(found.ambiguous, location.worktree) };
  }

  /**
   * How a process in `cwd` sees claims: through its client's session if it has one (its own claims
   * do not count), else as a person outside any session. Null when the project has no claims at all.
   * Never creates a session (the git guard runs under people as well as agents).
   */
  async viewpointFor(identity: ClientIdentity, cwd: string): Promise<Viewpoint | null> {
    const location = this.sessions.locate(cwd);
    const found = await this.sessions.clients.forHook(identity, location.worktree, { create: null });
    if (found.session) return found.session;
    if (found.ambiguous.length > 0) return this.amongSeveral(found.ambiguous, location.worktree);
    const project = await this.app.store.projects.findFor(location);
    return project ? { id: null, project_id: project.id, worktree: location.worktree } : null;
  }

  private amongSeveral(sessions: SessionRow[], worktree: string): Viewpoint {
    return { id: null, project_id: sessions[0]!.project_id, worktree, also: sessions.map((s) => s.id) };
  }

  /** Files about to be written (absolute, or relative to `cwd`). */
  /**
   * `audience`: an agent (told in its tools' terms) or a person at a terminal (the commit guard:
   * told in commands).
   */
  async checkPaths(
    viewer: Viewpoint,
    paths: string[],
    cwd: string,
    action: string,
    audience: 'agent' | 'person' = 'agent',
  ): Promise<Verdict> {
    const patterns = normalizeInside(paths, cwd, viewer, this.app.log);
    if (patterns.length === 0) return CLEAR;
    const { conflicts, stale } = await this.claims.check(viewer, patterns);
    return {
      conflicts,
      stale,
      reason: conflicts.length > 0 ? this.describe(conflicts, action, audience) : null,
    };
  }

  /**
   * Whether an edit of one file (absolute, or relative to `cwd`) would write lines that meet
   * another live session's uncommitted change to it (`edit-merge-check.ts`): the reason, or null.
   */
  checkEditMerge(
    viewer: Viewpoint,
    file: string,
    cwd: string,
    propose: (current: string) => string | null,
  ): Promise<string | null> {
    return this.editOfOne(viewer, file, cwd, (path) => editMeetsChanges(this.app, viewer, path, propose));
  }

  /**
   * Whether an edit of one file would break another live session's uncommitted work once both
   * merge (an interface it changes that the other calls, or a call of one the other changed:
   * `editBreaksUses`): the reason, or null.
   */
  checkEditSemantic(
    viewer: Viewpoint,
    file: string,
    cwd: string,
    propose: (current: string) => string | null,
  ): Promise<string | null> {
    return this.editOfOne(viewer, file, cwd, (path) => editBreaksUses(this.app, viewer, path, propose));
  }

  /** A check of an edit of one file, by its path inside the worktree (null: outside it). */
  private async editOfOne(
    viewer: Viewpoint,
    file: string,
    cwd: string,
    check: (path: string) => Promise<string | null>,
  ): Promise<string | null> {
    const [path] = normalizeInside([file], cwd, viewer, this.app.log);
    return path ? check(path) : null;
  }

  /**
   * A verdict on an edit of one file, narrowed to the claims the edit reaches (`partial-holds.ts`):
   * a claim of one symbol, or the claim another session's edits made, that this edit stays apart
   * from lets it through, with a note each. An edit that cannot be read is judged as claimed.
   */
  async narrowToEdit(
    viewer: Viewpoint,
    file: string,
    cwd: string,
    verdict: Verdict,
    propose: (current: string) => string | null,
    action: string,
  ): Promise<Verdict & { notes: string[] }> {
    if (!verdict.conflicts.some(holdsPart)) return { ...verdict, notes: [] };
    const [path] = normalizeInside([file], cwd, viewer, this.app.log);
    const edit = path ? await readEdit(this.app, viewer, path, propose) : null;
    if (!edit) return { ...verdict, notes: [] };
    const { reached, notes } = await reachedBy(this.app, edit, verdict.conflicts);
    return {
      conflicts: reached,
      stale: verdict.stale,
      reason: reached.length > 0 ? this.describe(reached, action) : null,
      notes,
    };
  }

  /**
   * A verdict on a commit, narrowed as `narrowToEdit` narrows an edit's: each file held in part is
   * judged by what the commit's branch changes in it — from the copy's base to the staged text.
   */
  async narrowToCommit(
    viewer: Viewpoint,
    verdict: Verdict,
    action: string,
    /** Commits to judge instead (landing): from `base` to `head`, not to what is staged. */
    range?: { base: string; head: string },
    audience: 'agent' | 'person' = 'person',
  ): Promise<Verdict & { notes: string[] }> {
    const partial = verdict.conflicts.filter(holdsPart);
    const place = partial.length > 0 ? locateFolder(viewer.worktree) : null;
    if (place === null || place.kind !== 'git') return { ...verdict, notes: [] };
    const recorded = viewer.id && !range ? await this.app.store.changes.setOf(viewer.id) : undefined;
    const base =
      range?.base ?? recorded?.base_commit ?? (await findBase(place.worktree, place.commonDir)).commit;
    const reached = verdict.conflicts.filter((c) => !holdsPart(c));
    const notes: string[] = [];
    for (const path of new Set(partial.map((c) => pathOf(c.file)))) {
      const held = partial.filter((c) => pathOf(c.file) === path);
      const before = (await fileAt(place.worktree, base, path)) ?? '';
      const staged = await fileAt(place.worktree, range?.head ?? null, path);
      const edit =
        staged === null
          ? null
          : editOf(path, before, staged, [], before === '' ? null : blobOf(before), false);
      if (edit === null) {
        reached.push(...held);
        continue;
      }
      const judged = await reachedBy(this.app, edit, held);
      reached.push(...judged.reached);
      notes.push(...judged.notes);
    }
    return {
      conflicts: reached,
      stale: verdict.stale,
      reason: reached.length > 0 ? this.describe(reached, action, audience) : null,
      notes,
    };
  }

  /** What a session's commit of `files` would land that it held, lost, and another claimed since. */
  async fences(viewer: Viewpoint, files: string[]): Promise<Fence[]> {
    const session = viewer.id ? await this.app.store.sessions.get(viewer.id) : undefined;
    return session ? fencesOf(this.app, session, files) : [];
  }

  /**
   * A shell command: the files it would delete, move or discard. One too long to read within the
   * hook's time (`LIMITS.shellCommandChars`) is not guessed at: the verdict says why it could not
   * be checked.
   */
  async checkCommand(session: Viewpoint, command: string, cwd: string): Promise<Verdict> {
    if (command.length > LIMITS.shellCommandChars) {
      return {
        ...CLEAR,
        unchecked: `it is ${command.length.toLocaleString('en')} characters long, more than the ${LIMITS.shellCommandChars.toLocaleString('en')} read for files it would delete or move, so it was not checked`,
      };
    }
    const effects = fileEffects(command);
    if (effects.length === 0) return CLEAR;
    const paths = effects.flatMap((e) => this.pathsOf(e, session, cwd));
    if (paths.length === 0) return CLEAR;
    // The command is named, never echoed whole: a reason stays short.
    return this.checkPaths(
      session,
      paths,
      session.worktree,
      `\`${inline(effects.map((e) => e.command).join('; '), 160)}\``,
    );
  }

  /**
   * Records edited files as the session's claim, and asks for what the edit changed in them (their
   * hunks and symbols) to be read by a serving process of this machine.
   */
  async recordEdits(session: SessionRow, paths: string[], cwd: string): Promise<string[]> {
    const patterns = normalizeInside(paths, cwd, session, this.app.log);
    if (patterns.length === 0) return [];
    const { added } = await this.claims.recordEdits(session, patterns);
    await this.changes.request(session, patterns);
    await this.sighted(session, { files: patterns }, session.worktree);
    return added;
  }

  /**
   * The session was stopped by these claims: when one is released, it is told so (at its turn's
   * end, when woken, or with its next hook's news).
   */
  async waitFor(session: SessionRow, conflicts: CheckConflict[]): Promise<void> {
    const waits = [
      ...new Map(conflicts.map((c) => [c.claim_id, { claimId: c.claim_id, file: c.file }])).values(),
    ];
    if (waits.length === 0) return;
    const { store } = this.app;
    await store.write(() => store.claimWaits.add(session.id, session.project_id, waits, this.app.now()), {
      project: session.project_id,
    });
  }

  /**
   * Notes what a hook saw a session about to do (an edit of these files, a shell command), so that
   * the watcher knows these writes were seen (`features/watch/`), and who ran a command that wrote
   * what no hook named.
   */
  async sighted(
    session: SessionRow,
    target: { files: string[] } | { command: string },
    cwd: string,
  ): Promise<void> {
    const shell = 'command' in target;
    const details = shell
      ? [target.command.slice(0, SIGHTED_COMMAND_CHARS)]
      : normalizeInside(target.files, cwd, session, this.app.log);
    try {
      await this.app.store.sightings.add(
        {
          project_id: session.project_id,
          session_id: session.id,
          worktree: session.worktree,
          kind: shell ? 'shell' : 'edit',
          at: this.app.now(),
        },
        details.slice(0, SIGHTED_FILES),
      );
    } catch (error) {
      // What was seen only helps tell a stranger's write later: it never stops the call.
      this.app.log.info('hook.sighting_skipped', { message: (error as Error).message.slice(0, 200) });
    }
  }

  /** Paths relative to the worktree root that an effect touches. */
  private pathsOf(effect: FileEffect, session: Viewpoint, cwd: string): string[] {
    const inWorktree = (p: string) => normalizeInside([p], cwd, session, this.app.log);
    if (effect.kind === 'paths') return effect.paths.flatMap(inWorktree);
    if (effect.kind === 'patch') {
      // Relative to the folder the command runs in, or (`git apply`) to the worktree's root.
      const base = effect.dir === null ? session.worktree : resolve(cwd, effect.dir);
      const named = effect.file ? patchedPaths(resolve(cwd, effect.file), effect.strip) : null;
      return (named ?? ['**']).flatMap((p) => normalizeInside([join(base, p)], cwd, session, this.app.log));
    }
    let changes: { tracked: string[]; untracked: string[] };
    try {
      changes = workingTreeChanges(session.worktree);
    } catch {
      return [];
    }
    const files = effect.which === 'tracked' ? changes.tracked : changes.untracked;
    if (effect.paths.length === 0) return files;
    const scopes = effect.paths
      .flatMap(inWorktree)
      .map((p) => glob(p.endsWith('/**') || p.includes('*') ? p : `${p}/**`));
    const exact = new Set(effect.paths.flatMap(inWorktree));
    const budget = globBudget();
    return files.filter((f) => exact.has(f) || scopes.some((g) => matchPath(g, f, budget)));
  }

  /** The reason an agent (or its user) reads: who holds the files, why, since when, what to do. */
  describe(conflicts: CheckConflict[], action: string, audience: 'agent' | 'person' = 'agent'): string {
    const now = this.app.now();
    const bySession = new Map<string, CheckConflict[]>();
    for (const c of conflicts) bySession.set(c.session_id, [...(bySession.get(c.session_id) ?? []), c]);
    const lines = [...bySession.values()].map((cs) => {
      const first = cs[0]!;
      const files = [...new Set(cs.map((c) => c.file))].join(', ');
      // Names and intents are other sessions' words: one line each, bounded.
      return `- ${inline(files, 400)}: session "${inline(first.session, 60)}" (session_id ${first.session_id}) since ${describeAge(Date.parse(first.started_at), now)}, intent ${shown(first.intent, 200)} (scope ${first.scope})`;
    });
    const holders = [...bySession.keys()];
    if (audience === 'person') {
      const ids = holders.map((h) => h.slice(0, 8));
      const claims = [...new Set(conflicts.map((c) => c.claim_id.slice(0, 8)))];
      return [
        `session-collab: ${action} would change files another session is working on:`,
        ...lines,
        'What you can do:',
        `  wait for ${holders.length === 1 ? 'it' : 'them'} (session-collab status shows who holds what), or tell ${holders.length === 1 ? 'it' : 'them'}:  ${ids.map((id) => `session-collab message ${id} "…"`).join('  ')}`,
        `  let the files go:  ${claims.map((id) => `session-collab release ${id} --reason "…"`).join('  ')}`,
        `  end a session that is no longer working:  ${ids.map((id) => `session-collab end ${id}`).join('  ')}  (or session-collab clean for every dead one)`,
      ].join('\n');
    }
    return [
      `session-collab: ${action} would change files another session is working on:`,
      ...lines,
      `Coordinate first: message ${holders.length === 1 ? 'that session' : 'those sessions'} with collab_message_send (to_session_id ${holders.map((h) => `"${h}"`).join(' or ')}), wait until the claim is released (collab_check tells you), or ask the user whether to go ahead.`,
    ].join('\n');
  }
}
