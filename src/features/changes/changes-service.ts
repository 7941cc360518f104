import type { AppContext } from '../../app/context.js';
import { pathOf } from '../../core/claim-target.js';
import { type CompiledGlob, type GlobBudget, glob, globBudget, matchPath } from '../../core/glob.js';
import { type FileChange, writtenBy } from '../../core/hunks.js';
import { languageOf } from '../../core/languages.js';
import { LIMITS } from '../../core/limits.js';
import { isGlob } from '../../core/paths.js';
import { type Definition, interfaceChanges } from '../../core/semantic.js';
import {
  CHANGE_LIMITS,
  type ChangeBase,
  fileAt,
  findBase,
  type ListedChange,
  listChanges,
  readChanges,
  readCommitChanges,
  worktreeText,
} from '../../integrations/git-changes.js';
import { readRef } from '../../integrations/git-refs.js';
import { type FolderLocation, locateFolder } from '../../integrations/git-repo.js';
import { definitionsOf, markSymbols, symbolSpans, usesIn } from '../../integrations/symbols.js';
import type { Neighbour } from '../../store/changes-store.js';
import type { SessionRow } from '../../store/sessions-store.js';
import type { Viewpoint } from '../claims/claim-types.js';
import type { NotificationsService } from '../notifications/notifications-service.js';
import { stateOf } from '../sessions/liveness.js';
import { conflictsAgainst, copyOf } from './conflicts-against.js';
import { type Stats, staleAmong } from './freshness.js';
import type { LocalCopy } from './git-settled.js';
import { pairConflicts } from './pair-conflicts.js';
import { markTold, meetings, tellNew } from './prediction-notices.js';
import type { PairConflict, PredictedConflict } from './prediction-types.js';

/** Other sessions of this machine whose copies of the checked files a check reads again, at most. */
const NEIGHBOURS = 8;
/**
 * How long the list of those other sessions is reused while no session of the project started or
 * ended: a check runs many times a second under load, and reading the list sorts every live session
 * of the project. A session that ended meanwhile is read no more (its row is read before its copy).
 */
const NEIGHBOURS_KEPT_MS = 1_000;
/** A request to read taken this long ago by a process that never recorded it is taken again. */
const RETAKE_MS = 60_000;
/** How many times an edit's files are read again when the base they were read against moved meanwhile. */
const BASE_MOVES = 3;

/**
 * Files a whole read of a copy read whole before reads at most (those that may have changed since,
 * `changedSince`): past it the whole copy is read again, one diff rather than a long list of paths.
 */
const SINCE_AT_MOST = 100;

/** Files whose symbols one refresh parses at most: the rest keep what they had, or none yet. */
const PARSED_PER_REFRESH = 200;
/**
 * The time one refresh spends parsing (git's reads in between aside), after which it starts no
 * other file: the server answers nothing else while a file is parsed (each file is bounded too:
 * `SYMBOL_LIMITS`).
 */
const PARSE_MS_PER_REFRESH = 1_000;

/** Time spent parsing, added up by `parsing`. */
interface ParseClock {
  ms: number;
}

function parsing<T>(clock: ParseClock, parse: () => T): T {
  const started = performance.now();
  try {
    return parse();
  } finally {
    clock.ms += performance.now() - started;
  }
}
/**
 * Whether a recorded file's symbols are still to be read (`addSymbols`): one of a language read
 * here, by its lines or deleted, whose interface no refresh has set (its budget ran out first, or
 * its base could not be read).
 */
function symbolsUnread(f: FileChange): boolean {
  if (f.interface !== undefined || !languageOf(f.path)) return false;
  return f.newBlob === null ? f.baseBlob !== null : f.level === 'lines';
}

/** Deleted files whose base definitions one refresh reads at most (`git show` each). */
const DELETED_PER_REFRESH = 50;
/** Base files whose definitions are kept in memory (by path and blob). */
const BASES_KEPT = 500;

/** The commit of the branch a base was measured against, read from the git folder (null: none, or not readable so). */
function refCommit(place: FolderLocation, base: ChangeBase): string | null {
  if (base.ref === null) return null;
  const name = base.source === 'local-branch' ? `refs/heads/${base.ref}` : `refs/remotes/${base.ref}`;
  return readRef(place.gitDir, place.commonDir, name);
}

/**
 * What sessions actually changed, read from their worktrees (git), recorded per file with the
 * symbols each hunk touches, and compared between live sessions of one repository: the conflicts
 * their work will meet when it merges (`core/merge-prediction.ts`).
 */
export class ChangesService {
  /** Whole reads of a worktree under way, by session: a second asked meanwhile waits for it. */
  private readonly wholeReads = new Map<string, Promise<'recorded' | 'none' | 'failed'>>();
  /** Base files' definitions, by path and blob (`baseDefinitions`). */
  private readonly bases = new Map<string, Definition[] | null>();
  /**
   * When the latest whole read this process recorded of a session began, by session: checks that
   * looked at the session's freshness while that read was under way (the store said "never read")
   * take it as read then, rather than each reading the worktree again once it is done.
   */
  private readonly wholeReadAt = new Map<string, number>();
  /** The neighbours a check read lately, by project and session (`neighbours`). */
  private readonly neighbourLists = new Map<string, { at: number; live: number; rows: Neighbour[] }>();

  constructor(
    private readonly app: AppContext,
    private readonly notifications: NotificationsService,
  ) {}

  /**
   * Reads a session's changes from its worktree and records them: every changed file, or only
   * `paths` (after an edit; relative to the worktree root). Only a session of this machine in a git
   * worktree has changes to read. Git and the parser run before the write, never inside it.
   * Says whether the changes were recorded, there were none to read, or git could not read them.
   * A whole read asked for while one of the same worktree is under way (sessions checking at once,
   * each reading the others' copies) is that read.
   */
  refresh(session: SessionRow, paths?: string[]): Promise<'recorded' | 'none' | 'failed'> {
    if (paths !== undefined) return this.read(session, paths);
    const under = this.wholeReads.get(session.id);
    if (under !== undefined) return under;
    const read = this.read(session).finally(() => this.wholeReads.delete(session.id));
    this.wholeReads.set(session.id, read);
    return read;
  }

  private async read(
    session: SessionRow,
    paths?: string[],
    moves = 0,
  ): Promise<'recorded' | 'none' | 'failed'> {
    if (session.host !== this.app.host) return 'none';
    const { store } = this.app;
    const place = locateFolder(session.worktree);
    if (place.kind !== 'git') return 'none';
    const set = await store.changes.setOf(session.id);
    const head = readRef(place.gitDir, place.commonDir, 'HEAD');
    // The base found before stands while HEAD and the default branch stay where they were (read
    // from the git folder: no git process); an edit's files are read against it in any case.
    const recorded: ChangeBase | null = set
      ? { commit: set.base_commit, ref: set.base_ref, source: set.base_source as ChangeBase['source'] }
      : null;
    const unmoved =
      recorded !== null &&
      head !== null &&
      head === set!.head_commit &&
      refCommit(place, recorded) === set!.ref_commit;
    // The wall clock, not the app's: file modification times are compared with it (freshness.ts).
    const startedAt = Date.now();
    // A whole read of a copy read whole before, its base where it was: only the files that may
    // differ from what was recorded are read (`changedSince`); the others stand as recorded.
    const looked = paths === undefined && unmoved ? await this.changedSince(session, place, set!) : null;
    const since = looked?.kind === 'since' ? looked : null;
    // Nothing differs from the last whole read: what it recorded (and the times it recorded them
    // at) stands as it is, and what it met was told then, or is told by the reads of the other side.
    if (since?.paths.length === 0) return 'recorded';
    const scope = paths ?? since?.paths;
    const incremental = scope !== undefined && recorded !== null;
    let read: Awaited<ReturnType<typeof readChanges>>;
    try {
      const base = incremental || unmoved ? recorded! : await findBase(place.worktree, place.commonDir, head);
      read = await readChanges(
        place.worktree,
        place.commonDir,
        since
          ? { base, paths: since.diffed, untracked: since.untracked }
          : { base, ...(incremental ? { paths } : {}), ...(looked ? { untracked: looked.untracked } : {}) },
      );
    } catch (error) {
      this.app.log.warn('changes.read_failed', { session: session.id, error: String(error) });
      return 'failed';
    }
    const known = new Map(
      (await store.changes.filesOf(session.id, incremental ? scope : undefined)).map((f) => [f.path, f]),
    );
    await this.addSymbols(place.worktree, read.base.commit, read.files, known);
    // What the copy's changes meet: all of them for a whole read, those read and those that stand.
    const met = await meetings(this.app, session, since ? [...read.files, ...since.standing] : read.files);
    const outcome = await store.write(
      async (): Promise<'recorded' | 'moved'> => {
        // Decided on the set as it is now: another whole read (of another process, or of this one
        // for an edit of a copy not read yet) may have recorded one since it was read. A whole read
        // begun after this one answers all this one would: its base and files are newer, it settled
        // every request made before it began, and it told what its files meet. Whole or an edit's,
        // this read is dropped, and counts as recorded: a whole read's older view must not replace
        // the newer one.
        const current = await store.changes.setOf(session.id);
        if (current?.full_read_at != null && Number(current.full_read_at) > startedAt) return 'recorded';
        const sameBase = (base: ChangeBase | null) =>
          current !== undefined &&
          base !== null &&
          current.base_commit === base.commit &&
          current.base_ref === base.ref &&
          current.base_source === base.source;
        // A whole read begun before the edit's, that found another base, does not answer it: the
        // files are read again against that base.
        if (incremental && !sameBase(recorded)) return 'moved';
        // A whole read that read only what changed since the last whole read stands on that read:
        // another recorded since (begun before this one) may hold files this one did not look at.
        if (since && Number(current?.full_read_at) !== Number(set!.full_read_at)) return 'moved';
        // Files recorded after this whole read began (changed, or found unchanged) are newer than
        // its view of them: edit reads begun later (a whole read begun later would have dropped this
        // one), each against the base recorded when it wrote, and that is still the recorded one (a
        // base moved since by a whole read begun before this one replaced every file; one begun after
        // dropped this read). They stay when this read found that base too; against another base,
        // its view replaces them.
        const newerKept = !incremental && sameBase(read.base);
        await store.changes.record(
          {
            session_id: session.id,
            project_id: session.project_id,
            base_commit: read.base.commit,
            base_ref: read.base.ref,
            base_source: read.base.source,
            head_commit: head,
            ref_commit: refCommit(place, read.base),
            omitted: read.omitted,
            // When the read began: a file written after has a later modification time.
            refreshed_at: startedAt,
          },
          read.files,
          incremental ? scope! : null,
          { newerKept, whole: paths === undefined },
        );
        // A whole read answers every edit's request made before it began.
        if (paths === undefined) await store.changes.settle(session.id, startedAt);
        await tellNew(this.notifications, session, met);
        return 'recorded';
      },
      { project: session.project_id },
    );
    if (outcome === 'moved') {
      // The base moves only with a whole read: moving again and again, the edit is left pending
      // (taken again later).
      if (moves < BASE_MOVES) return this.read(session, paths, moves + 1);
      this.app.log.warn('changes.base_moving', { session: session.id });
      return 'failed';
    }
    if (paths === undefined) {
      // Dropped for a whole read begun later, it still tells a check that one begun at `startedAt`
      // or later is recorded (the store says when).
      if (this.wholeReadAt.size >= 1_000) this.wholeReadAt.clear();
      this.wholeReadAt.set(session.id, Math.max(startedAt, this.wholeReadAt.get(session.id) ?? 0));
    }
    return 'recorded';
  }

  /**
   * For a whole read of a copy read whole before, against the base recorded then (the caller saw
   * HEAD and the branch unmoved): the files that may differ from what is recorded, and the recorded
   * changes that stand (`kind: 'since'`); or the copy is read whole again (`kind: 'whole'`, with the
   * untracked files listed on the way; null where nothing was listed).
   *
   * A file may differ when git now lists it changed and it is not recorded, it is recorded and git
   * no longer lists it, it was written since it was read (a stat each: `staleAmong`), or an edit's
   * read of it alone recorded it since the last whole read (that read could not pair it in a
   * rename). Of those, what git lists is diffed, or read as it is when untracked; what it no longer
   * lists is as the base has it. With them go the files a rename may pair them with: a recorded
   * rename's other side; every file git lists deleted, for one added; every file added, for one
   * deleted (a whole read finds renames among them).
   *
   * Read whole again: a copy never read whole, or with files left out past the limit; git's index
   * written since (a file added, or taken out of it, changes what is tracked and which files pair);
   * more listed than the limit, or more to read than `SINCE_AT_MOST`.
   */
  private async changedSince(
    session: SessionRow,
    place: FolderLocation,
    set: { base_commit: string; full_read_at: number | null; omitted: number },
  ): Promise<
    | { kind: 'since'; paths: string[]; diffed: string[]; untracked: string[]; standing: FileChange[] }
    | { kind: 'whole'; untracked: string[] }
    | null
  > {
    if (set.full_read_at == null || Number(set.omitted) > 0) return null;
    const fullAt = Number(set.full_read_at);
    if (staleAmong(place.gitDir, ['index'], () => fullAt).length > 0) return null;
    let listed: ListedChange[];
    try {
      listed = await listChanges(place.worktree, set.base_commit);
    } catch {
      return null;
    }
    const whole = {
      kind: 'whole' as const,
      untracked: listed.filter((l) => l.status === '?').map((l) => l.path),
    };
    if (listed.length > CHANGE_LIMITS.files) return whole;
    const { store } = this.app;
    const recorded = await store.changes.filesOf(session.id);
    const sides = (f: FileChange) => (f.renamedFrom === undefined ? [f.path] : [f.path, f.renamedFrom]);
    const inRecord = new Set(recorded.flatMap(sides));
    const inList = new Set(listed.map((l) => l.path));
    const both = [...inList].filter((path) => inRecord.has(path));
    const known = (await store.changes.freshness([session.id], [...inRecord])).get(session.id)!;
    const readAt = (path: string) => Math.max(known.times.get(path) ?? fullAt, fullAt);
    const stale = new Set([
      ...[...inList].filter((path) => !inRecord.has(path)),
      ...[...inRecord].filter((path) => !inList.has(path) || (known.times.get(path) ?? 0) > fullAt),
      ...staleAmong(place.worktree, both, readAt),
      // Read again until their symbols are: a refresh's budget left them for a later one.
      ...recorded.filter(symbolsUnread).map((f) => f.path),
    ]);
    if (stale.size === 0) return { kind: 'since', paths: [], diffed: [], untracked: [], standing: recorded };
    for (const f of recorded)
      if (sides(f).some((path) => stale.has(path))) for (const p of sides(f)) stale.add(p);
    const status = new Map(listed.map((l) => [l.path, l.status]));
    const staleStatus = new Set([...stale].map((path) => status.get(path)));
    for (const l of listed)
      if ((l.status === 'D' && staleStatus.has('A')) || (l.status === 'A' && staleStatus.has('D')))
        stale.add(l.path);
    if (stale.size > SINCE_AT_MOST) return whole;
    // What git lists is diffed, or read as it is when untracked; what it no longer lists is the base's.
    const listedStale = listed.filter((l) => stale.has(l.path));
    return {
      kind: 'since',
      paths: [...stale].sort(),
      diffed: listedStale.filter((l) => l.status !== '?').map((l) => l.path),
      untracked: listedStale.filter((l) => l.status === '?').map((l) => l.path),
      standing: recorded.filter((f) => !sides(f).some((path) => stale.has(path))),
    };
  }

  /**
   * Asks for the files an edit changed to be read (`refreshRequested`, by a serving process of the
   * session's machine): a hook has no time to run git and a parser.
   */
  async request(session: SessionRow, paths: string[]): Promise<void> {
    // One statement that decides on nothing it read: no transaction of its own.
    await this.app.store.changes.request(session.id, session.host, paths, this.app.now());
  }

  /**
   * Reads what edit hooks of this machine's sessions asked to be read, a batch at a time; returns
   * how many files were read. Two processes polling at once take different requests.
   */
  async refreshRequested(limit = 100): Promise<number> {
    const { store } = this.app;
    const takenAt = this.app.now();
    const taken = await store.changes.take(this.app.host, limit, takenAt, RETAKE_MS);
    const bySession = new Map<string, string[]>();
    for (const t of taken) bySession.set(t.session_id, [...(bySession.get(t.session_id) ?? []), t.path]);
    for (const [id, paths] of bySession) {
      const session = await store.sessions.get(id);
      let read: 'recorded' | 'none' | 'failed' = 'none';
      try {
        if (session && session.status === 'active') read = await this.refresh(session, paths);
      } catch (error) {
        read = 'failed';
        this.app.log.warn('changes.record_failed', { session: id, error: String(error) });
      }
      // Read, or never to be read (the session ended): no longer waiting. A read that failed stays
      // pending (whoever judges an edit against this session's changes knows they are not known)
      // and is taken again later.
      if (read !== 'failed') await store.changes.done(id, paths, takenAt);
    }
    return taken.length;
  }

  /**
   * Before a check: reads again what may have changed of the caller's worktree and of the other
   * live sessions of its repository on this machine (at most `NEIGHBOURS`), so that sessions with
   * no hooks recording their edits are compared as they are now. Named files are read again only
   * where modified since they were read (a stat each; git only for what changed); checking
   * everything, or a glob, the caller's whole worktree is read, and the others' copies of the files
   * the caller changed. The sessions whose copy git could not read now (their last read stands).
   */
  async refreshForCheck(session: SessionRow, patterns?: string[]): Promise<SessionRow[]> {
    const { store } = this.app;
    const paths = patterns?.map(pathOf);
    const literal = paths && !paths.some(isGlob) ? [...new Set(paths)] : null;
    /** The copies git could not read now (it failed, or ran past its time): their last read stands. */
    const unread: SessionRow[] = [];
    if (literal === null && (await this.refresh(session)) === 'failed') unread.push(session);
    // The others' copies of these files (or of every file the caller changed).
    const mine = literal ?? (await store.changes.filesOf(session.id)).map((f) => f.path);
    const others =
      mine.length === 0
        ? []
        : (await this.neighbours(session)).filter((other) => stateOf(this.app, other) === 'active');
    // Named files of the caller's own copy too; what each was read at, for all of them at once.
    const looked: Neighbour[] = literal === null ? others : [session, ...others];
    if (looked.length === 0) return unread;
    const known = await store.changes.freshness(
      looked.map((s) => s.id),
      mine,
    );
    const stats: Stats = new Map();
    for (const s of looked) {
      const stale = () => this.staleFor(s, mine, known.get(s.id)!, stats);
      const whole = stale();
      if (whole === null) continue;
      // Read again: the whole row, which reading and telling use.
      const row = await store.sessions.get(s.id);
      if (row?.status !== 'active') continue;
      // A whole read of this copy may have been recorded while the row was read (another check
      // began it): that read counts, as it would have had it ended before this check looked; then
      // at most the files written since are read again.
      const still = whole ? stale() : false;
      if (still === null) continue;
      if ((await this.refresh(row, still ? undefined : mine)) === 'failed') unread.push(row);
    }
    return unread;
  }

  /**
   * The other live sessions of the session's project on this machine, read longest ago first. The
   * list is reused for `NEIGHBOURS_KEPT_MS` while the project's count of live sessions stays (an
   * index count): a session that starts, as one with no hooks does, is looked at by the next check.
   */
  private async neighbours(session: SessionRow): Promise<Neighbour[]> {
    const { store } = this.app;
    const key = `${session.project_id}\0${session.id}`;
    const now = this.app.now();
    const live = await store.sessions.activeCount(session.project_id);
    const kept = this.neighbourLists.get(key);
    if (kept && kept.live === live && now >= kept.at && now - kept.at < NEIGHBOURS_KEPT_MS) return kept.rows;
    const rows = await store.changes.neighboursOnHost(
      session.project_id,
      this.app.host,
      session.id,
      NEIGHBOURS,
    );
    if (this.neighbourLists.size >= 1_000) this.neighbourLists.clear();
    this.neighbourLists.set(key, { at: now, live, rows });
    return rows;
  }

  /**
   * Whether the session's copy must be read again before a check of `paths`: null when not (none
   * of them modified since it was read), true for a whole read (none was made yet), false for
   * `paths`. Synchronous: a check asks it of every neighbour, and nearly always hears null.
   */
  private staleFor(
    session: Neighbour,
    paths: string[],
    known: { fullAt: number | null; times: Map<string, number>; pending: boolean },
    stats: Stats,
  ): boolean | null {
    // A whole read recorded since the store was asked counts as the store's own.
    const readHere = this.wholeReadAt.get(session.id);
    const fullAt =
      readHere !== undefined && (known.fullAt === null || readHere > known.fullAt) ? readHere : known.fullAt;
    if (fullAt === null) return true;
    if (known.pending) return false;
    const readAt = (path: string) => Math.max(known.times.get(path) ?? fullAt, fullAt);
    return staleAmong(session.worktree, paths, readAt, stats).length === 0 ? null : false;
  }

  /**
   * Sets each hunk's symbols, and the file's interface changes and the names its changed lines use
   * (core/semantic.ts): kept from what was recorded when the file is the same on both sides, else
   * parsed from the worktree's text and, for the interfaces, the base's (`baseCommit`; at most
   * `PARSED_PER_REFRESH` files).
   */
  private async addSymbols(
    worktree: string,
    baseCommit: string,
    files: FileChange[],
    known: Map<string, FileChange>,
    /** A changed file's new text: by default as it is in the worktree. */
    textOf: (path: string) => Promise<string | null> = async (path) => worktreeText(worktree, path),
  ): Promise<void> {
    let parsed = 0;
    let deleted = 0;
    const clock: ParseClock = { ms: 0 };
    const outOfTime = () => clock.ms > PARSE_MS_PER_REFRESH;
    for (const file of files) {
      if (file.newBlob === null) {
        // Deleted: every definition its base had is gone, under any use another session adds. Read
        // once (`interface` set, empty when it had none); one never read, or whose base could not
        // be read, is read at a later refresh. A budget of its own: deleting a folder leaves the
        // edited files theirs.
        if (file.baseBlob === null || !languageOf(file.path)) continue;
        const before = known.get(file.path);
        if (before && before.newBlob === null && before.baseBlob === file.baseBlob && before.interface) {
          file.interface = before.interface;
          continue;
        }
        if (deleted >= DELETED_PER_REFRESH || outOfTime()) continue;
        deleted++;
        try {
          const base = await this.baseDefinitions(worktree, baseCommit, file, clock);
          if (base) file.interface = interfaceChanges(base, []);
        } catch (error) {
          this.app.log.warn('changes.symbols_failed', { file: file.path, error: String(error) });
        }
        continue;
      }
      if (file.level !== 'lines' || !languageOf(file.path)) continue;
      // Parsed before (`interface` set, empty when nothing changed in it): kept while its blobs
      // stay. One the budget left unparsed, or whose base could not be read, is parsed at a later
      // refresh.
      const before = known.get(file.path);
      if (
        before &&
        before.newBlob === file.newBlob &&
        before.baseBlob === file.baseBlob &&
        before.interface
      ) {
        file.hunks = before.hunks;
        file.interface = before.interface;
        if (before.uses) file.uses = before.uses;
        continue;
      }
      if (parsed >= PARSED_PER_REFRESH || outOfTime()) continue;
      parsed++;
      let text: string | null;
      try {
        text = await textOf(file.path);
      } catch {
        continue;
      }
      if (text === null) continue;
      try {
        const spans = parsing(clock, () => symbolSpans(file.path, text));
        if (!spans) {
          file.interface = []; // nothing the parser can read: not read again until it changes
          continue;
        }
        const uses = parsing(clock, () => {
          markSymbols(file.hunks, spans, text);
          return usesIn(file.path, text, writtenBy(file.hunks));
        });
        if (uses && uses.length > 0) file.uses = uses;
        if (file.baseBlob === null) {
          file.interface = []; // a new file: no interface of before to change
          continue;
        }
        const base = await this.baseDefinitions(worktree, baseCommit, file, clock);
        if (base) file.interface = interfaceChanges(base, definitionsOf(spans));
      } catch (error) {
        this.app.log.warn('changes.symbols_failed', { file: file.path, error: String(error) });
      }
    }
  }

  /**
   * The definitions of a changed file in its base, read once per base blob (every session of a
   * repository starts from the same ones; a file edited again keeps its base).
   */
  private async baseDefinitions(
    worktree: string,
    baseCommit: string,
    file: FileChange,
    clock: ParseClock,
  ): Promise<Definition[] | null> {
    const key = `${file.path}\0${file.baseBlob}`;
    const kept = this.bases.get(key);
    if (kept !== undefined) return kept;
    const text = await fileAt(worktree, baseCommit, file.renamedFrom ?? file.path);
    // Not read (git failed, or the file is not in that commit): asked again next time, not kept.
    if (text === null) return null;
    const spans = parsing(clock, () => symbolSpans(file.path, text));
    const found = spans ? definitionsOf(spans) : null;
    if (this.bases.size >= BASES_KEPT) this.bases.delete(this.bases.keys().next().value!);
    this.bases.set(key, found);
    return found;
  }

  /**
   * The conflicts the session's recorded changes (only those to files `patterns` match, when named;
   * a symbol's target names its file) will meet
   * with every other live session's in its repository, first `LIMITS.listedConflicts` of them;
   * `more` counts the rest.
   */
  async predict(
    session: Pick<SessionRow, 'id' | 'project_id' | 'host' | 'worktree'>,
    patterns?: string[],
  ): Promise<{ conflicts: PredictedConflict[]; more: number }> {
    const globs = patterns?.map((p) => glob(pathOf(p)));
    const budget = globBudget();
    const mine = (await this.app.store.changes.filesOf(session.id)).filter(
      (f) => !globs || globs.some((g) => matchPath(g, f.path, budget)),
    );
    const found = await this.sessionAgainst(mine, session, copyOf(this.app, session));
    const landed = await this.landedMeetings(session.id, globs, budget);
    if (landed.length === 0) return found;
    const all = [...landed, ...found.conflicts];
    return {
      conflicts: all.slice(0, LIMITS.listedConflicts),
      more: found.more + Math.max(0, all.length - LIMITS.listedConflicts),
    };
  }

  /**
   * What work landed since this session's base meets in its changes (recorded at each landing,
   * `features/landing/landed-meetings.ts`): shown until its base moves (it brought its work onto
   * the target).
   */
  private async landedMeetings(
    sessionId: string,
    globs: CompiledGlob[] | undefined,
    budget: GlobBudget,
  ): Promise<PredictedConflict[]> {
    const set = await this.app.store.changes.setOf(sessionId);
    if (!set) return [];
    const rows = await this.app.store.landings.meetingsOf(sessionId, set.base_commit, LIMITS.listedConflicts);
    const out: PredictedConflict[] = [];
    for (const row of rows) {
      if (globs && !globs.some((g) => matchPath(g, row.file, budget))) continue;
      try {
        out.push(JSON.parse(row.detail) as PredictedConflict);
      } catch {
        // A damaged row says nothing.
      }
    }
    return out;
  }

  /** A session's own changes `mine` against every other live session's. */
  private sessionAgainst(
    mine: FileChange[],
    session: { id: string; project_id: string },
    copy: LocalCopy | null,
  ) {
    return conflictsAgainst(this.app, mine, session.project_id, new Set([session.id]), null, copy);
  }

  /**
   * What a worktree's changes to `paths` (relative to its root) will meet: read from the worktree
   * itself, whoever looks (the commit guard, under a person or a session); recorded when the viewer
   * is a session. Sessions working in the same worktree are not compared with it.
   */
  async predictWorktree(
    viewer: Viewpoint,
    paths: string[],
  ): Promise<{ conflicts: PredictedConflict[]; more: number }> {
    if (viewer.id) {
      const session = await this.app.store.sessions.get(viewer.id);
      if (session) {
        await this.refresh(session);
        const mine = await this.app.store.changes.filesOf(session.id, paths);
        return this.sessionAgainst(mine, session, copyOf(this.app, session));
      }
    }
    const place = locateFolder(viewer.worktree);
    if (place.kind !== 'git') return { conflicts: [], more: 0 };
    let read: Awaited<ReturnType<typeof readChanges>>;
    try {
      read = await readChanges(place.worktree, place.commonDir, { paths });
    } catch {
      return { conflicts: [], more: 0 };
    }
    const files = read.files;
    await this.addSymbols(place.worktree, read.base.commit, files, new Map());
    return conflictsAgainst(
      this.app,
      files,
      viewer.project_id,
      new Set([...(viewer.also ?? [])]),
      viewer.worktree,
      {
        worktree: viewer.worktree,
      },
    );
  }

  /**
   * What changed between two commits of a worktree's repository (`paths` only, when named), with
   * the symbols each hunk touches and what it does to interfaces: the other side when a session's
   * changes are compared with work that landed.
   */
  async between(worktree: string, from: string, to: string, paths?: string[]): Promise<FileChange[]> {
    const files = await readCommitChanges(worktree, from, to, paths);
    await this.addSymbols(worktree, from, files, new Map(), (path) => fileAt(worktree, to, path));
    return files;
  }

  /**
   * Every predicted conflict between two live sessions of a project, by pair and file (for
   * `status` and the dashboard): at most `limit`, and whether there are more.
   */
  betweenSessions(projectId: string, limit: number): Promise<{ pairs: PairConflict[]; more: boolean }> {
    return pairConflicts(this.app, projectId, limit);
  }

  /**
   * Marks predicted conflicts a tool answer carried as told (their notifications are not delivered
   * a second time).
   */
  markTold(session: { id: string; project_id: string }, conflicts: PredictedConflict[]): Promise<void> {
    return markTold(this.app, this.notifications, session, conflicts);
  }
}
