/**
 * Writes no hook saw: a script an agent runs, a code generator, a person's editor changing a file
 * another live session holds. One process of each machine (whichever serving process holds the
 * machine's lease) watches the folders of the held files in every worktree its sessions work in,
 * and when a held file's content changes with no edit hook having named it, tells each holder
 * (a notification, which its hooks deliver and the dashboard shows), naming who most likely did
 * it: the session whose shell command a hook saw just before, or the one working in that folder.
 *
 * Bounded: nothing is watched while nothing is held; at most MAX_FOLDERS folders, MAX_PATTERNS
 * patterns; ignored folders (dependencies, build output, `.git`) are never watched and a file git
 * ignores is never reported; git runs only for a change about to be reported, outside any write.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import type { AppContext } from '../../app/context.js';
import { pathOf } from '../../core/claim-target.js';
import { inline } from '../../core/fence.js';
import { type CompiledGlob, glob, matchPath } from '../../core/glob.js';
import { isGlob, literalBase } from '../../core/paths.js';
import { FolderWatch } from '../../integrations/folder-watch.js';
import { gitIgnores } from '../../integrations/git-status.js';
import type { NotificationsService } from '../notifications/notifications-service.js';
import { stateOf } from '../sessions/liveness.js';

const TICK_MS = 250;
const REBUILD_MS = 2_000;
const LEASE_MS = 6_000;
/** A change is judged once its file has been quiet this long (a write in several parts is one). */
const SETTLE_MS = 500;
/**
 * A change no hook has named yet waits this long after its last write for the edit tool's
 * after-hook (which runs once the tool is done) before it is reported.
 */
const GRACE_MS = 1_500;
/** An edit hook that named the file this long before the change saw it (the tool ran meanwhile). */
const SEEN_BEFORE_MS = 15_000;
/** A shell command a hook saw this long before a change is a suspect. */
const SHELL_BEFORE_MS = 60_000;
const SIGHTINGS_KEPT_MS = 10 * 60_000;
const MAX_PATTERNS = 2_000;
const MAX_FOLDERS = 500;
const MAX_HASHED_BYTES = 4 * 1024 * 1024;
/** Folders never watched, wherever they are: dependencies, build output, caches, git's own. */
const IGNORED = new Set([
  '.git',
  'node_modules',
  'dist',
  'build',
  'out',
  'target',
  'coverage',
  '.next',
  '.cache',
  '__pycache__',
  '.venv',
  'venv',
]);

interface Held {
  glob: CompiledGlob;
  sessionId: string;
}

interface Tree {
  projectId: string;
  worktree: string;
  sessions: Array<{ id: string; name: string }>;
}

interface Candidate {
  tree: Tree;
  rel: string;
  firstAt: number;
  lastAt: number;
}

const ignoredPath = (rel: string) => rel.split('/').some((part) => IGNORED.has(part));

/** A file's content digest, or null when it is gone, not a file, or too large to read here. */
function digestOf(path: string): string | null {
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st?.isFile()) return null;
    if (st.size > MAX_HASHED_BYTES) return `large:${st.size}:${st.mtimeMs}`;
    return createHash('sha1').update(readFileSync(path)).digest('hex');
  } catch {
    return null;
  }
}

export class UnseenWrites {
  private readonly instance = randomUUID();
  private readonly folders: FolderWatch;
  private folderTrees = new Map<string, Tree>();
  private held = new Map<string, Held[]>();
  private readonly digests = new Map<string, string | null>();
  private readonly candidates = new Map<string, Candidate>();
  /** Sightings that explained a change already (by id, with when): each explains one edit. */
  private readonly used = new Map<string, number>();
  private holding = false;
  private leaseAt = 0;
  private rebuiltAt = 0;
  private purgedAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private busy = false;

  constructor(
    private readonly app: AppContext,
    private readonly notifications: NotificationsService,
  ) {
    this.folders = new FolderWatch(
      (folder, name) => this.changed(folder, name),
      (folder, why) => this.app.log.info('watch.polling', { folder, why: why.slice(0, 200) }),
    );
  }

  start(): void {
    this.timer = setInterval(() => {
      if (this.busy) return;
      this.busy = true;
      this.tick()
        .catch((error: Error) => this.app.log.warn('watch.failed', { message: error.message }))
        .finally(() => {
          this.busy = false;
        });
    }, TICK_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.folders.close();
    if (this.holding) await this.app.store.leases.release(this.lease(), this.instance).catch(() => {});
    this.holding = false;
  }

  /** How many folders are watched now (0 while nothing is held, or another process watches). */
  get watching(): number {
    return this.folders.size;
  }

  private lease(): string {
    return `watch:${this.app.host}`;
  }

  private async tick(): Promise<void> {
    const now = this.app.now();
    if (now - this.leaseAt >= LEASE_MS / 3) {
      this.leaseAt = now;
      const was = this.holding;
      this.holding = await this.app.store.leases.hold(
        this.lease(),
        this.instance,
        process.pid,
        now,
        now + LEASE_MS,
      );
      if (!this.holding && was) this.reset();
    }
    if (!this.holding) return;
    if (now - this.rebuiltAt >= REBUILD_MS) {
      this.rebuiltAt = now;
      await this.rebuild();
    }
    const due = [...this.candidates].filter(([, c]) => now - c.lastAt >= SETTLE_MS);
    for (const [path, c] of due) {
      if (this.candidates.get(path) !== c) continue; // written again meanwhile: judged later
      if (
        (await this.judge(path, c, now - c.lastAt >= GRACE_MS)) === 'done' &&
        this.candidates.get(path) === c
      )
        this.candidates.delete(path);
    }
    if (now - this.purgedAt >= 60_000) {
      this.purgedAt = now;
      await this.app.store.sightings.purge(now - SIGHTINGS_KEPT_MS);
      for (const [id, at] of this.used) if (at < now - SIGHTINGS_KEPT_MS) this.used.delete(id);
    }
  }

  private reset(): void {
    this.folders.set([]);
    this.folderTrees = new Map();
    this.held = new Map();
    this.candidates.clear();
  }

  /** What is held now, by live sessions, in the projects this machine's sessions work in. */
  private async rebuild(): Promise<void> {
    const { store } = this.app;
    const sessions = await store.sessions.worktreesOnHost(this.app.host);
    const rows =
      sessions.length === 0 ? [] : await store.claims.livePatternsNearHost(this.app.host, MAX_PATTERNS);
    const held = new Map<string, Held[]>();
    const paths = new Map<string, Set<string>>();
    for (const row of rows) {
      if (stateOf(this.app, { ...row, status: row.session_status }) !== 'active') continue;
      const path = pathOf(row.pattern);
      held.set(row.project_id, [
        ...(held.get(row.project_id) ?? []),
        { glob: glob(path), sessionId: row.session_id },
      ]);
      paths.set(row.project_id, (paths.get(row.project_id) ?? new Set()).add(path));
    }
    this.held = held;
    const trees = new Map<string, Tree>();
    for (const s of sessions) {
      if (!held.has(s.project_id)) continue;
      const tree = trees.get(s.worktree) ?? { projectId: s.project_id, worktree: s.worktree, sessions: [] };
      tree.sessions.push({ id: s.id, name: s.name });
      trees.set(s.worktree, tree);
    }
    const folderTrees = new Map<string, Tree>();
    for (const tree of trees.values())
      for (const path of paths.get(tree.projectId) ?? [])
        for (const folder of foldersOf(tree.worktree, path, MAX_FOLDERS - folderTrees.size))
          if (!folderTrees.has(folder)) folderTrees.set(folder, tree);
    for (const [folder, tree] of folderTrees) if (!this.folderTrees.has(folder)) this.remember(folder, tree);
    this.folderTrees = folderTrees;
    this.folders.set(folderTrees.keys());
  }

  /** The digests of a newly watched folder's held files: a change is judged against them. */
  private remember(folder: string, tree: Tree): void {
    let names: string[];
    try {
      names = readdirSync(folder).slice(0, 1_000);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(folder, name);
      if (!this.digests.has(path) && this.holders(tree, this.rel(tree, path)).length > 0)
        this.digests.set(path, digestOf(path));
    }
  }

  private rel(tree: Tree, path: string): string {
    return relative(tree.worktree, path).split(sep).join('/');
  }

  private holders(tree: Tree, rel: string): string[] {
    return [
      ...new Set(
        (this.held.get(tree.projectId) ?? []).filter((h) => matchPath(h.glob, rel)).map((h) => h.sessionId),
      ),
    ];
  }

  private changed(folder: string, name: string): void {
    const tree = this.folderTrees.get(folder);
    if (!tree) return;
    const path = join(folder, name);
    const rel = this.rel(tree, path);
    if (ignoredPath(rel) || this.holders(tree, rel).length === 0) return;
    const now = this.app.now();
    const known = this.candidates.get(path);
    this.candidates.set(path, { tree, rel, firstAt: known?.firstAt ?? now, lastAt: now });
  }

  /**
   * A held file changed: unless its content is the same, a hook saw it, or git ignores it, say so.
   * `final`: no more waiting for an edit tool's after-hook ('wait' asks to be judged again).
   */
  private async judge(path: string, c: Candidate, final: boolean): Promise<'wait' | 'done'> {
    const before = this.digests.get(path);
    const digest = digestOf(path);
    if (before !== undefined && before === digest) return 'done';
    const holders = this.holders(c.tree, c.rel);
    if (holders.length === 0) return 'done';
    const sightings = await this.app.store.sightings.around(
      c.tree.projectId,
      c.rel,
      c.firstAt - SHELL_BEFORE_MS,
    );
    // An edit a hook named explains one change: its before- and after-hook's sightings go together.
    const edit = sightings.find(
      (s) =>
        s.kind === 'edit' && s.detail === c.rel && s.at >= c.firstAt - SEEN_BEFORE_MS && !this.used.has(s.id),
    );
    if (!edit && !final) return 'wait';
    this.digests.set(path, digest);
    if (edit) {
      for (const s of sightings)
        if (s.kind === 'edit' && s.detail === c.rel && s.session_id === edit.session_id)
          this.used.set(s.id, s.at);
      return 'done';
    }
    // Who most likely did it: a shell command a hook saw just before (in that folder first), else
    // the one session working in that folder.
    const shells = sightings.filter((s) => s.kind === 'shell' && s.at <= c.lastAt);
    const shell = shells.find((s) => s.worktree === c.tree.worktree) ?? shells[0];
    const only = c.tree.sessions.length === 1 ? c.tree.sessions[0]! : null;
    const suspect = shell
      ? {
          id: shell.session_id,
          evidence: `its shell command \`${inline(shell.detail, 120)}\` ran ${Math.max(0, Math.round((c.firstAt - shell.at) / 1000))} s before`,
        }
      : only && !holders.includes(only.id)
        ? { id: only.id, evidence: 'the only session working in that folder; no hook saw it write' }
        : null;
    // A holder's own script writing its own file is its own work.
    const told = holders.filter((h) => h !== suspect?.id);
    if (told.length === 0 || gitIgnores(c.tree.worktree, c.rel)) return 'done';
    const by = suspect ? await this.app.store.sessions.get(suspect.id) : undefined;
    this.app.log.info('watch.unseen_write', {
      file: c.rel,
      folder: c.tree.worktree,
      holders: told,
      by: by?.id ?? null,
    });
    await this.notifications.notify(told, {
      type: 'unseen_write',
      subject: `unseen_write:${c.tree.worktree}:${c.rel}`,
      project: c.tree.projectId,
      payload: {
        file: c.rel,
        folder: c.tree.worktree,
        by: by?.name ?? null,
        by_session_id: by?.id ?? null,
        evidence:
          suspect && by
            ? suspect.evidence
            : 'no hook saw a shell command or an edit of it: a script, a generator or a person',
      },
    });
    return 'done';
  }
}

/**
 * The folders to watch for a held path in a worktree: a file's folder, a glob's literal base, and
 * under `**` its subfolders (ignored ones skipped), at most `room`.
 */
function foldersOf(worktree: string, path: string, room: number): string[] {
  if (room <= 0) return [];
  if (!isGlob(path)) {
    const folder = dirname(path);
    return ignoredPath(folder) ? [] : [folder === '.' ? worktree : join(worktree, folder)];
  }
  const base = literalBase(path);
  if (ignoredPath(base)) return [];
  const root = base === '' ? worktree : join(worktree, base);
  if (!path.includes('**')) return [root];
  const out: string[] = [];
  const queue = [root];
  while (queue.length > 0 && out.length < room) {
    const folder = queue.shift()!;
    out.push(folder);
    try {
      for (const entry of readdirSync(folder, { withFileTypes: true }))
        if (entry.isDirectory() && !IGNORED.has(entry.name)) queue.push(join(folder, entry.name));
    } catch {
      // gone, or not readable: nothing under it to watch
    }
  }
  return out;
}
