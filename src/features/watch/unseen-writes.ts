/**
 * Writes no hook saw: a script an agent runs, a code generator, a person's editor changing a file
 * another live session holds. One process of each machine (whichever serving process holds the
 * machine's lease) watches the folders of held files in the worktrees its sessions work in (a held
 * file's folder; a glob's base and the folders below it), while something there is held, and
 * when a held file's content changes with no edit hook having named it, tells each holder (a
 * notification, which its hooks deliver and the dashboard shows), naming who most likely did it:
 * the session whose shell command a hook saw just before, or the one working in that folder.
 *
 * Bounded: nothing is watched while nothing is held; at most MAX_TREES worktrees, MAX_FOLDERS
 * folders and MAX_PATTERNS patterns per project; the folders are worked out again only when what
 * is held changes or a folder appears; dependencies, build output and `.git` are never watched, a file git ignores is never
 * reported; at most JUDGED_PER_TICK changes are judged (and git run for) per tick, MAX_CANDIDATES
 * wait; baselines are hashed within a byte budget. Git runs only for a change about to be
 * reported, and no work here happens inside a write.
 */
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { AppContext } from '../../app/context.js';
import { inline } from '../../core/fence.js';
import { FolderWatch } from '../../integrations/folder-watch.js';
import { gitIgnores } from '../../integrations/git-status.js';
import { SIGHTINGS_KEPT_MS } from '../../store/sightings-store.js';
import type { NotificationsService } from '../notifications/notifications-service.js';
import { slices } from '../slices.js';
import {
  type Held,
  heldFiles,
  heldFolders,
  heldMatches,
  heldPatterns,
  MAX_PATTERNS,
} from './held-patterns.js';
import { digestOf, ignoredPath, MAX_HASHED_BYTES, TEMPORARY } from './watched-files.js';

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
const MAX_TREES = 50;
const MAX_FOLDERS = 500;
const MAX_CANDIDATES = 5_000;
const JUDGED_PER_TICK = 20;
/** What hashing the held files' baselines may read per rebuild. */
const BASELINE_BUDGET_BYTES = 32 * 1024 * 1024;
const MAX_BASELINE_FILES = 2_000;
const WARN_EVERY_MS = 60_000;
/** Claims are read again at least this often (a session falls silent without changing them). */
const FULL_READ_MS = 30_000;

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
  /** Monotonic time of the last write (settling is timed by it, not by the wall clock). */
  lastMono: number;
}

export class UnseenWrites {
  private readonly instance = randomUUID();
  private readonly trees: FolderWatch;
  private watched = new Map<string, Tree>();
  /** The folders watched (each with its subfolders), by the tree they are in. */
  private folders = new Map<string, Tree>();
  private held = new Map<string, Held[]>();
  private heldKey = '';
  /** The projects' claim marks when their claims were last read, and when that was. */
  private marks = '';
  private fullReadAt = -Infinity;
  private digests = new Map<string, string | null>();
  private readonly candidates = new Map<string, Candidate>();
  /** Sightings that explained a change already (by id, with when): each explains one edit. */
  private readonly used = new Map<string, number>();
  private readonly warned = new Map<string, number>();
  private holding = false;
  private leaseAt = -Infinity;
  private rebuiltAt = -Infinity;
  private purgedAt = -Infinity;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly app: AppContext,
    private readonly notifications: NotificationsService,
  ) {
    this.trees = new FolderWatch(
      (folder, name) => this.changed(folder, join(folder, name)),
      // A folder not there yet is polled: said once a minute at most, not once per folder.
      (root, why) => this.warn('watch.polling', `${root}: ${why}`),
    );
  }

  start(): void {
    this.timer = setInterval(() => {
      if (this.running || this.stopped) return;
      this.running = this.tick()
        .catch((error: Error) => this.warn('watch.failed', error.message))
        .finally(() => {
          this.running = null;
        });
    }, TICK_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
    this.trees.close();
    if (this.holding) await this.app.store.leases.release(this.lease(), this.instance).catch(() => {});
    this.holding = false;
  }

  private lease(): string {
    return `watch:${this.app.host}`;
  }

  /** A warning, at most once a minute for the same event (a read-only database fails every tick). */
  private warn(event: string, message: string): void {
    const now = performance.now();
    if (now - (this.warned.get(event) ?? -Infinity) < WARN_EVERY_MS) return;
    this.warned.set(event, now);
    this.app.log.warn(event, { message: message.slice(0, 300) });
  }

  private async tick(): Promise<void> {
    const mono = performance.now();
    if (mono - this.leaseAt >= LEASE_MS / 3) {
      this.leaseAt = mono;
      const was = this.holding;
      this.holding = await this.takeLease();
      if (!this.holding && was) await this.reset();
    }
    if (!this.holding || this.stopped) return;
    if (mono - this.rebuiltAt >= REBUILD_MS) {
      this.rebuiltAt = mono;
      await this.rebuild();
    }
    const due = [...this.candidates]
      .filter(([, c]) => performance.now() - c.lastMono >= SETTLE_MS)
      .slice(0, JUDGED_PER_TICK);
    for (const [path, c] of due) {
      if (this.stopped) return;
      const final = performance.now() - c.lastMono >= GRACE_MS;
      if ((await this.judge(path, c, final)) === 'done' && this.candidates.get(path) === c)
        this.candidates.delete(path);
    }
    const old = this.app.now() - SHELL_BEFORE_MS - SEEN_BEFORE_MS;
    for (const [id, at] of this.used) if (at < old) this.used.delete(id);
    // Sightings go as they age, a batch a minute, each batch one statement of its own.
    if (mono - this.purgedAt >= 60_000) {
      this.purgedAt = mono;
      await this.app.store.sightings.purge(this.app.now() - SIGHTINGS_KEPT_MS, 2_000);
    }
  }

  /**
   * Renews the machine's lease, or takes it when nobody holds it: a process that does not hold it
   * only reads (one write every few seconds on the machine, whatever the number of servers).
   */
  private async takeLease(): Promise<boolean> {
    const { leases } = this.app.store;
    const now = this.app.now();
    if (!this.holding) {
      const current = await leases.holder(this.lease());
      if (current && current.holder !== this.instance && current.lease_until >= now) return false;
    }
    return leases.hold(this.lease(), this.instance, process.pid, now, now + LEASE_MS);
  }

  private async reset(): Promise<void> {
    await this.trees.set([]);
    this.watched = new Map();
    this.folders = new Map();
    this.held = new Map();
    this.heldKey = '';
    this.marks = '';
    this.digests = new Map();
    this.candidates.clear();
  }

  /**
   * What is held now, by live sessions, in the projects this machine's sessions work in. The claims
   * are read again when a project's claims changed (a seek each, `claims.mark`), or every
   * FULL_READ_MS (sessions fall silent without a change to their claims).
   */
  private async rebuild(): Promise<void> {
    const { store } = this.app;
    const sessions = await store.sessions.worktreesOnHost(this.app.host);
    const projects = [...new Set(sessions.map((s) => s.project_id))].slice(0, MAX_TREES);
    const marks = JSON.stringify(await Promise.all(projects.map((p) => store.claimPatterns.mark(p))));
    const mono = performance.now();
    if (marks !== this.marks || mono - this.fullReadAt >= FULL_READ_MS) {
      this.marks = marks;
      this.fullReadAt = mono;
      this.held = await heldPatterns(this.app, projects, () =>
        this.warn(
          'watch.capped',
          `a project holds more than ${MAX_PATTERNS} patterns; the first are watched`,
        ),
      );
    }
    const held = this.held;
    const trees = new Map<string, Tree>();
    for (const s of sessions) {
      if (!held.has(s.project_id)) continue;
      const tree = trees.get(s.worktree) ?? { projectId: s.project_id, worktree: s.worktree, sessions: [] };
      tree.sessions.push({ id: s.id, name: s.name });
      trees.set(s.worktree, tree);
    }
    if (trees.size > MAX_TREES)
      this.warn('watch.capped', `${trees.size} worktrees hold files; ${MAX_TREES} are watched`);
    this.watched = new Map([...trees].slice(0, MAX_TREES));
    const key = JSON.stringify([...this.watched.keys(), this.marks]);
    const rebuildFolders = key !== this.heldKey;
    if (rebuildFolders) {
      this.heldKey = key;
      await this.baselines();
    }
    // The folders change with what is held, and when a folder appears below a held glob.
    if (!rebuildFolders) return;
    const folders = new Map<string, Tree>();
    const turn = slices();
    for (const tree of this.watched.values())
      for (const folder of await heldFolders(
        tree.worktree,
        this.held.get(tree.projectId) ?? [],
        MAX_FOLDERS - folders.size,
        turn,
      ))
        if (!folders.has(folder)) folders.set(folder, tree);
    if (folders.size >= MAX_FOLDERS) this.warn('watch.capped', `more than ${MAX_FOLDERS} folders hold files`);
    this.folders = folders;
    await this.trees.set(folders.keys(), turn);
  }

  /**
   * The digests held files are judged against: their files named outright, and those directly in a
   * glob's base folder, within a budget (a change to a file with none is judged as new). Hashed in
   * slices, between which the server answers its calls.
   */
  private async baselines(): Promise<void> {
    const next = new Map<string, string | null>();
    let budget = BASELINE_BUDGET_BYTES;
    const turn = slices();
    for (const tree of this.watched.values())
      for (const path of await this.pollFiles(tree, turn)) {
        if (next.size >= MAX_BASELINE_FILES || budget <= 0) break;
        await turn();
        const known = this.digests.get(path);
        if (known !== undefined) {
          next.set(path, known);
          continue;
        }
        const size = statSync(path, { throwIfNoEntry: false })?.size ?? 0;
        budget -= Math.min(size, MAX_HASHED_BYTES);
        next.set(path, digestOf(path));
      }
    this.digests = next;
  }

  /** The held files of a tree that can be named without walking it. */
  private pollFiles(tree: Tree, turn: () => Promise<void>): Promise<string[]> {
    return heldFiles(tree.worktree, this.held.get(tree.projectId) ?? [], MAX_BASELINE_FILES, turn);
  }

  private rel(tree: Tree, path: string): string {
    return relative(tree.worktree, path).split(sep).join('/');
  }

  private holders(tree: Tree, rel: string): string[] {
    const ids = new Set<string>();
    for (const h of this.held.get(tree.projectId) ?? []) if (heldMatches(h, rel)) ids.add(h.sessionId);
    return [...ids];
  }

  private changed(root: string, path: string): void {
    const tree = this.folders.get(root);
    if (!tree || this.stopped) return;
    const rel = this.rel(tree, path);
    if (rel.startsWith('..') || ignoredPath(rel) || TEMPORARY.test(basename(rel))) return;
    // A folder appeared (or went): the folders to watch are worked out again.
    if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) this.heldKey = '';
    if (this.holders(tree, rel).length === 0) return;
    const known = this.candidates.get(path);
    if (!known && this.candidates.size >= MAX_CANDIDATES) {
      this.warn('watch.busy', `more than ${MAX_CANDIDATES} held files changed at once`);
      return;
    }
    const now = this.app.now();
    this.candidates.set(path, {
      tree,
      rel,
      firstAt: known?.firstAt ?? now,
      lastAt: now,
      lastMono: performance.now(),
    });
  }

  /**
   * A held file changed: unless its content is the same, a hook saw it, or git ignores it, say so.
   * `final`: no more waiting for an edit tool's after-hook ('wait' asks to be judged again).
   */
  private async judge(path: string, c: Candidate, final: boolean): Promise<'wait' | 'done'> {
    const before = this.digests.get(path);
    const digest = digestOf(path);
    // The same content (a touch, a save of what was there), or nothing there before or now.
    if (before === digest || (digest === null && !before)) return 'done';
    const holders = this.holders(c.tree, c.rel);
    if (holders.length === 0) return 'done';
    const sightings = await this.app.store.sightings.around(
      c.tree.projectId,
      c.rel,
      c.firstAt - SHELL_BEFORE_MS,
    );
    // An edit a hook named in this folder explains one change: its before- and after-hook's go together.
    const named = (s: (typeof sightings)[number]) =>
      s.kind === 'edit' && s.detail === c.rel && s.worktree === c.tree.worktree;
    const edit = sightings.find(
      (s) => named(s) && s.at >= c.firstAt - SEEN_BEFORE_MS && !this.used.has(s.id),
    );
    if (!edit && !final) return 'wait';
    if (edit) {
      for (const s of sightings) if (named(s) && s.session_id === edit.session_id) this.used.set(s.id, s.at);
      this.digests.set(path, digest);
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
          // Another session's words: one line, quoted, no backticks to pass for ours.
          evidence: `its shell command "${inline(shell.detail, 120).replace(/[`"]/g, "'")}" ran ${Math.max(0, Math.round((c.firstAt - shell.at) / 1000))} s before`,
        }
      : only && !holders.includes(only.id)
        ? { id: only.id, evidence: 'the only session working in that folder; no hook saw it write' }
        : null;
    // A holder's own script writing its own file is its own work.
    const told = holders.filter((h) => h !== suspect?.id);
    if (told.length > 0 && !gitIgnores(c.tree.worktree, c.rel)) await this.tell(c, told, suspect);
    this.digests.set(path, digest);
    return 'done';
  }

  private async tell(
    c: Candidate,
    told: string[],
    suspect: { id: string; evidence: string } | null,
  ): Promise<void> {
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
  }
}
