/**
 * The landing queue: one per repository (project), whatever copy or machine asks. A request is
 * checked when it is made (a dirty or detached copy, an unknown target, nothing to land, held
 * work: refused at once, recorded); the queue is then landed one request at a time per project,
 * oldest first, by a serving process of the requester's machine (its copy holds the commits).
 * The process landing one holds it with a lease it renews; if it dies, another process of that
 * machine takes the request over. After each landing the requester is told its outcome, and every
 * other live session whose changes meet what landed is told so (`landed-meetings.ts`).
 */
import { existsSync } from 'node:fs';
import type { AppContext } from '../../app/context.js';
import { isBranchName } from '../../core/branch-name.js';
import { CollabError } from '../../core/errors.js';
import { inline, word } from '../../core/fence.js';
import { newId } from '../../core/ids.js';
import type { Notice } from '../../core/notifications.js';
import { gitWords } from '../../integrations/git.js';
import {
  copyState,
  currentTarget,
  defaultTarget,
  landingRemote,
  workToLand,
} from '../../integrations/git-landing.js';
import { endLeftCheck } from '../../integrations/land-check.js';
import { processAlive, processStartTime } from '../../integrations/process-probe.js';
import type { LandingOutcome, LandingRow, NewLanding } from '../../store/landings-store.js';
import { newProjectId } from '../../store/projects-store.js';
import type { SessionRow } from '../../store/sessions-store.js';
import type { ChangesService } from '../changes/changes-service.js';
import type { EnforcementService } from '../enforcement/enforcement-service.js';
import { fullId } from '../id-references.js';
import type { NotificationsService } from '../notifications/notifications-service.js';
import { stateOf } from '../sessions/liveness.js';
import type { SessionsService } from '../sessions/sessions-service.js';
import type { Wakeups } from '../waits/wakeups.js';
import { landOne, type Runner } from './land-one.js';
import { heldWork } from './land-rules.js';
import { landSettings } from './land-settings.js';
import { meetingsOf, recordMeetings } from './landed-meetings.js';

/** What landing uses. */
export interface LandingServices {
  app: AppContext;
  enforcement: EnforcementService;
  changes: ChangesService;
  notifications: NotificationsService;
  sessions: SessionsService;
  wakeups: Wakeups;
}

/** A lander's hold on a landing: renewed every `RENEW_MS`, taken over once it runs out. */
const LEASE_MS = 30_000;
const RENEW_MS = 5_000;
/** A request taken over this many times (its lander died each time) is refused. */
const MAX_ATTEMPTS = 5;
/** A request landing on another machine whose lander stopped renewing this long ago is cancelled. */
const FOREIGN_LEASE_GRACE_MS = 10 * 60_000;
/** A terminal's request of another machine that none of its servers took this long after. */
const FOREIGN_QUEUED_MS = 60 * 60_000;
/** The requests and outcomes a status shows. */
const LISTED = 50;

export const FINAL = new Set(['landed', 'rejected', 'cancelled']);

/** A request as tools, `status` and the dashboard show it. */
export interface LandingView {
  id: string;
  state: LandingRow['state'];
  requester: string;
  session_id: string | null;
  branch: string;
  onto: string;
  commits: number;
  /** Requests before it in the queue (0: next or landing); null once it ended. */
  ahead: number | null;
  /** The target's commit holding the work, once landed. */
  commit: string | null;
  reason_code: string | null;
  reason: string | null;
  details: unknown;
  check_output: string | null;
  check_ms: number | null;
  attempts: number;
  host: string;
  worktree: string;
  requested_at: string;
  finished_at: string | null;
}

export class LandingService {
  /** This process as a lander. */
  private readonly runner = { id: newId(), pid: process.pid, start: processStartTime(process.pid) };
  /** Projects this process is landing (one loop each), and whether to look again when it ends. */
  private readonly driving = new Map<string, { again: boolean }>();
  /** Set once this process stops landing (it is closing, or its person pressed Ctrl-C). */
  private stopped = false;
  /** Landings under way here, each with what aborts it. */
  private readonly under = new Set<AbortController>();

  constructor(private readonly services: LandingServices) {}

  private get app(): AppContext {
    return this.services.app;
  }

  /**
   * Asks to land the committed work of the copy at `folder` (its branch's commits `onto` lacks;
   * `onto` defaults to the repository's default branch). Refusals found now are recorded and
   * returned (state `rejected`); a request of the same copy and target still waiting takes the
   * copy's new HEAD. The request is landed by this machine's serving processes (`drive`).
   */
  async request(input: {
    session: SessionRow | null;
    folder: string;
    onto?: string | undefined;
    requester: string;
    /** Whether this process starts landing it (false: it only queues it, and is about to exit). */
    land?: boolean;
  }): Promise<{ row: LandingRow; existing: boolean }> {
    const { app } = this;
    const { store } = app;
    const copy = await copyState(input.folder).catch((error: unknown) => {
      // A copy git cannot read (a damaged index, say): git's words, not an internal error.
      throw new CollabError(
        'INVALID_INPUT',
        `git could not read the copy at ${input.folder}: ${gitWords(error)}`,
        'Repair it (git status there says what is wrong), then ask again.',
      );
    });
    if (copy === null)
      throw existsSync(input.folder)
        ? new CollabError(
            'INVALID_INPUT',
            `${input.folder} is not in a git repository: only committed work of a git branch lands.`,
            'Run it from inside the copy whose branch should land.',
          )
        : new CollabError(
            'INVALID_INPUT',
            `${input.folder} is not on this machine (${app.host}): a request is landed where its copy is.`,
            "Ask through that machine's session-collab server (a client's `serve` there), or run `session-collab land` there.",
          );
    // The queue of the repository the copy is in (an agent may ask from another repository's folder).
    const location = this.services.sessions.locate(copy.worktree);
    // A project made here gets an id made before its write: run again (its group rolled back,
    // store/write-groups.ts), the write keeps the id a read between the group's writes saw.
    const made = newProjectId();
    const projectId =
      input.session && input.session.worktree === copy.worktree
        ? input.session.project_id
        : (
            (await store.projects.findFor(location)) ??
            (await store.write(() => store.projects.ensure(location, app.host, app.now(), made)))
          ).id;
    if (input.onto !== undefined && !isBranchName(input.onto))
      throw new CollabError(
        'INVALID_INPUT',
        `onto: "${inline(input.onto, 100)}" is not a branch name git allows.`,
        'Name an existing branch, e.g. main.',
      );
    const onto = input.onto ?? (await defaultTarget(copy.worktree, copy.commonDir));
    const base = {
      id: newId(),
      project_id: projectId,
      session_id: input.session?.id ?? null,
      requester: input.requester,
      host: app.host,
      worktree: copy.worktree,
      branch: copy.branch ?? '',
      head_commit: copy.head ?? '',
      onto,
      commits: 0,
      requested_at: app.now(),
    };
    const refuse = (code: string, reason: string, details?: unknown) =>
      this.recordRefused(base, {
        state: 'rejected',
        reason_code: code,
        reason,
        details: details === undefined ? null : JSON.stringify(details),
      });
    if (copy.head === null)
      return refuse('NOTHING_TO_LAND', 'This copy has no commit yet: commit the work first.');
    if (copy.branch === null)
      return refuse(
        'DETACHED',
        `This copy's HEAD is detached (at ${copy.head.slice(0, 12)}): only a branch's commits land. Create one (git switch -c <name>) and ask again.`,
      );
    if (copy.dirty.length > 0)
      return refuse(
        'DIRTY',
        `This copy has uncommitted changes (${copy.dirty
          .slice(0, 5)
          .map((f) => word(f, 200))
          .join(
            ', ',
          )}${copy.dirty.length > 5 ? ', …' : ''}): only committed work lands. Commit or stash them, then ask again.`,
        { files: copy.dirty },
      );
    let target: string | null;
    const remote = landingRemote(copy.commonDir, onto, null);
    try {
      target = await currentTarget(copy.worktree, remote, onto);
    } catch (error) {
      return refuse('GIT_FAILED', `Could not read ${onto} from ${remote}: ${gitWords(error)}`);
    }
    if (target === null)
      return refuse(
        'UNKNOWN_TARGET',
        `There is no branch "${inline(onto, 200)}" ${remote ? `on ${remote}` : 'in this repository'} to land on: name an existing one (onto).`,
      );
    const work = await workToLand(copy.worktree, target, copy.head);
    if (work === null)
      return refuse(
        'UNRELATED',
        `${copy.branch} shares no history with ${onto} here (unrelated histories, or a shallow clone cut it): fetch the whole history (git fetch --unshallow), or land onto a branch it grew from.`,
      );
    base.commits = work.commits;
    if (work.commits === 0)
      return refuse(
        'NOTHING_TO_LAND',
        `Every commit of ${copy.branch} is on ${onto} already: nothing to land.`,
      );
    const held = await heldWork(this.services, base, work.files, { base: work.base, head: copy.head });
    if (held) return refuse(held.code, held.reason, held.details);
    const settings = await landSettings(copy.worktree, target);
    if ('error' in settings) return refuse('SETTINGS', settings.error);
    const queued = await store.write(
      async () => {
        const open = await store.landings.openFor(projectId, copy.worktree, app.host, onto);
        if (open?.state === 'queued') {
          await store.landings.retarget(open.id, copy.branch!, copy.head!, work.commits);
          return { row: (await store.landings.get(open.id))!, existing: true };
        }
        if (open) return { row: open, existing: true };
        await store.landings.add(base);
        return { row: (await store.landings.get(base.id))!, existing: false };
      },
      { project: projectId },
    );
    if (input.land !== false) this.kick(projectId);
    return queued;
  }

  private async recordRefused(
    row: NewLanding,
    outcome: LandingOutcome,
  ): Promise<{ row: LandingRow; existing: boolean }> {
    const { store } = this.app;
    await store.write(
      async () => {
        await store.landings.add(row);
        await store.landings.finish(row.id, null, outcome, this.app.now());
      },
      { project: row.project_id },
    );
    return { row: (await store.landings.get(row.id))!, existing: false };
  }

  /** Lands what this process can of a project's queue, in the background. */
  kick(projectId: string): void {
    this.drive(projectId).catch((error: Error) =>
      this.app.log.warn('landing.drive_failed', { project: projectId, message: error.message }),
    );
  }

  /** Every project with requests of this machine waiting or left landing (what serving processes run on a timer). */
  async driveHere(): Promise<void> {
    for (const open of await this.app.store.landings.openProjects())
      if (open.host === this.app.host) this.kick(open.project_id);
  }

  /**
   * Lands a project's queue one request at a time while the next is this machine's to land; one
   * loop per project in this process (asked again meanwhile, it looks again when done).
   */
  async drive(projectId: string): Promise<void> {
    if (this.stopped) return;
    const running = this.driving.get(projectId);
    if (running) {
      running.again = true;
      return;
    }
    const state = { again: false };
    this.driving.set(projectId, state);
    try {
      for (;;) {
        state.again = false;
        if (this.stopped) return;
        const taken = await this.take(projectId);
        if (taken) {
          await this.landTaken(taken);
          continue;
        }
        if (!state.again) return;
      }
    } finally {
      this.driving.delete(projectId);
    }
  }

  /** The next request of the project this process may land, taken; null when none is. */
  private async take(projectId: string): Promise<LandingRow | null> {
    const { app } = this;
    const { store } = app;
    const me = { ...this.runner, host: app.host };
    const scope = { project: projectId };
    const queue = await store.landings.queue(projectId, 20);
    for (let head of queue) {
      const now = app.now();
      if (await this.abandoned(head, now)) {
        // Decided again inside the write, on the request and its session as they are then: a
        // lander that renewed its hold, or a session that came back, since the queue was read
        // keeps its request (and the request goes on as it is now).
        const kept = await store.write(async () => {
          const row = await store.landings.get(head.id);
          if (!row || FINAL.has(row.state)) return null;
          const gone = await this.abandoned(row, now);
          if (!gone) return row;
          await store.landings.abandon(row, { state: 'cancelled', ...gone }, now);
          return null;
        }, scope);
        if (!kept) continue;
        head = kept;
      }
      if (head.state === 'landing') {
        if (head.host !== app.host) return null;
        const alive =
          head.lease_until !== null &&
          head.lease_until > now &&
          (head.runner_host !== app.host ||
            head.runner_pid === null ||
            processAlive(head.runner_pid, head.runner_start));
        if (alive) return null;
        if (head.attempts >= MAX_ATTEMPTS) {
          await store.write(
            () =>
              store.landings.abandon(
                head,
                {
                  state: 'rejected',
                  reason_code: 'LANDER_STOPPED',
                  reason: `Its lander stopped ${head.attempts} times while landing it${head.candidate ? ` (the last replayed commit was ${head.candidate}; if ${head.onto} holds it, it landed)` : ''}: ask again, and see the log (logs/collab.log) if it happens again.`,
                },
                now,
              ),
            scope,
          );
          continue;
        }
        const taken = await store.write(() => store.landings.takeOver(head, me, now + LEASE_MS), scope);
        if (!taken) return null;
        app.log.info('landing.taken_over', { landing: head.id, from: head.runner_pid });
        // What the dead lander left running: its check, its scratch worktree (landOne removes it).
        if (head.runner_host === app.host) await endLeftCheck(head.id);
        return (await store.landings.get(head.id)) ?? null;
      }
      // First come, first served: the head is landed by its own machine.
      if (head.host !== app.host) return null;
      const started = await store.write(() => store.landings.start(head.id, me, now, now + LEASE_MS), scope);
      return started ? ((await store.landings.get(head.id)) ?? null) : null;
    }
    return null;
  }

  /**
   * Why a request at the head of a queue will never land, so that it stops holding up the rest:
   * its session ended or went inactive; asked from a terminal on another machine an hour ago and
   * not landed since (that machine runs no server to land it); or landing on another machine whose
   * lander stopped renewing its hold 10 minutes ago. Null while it may still land.
   */
  private async abandoned(
    row: LandingRow,
    now: number,
  ): Promise<{ reason_code: string; reason: string } | null> {
    const { app } = this;
    if (row.state === 'landing') {
      if (row.host === app.host || row.lease_until === null || now - row.lease_until < FOREIGN_LEASE_GRACE_MS)
        return null;
      return {
        reason_code: 'LANDER_STOPPED',
        reason: `Its lander on ${row.host} stopped ${Math.round((now - row.lease_until) / 60_000)} min ago without ending it${row.candidate ? ` (its last replayed commit was ${row.candidate}; if ${row.onto} holds it, it landed)` : ''}.`,
      };
    }
    if (row.session_id) {
      const session = await app.store.sessions.get(row.session_id);
      if (session && stateOf(app, session) === 'active') return null;
      return {
        reason_code: 'SESSION_ENDED',
        reason: 'The session that asked is no longer active (ended, or silent) and its turn came.',
      };
    }
    if (row.host !== app.host && now - row.requested_at > FOREIGN_QUEUED_MS)
      return {
        reason_code: 'NOT_TAKEN',
        reason: `Asked from a terminal on ${row.host} over an hour ago, and no session-collab server there landed it.`,
      };
    return null;
  }

  /** Lands a taken request, renewing the hold meanwhile, and records and tells the outcome. */
  private async landTaken(row: LandingRow): Promise<void> {
    const { app } = this;
    const { store } = app;
    const abort = new AbortController();
    this.under.add(abort);
    const renew = setInterval(() => {
      store
        .write(() => store.landings.renew(row.id, this.runner.id, app.now() + LEASE_MS), {
          project: row.project_id,
        })
        .then((held) => {
          if (!held) abort.abort();
        })
        .catch((error: Error) =>
          app.log.warn('landing.renew_failed', { landing: row.id, message: error.message }),
        );
    }, RENEW_MS);
    renew.unref();
    const runner: Runner = { id: this.runner.id, signal: abort.signal };
    try {
      const outcome = await landOne(this.services, row, runner);
      if (outcome === null || abort.signal.aborted) return;
      // What the landed work meets in others' changes: read now, recorded with the outcome.
      const met =
        outcome.state === 'landed' &&
        outcome.before &&
        outcome.landed_commit &&
        outcome.before !== outcome.landed_commit
          ? await meetingsOf(this.services, row, outcome.before, outcome.landed_commit, outcome.files).catch(
              (error: Error) => {
                app.log.warn('landing.meetings_failed', { landing: row.id, message: error.message });
                return null;
              },
            )
          : null;
      if (abort.signal.aborted) return;
      // Sessions working in the worktree whose checked-out target moved: their files changed.
      const moved = outcome.movedWorktree ?? null;
      const landed = outcome.state === 'landed' && outcome.landed_commit ? outcome.landed_commit : null;
      const live =
        moved !== null || landed !== null ? await this.services.sessions.liveInProject(row.project_id) : [];
      const here =
        moved === null
          ? []
          : live.filter((s) => s.host === app.host && s.worktree === moved && s.id !== row.session_id);
      // And those of the worktree whose branch landed, but the requester: their work is on the
      // target (another session, started there, asked).
      const owners =
        landed === null
          ? []
          : live.filter((s) => s.host === row.host && s.worktree === row.worktree && s.id !== row.session_id);
      await store.write(
        async () => {
          const done = await store.landings.finish(row.id, runner.id, outcome, app.now());
          if (done && met) await recordMeetings(this.services, row, met);
          // Each told of the landing by its id: one notification per landing, however often told.
          const tell = async (to: string[], notice: Notice) => {
            if (to.length > 0)
              await this.services.notifications.notify(to, { ...notice, project: row.project_id });
          };
          if (done && moved !== null)
            await tell(
              here.map((s) => s.id),
              {
                type: 'target_moved_here',
                subject: row.id,
                payload: {
                  landing_id: row.id,
                  session: row.requester,
                  onto: row.onto,
                  commit: outcome.landed_commit ?? '',
                  worktree: moved,
                },
              },
            );
          if (done && landed !== null)
            await tell(
              owners.map((s) => s.id),
              {
                type: 'branch_landed',
                subject: row.id,
                payload: {
                  landing_id: row.id,
                  session: row.requester,
                  onto: row.onto,
                  commit: landed,
                  branch: row.branch,
                },
              },
            );
          if (done && row.session_id)
            await tell([row.session_id], {
              type: 'land_outcome',
              subject: row.id,
              payload: {
                landing_id: row.id,
                outcome: outcome.state,
                onto: row.onto,
                commit: outcome.landed_commit ?? null,
                reason: outcome.reason ? inline(outcome.reason, 300) : null,
              },
            });
          return done;
        },
        { project: row.project_id },
      );
      app.log.info('landing.finished', {
        landing: row.id,
        state: outcome.state,
        code: outcome.reason_code ?? null,
      });
    } finally {
      clearInterval(renew);
      this.under.delete(abort);
    }
  }

  /** Waits until the request ends, `ms` pass, or `signal` aborts: the request as it is then. */
  async wait(id: string, ms: number, signal?: AbortSignal): Promise<LandingRow | undefined> {
    const deadline = Date.now() + ms;
    const watch = await this.services.wakeups.watch();
    try {
      for (;;) {
        const row = await this.app.store.landings.get(id);
        if (!row || FINAL.has(row.state)) return row;
        const left = deadline - Date.now();
        if (left <= 0 || signal?.aborted) return row;
        await watch.next(Math.min(left, 1_000), signal);
      }
    } finally {
      watch.close();
    }
  }

  /**
   * Withdraws a waiting request (by its id or the first characters of it, in `projectId` when
   * given), for `by`. One that is landing ends by itself, and one that ended stays as it ended.
   */
  async cancel(reference: string, projectId: string | null, by: string): Promise<LandingRow> {
    const { app } = this;
    const id = await fullId(app, 'landing', reference, projectId === null ? null : async () => projectId);
    const row = await app.store.landings.get(id);
    if (!row)
      throw new CollabError(
        'INVALID_INPUT',
        `No landing request ${inline(reference, 60)}.`,
        'session-collab land --status lists them.',
      );
    if (row.state !== 'queued')
      throw new CollabError(
        'INVALID_STATE',
        `Request ${row.id} is ${row.state}: only a request still waiting can be cancelled.`,
        row.state === 'landing' ? 'It ends by itself: landed or refused.' : 'It has ended already.',
      );
    const done = await app.store.write(
      () =>
        app.store.landings.abandon(
          row,
          { state: 'cancelled', reason_code: 'CANCELLED', reason: `Cancelled by ${inline(by, 80)}.` },
          app.now(),
        ),
      { project: row.project_id },
    );
    if (!done)
      throw new CollabError(
        'INVALID_STATE',
        `Request ${row.id} started landing meanwhile.`,
        'It ends by itself.',
      );
    return (await app.store.landings.get(row.id))!;
  }

  async get(id: string): Promise<LandingRow | undefined> {
    return this.app.store.landings.get(id);
  }

  /** A project's queue (landing first, then waiting) and its latest outcomes. */
  async status(projectId: string, limit = LISTED): Promise<{ queue: LandingView[]; recent: LandingView[] }> {
    const { landings } = this.app.store;
    const queue = await landings.queue(projectId, limit);
    const recent = await landings.recent(projectId, limit);
    return {
      queue: queue.map((row, i) => this.view(row, i)),
      recent: recent.map((row) => this.view(row, null)),
    };
  }

  /** Requests before this one in its queue. */
  ahead(row: LandingRow): Promise<number> {
    return this.app.store.landings.ahead(row);
  }

  view(row: LandingRow, ahead: number | null): LandingView {
    let details: unknown = null;
    try {
      details = row.details ? JSON.parse(row.details) : null;
    } catch {
      details = null;
    }
    return {
      id: row.id,
      state: row.state,
      requester: row.requester,
      session_id: row.session_id,
      branch: row.branch,
      onto: row.onto,
      commits: row.commits,
      ahead: FINAL.has(row.state) ? null : ahead,
      commit: row.landed_commit,
      reason_code: row.reason_code,
      reason: row.reason,
      details,
      check_output: row.check_output,
      check_ms: row.check_ms,
      attempts: row.attempts,
      host: row.host,
      worktree: row.worktree,
      requested_at: new Date(row.requested_at).toISOString(),
      finished_at: row.finished_at === null ? null : new Date(row.finished_at).toISOString(),
    };
  }

  /** Whether this process is landing, or looking at a queue. */
  busy(): boolean {
    return this.under.size > 0 || this.driving.size > 0;
  }

  /** Stops landing in this process (it is closing): what was under way is left to the next lander. */
  stop(): void {
    this.stopped = true;
    for (const abort of this.under) abort.abort();
  }
}
