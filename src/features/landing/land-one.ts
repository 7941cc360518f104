/**
 * Landing one request, never in an agent's working tree: in a scratch worktree of the requester's
 * repository, the target fetched, the work replayed on it, the project's check run, and the target
 * moved only from the commit the work was replayed on. Refused (with what was found) on a
 * conflict, a failed check, held or stale work, work not approved when reviews are required, an
 * unknown target. A takeover of a landing whose lander died first finds out whether that lander
 * moved the target already (the candidate it noted is in the target).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AppContext } from '../../app/context.js';
import { inline, outputTail, quoteBlock, shown, word } from '../../core/fence.js';
import { gitWords, tryGitAsync } from '../../integrations/git.js';
import {
  addScratch,
  commitsBetween,
  commitsTouching,
  committedAt,
  contains,
  currentTarget,
  landingRemote,
  moveTarget,
  type ReplayConflict,
  removeScratch,
  replay,
  workToLand,
} from '../../integrations/git-landing.js';
import { locateFolder } from '../../integrations/git-repo.js';
import { runCheck } from '../../integrations/land-check.js';
import type { LandingOutcome, LandingRow } from '../../store/landings-store.js';
import { heldWork, type Refusal } from './land-rules.js';
import { type LandSettings, landSettings } from './land-settings.js';
import type { LandingServices } from './landing-service.js';

/** Replays again on a target that moved during the check, at most this many times. */
const MAX_REPLAYS = 5;
/** The check's output kept (its tail). */
const OUTPUT_CHARS = 8_000;

/** What a lander does while it lands: renew its hold, and stop when it lost it. */
export interface Runner {
  id: string;
  /** Aborted when another process took the landing over (the lease was lost). */
  signal: AbortSignal;
}

/** The scratch worktree of a landing: in the home folder, one per request. */
export function scratchPath(app: AppContext, row: LandingRow): string {
  return join(app.paths.home, 'landings', row.id);
}

/**
 * Lands `row` (taken by `runner`): the outcome, or null when the landing was taken over meanwhile
 * (the taker records it).
 */
export async function landOne(
  services: LandingServices,
  row: LandingRow,
  runner: Runner,
): Promise<
  | (LandingOutcome & {
      before?: string;
      commits?: string[];
      files?: string[];
      movedWorktree?: string | null;
    })
  | null
> {
  const { app } = services;
  const scratch = scratchPath(app, row);
  try {
    return await attempt(services, row, runner, scratch);
  } catch (error) {
    if (runner.signal.aborted) return null;
    app.log.warn('landing.failed', { landing: row.id, message: String(error).slice(0, 500) });
    return refused('GIT_FAILED', `Landing stopped on an error: ${gitWords(error)}`);
  } finally {
    await removeScratch(row.worktree, scratch).catch(() => {});
  }
}

function refused(code: string, reason: string, details?: unknown, extra: Partial<LandingOutcome> = {}) {
  return {
    state: 'rejected' as const,
    reason_code: code,
    reason,
    details: details === undefined ? null : JSON.stringify(details),
    ...extra,
  };
}

async function attempt(services: LandingServices, row: LandingRow, runner: Runner, scratch: string) {
  if (!existsSync(row.worktree))
    return refused('NOT_A_REPOSITORY', `${row.worktree} no longer exists: the copy asking to land is gone.`);
  const place = locateFolder(row.worktree);
  if (place.kind !== 'git')
    return refused('NOT_A_REPOSITORY', `${row.worktree} is no longer a git worktree.`);
  // The rules come from the target, and may name the remote to land through: git's own choice first.
  let remote = landingRemote(place.commonDir, row.onto, null);
  let target = await currentTarget(row.worktree, remote, row.onto);
  if (target === null) return unknownTarget(row, remote);
  const read = await landSettings(row.worktree, target);
  if ('error' in read) return refused('SETTINGS', read.error);
  if (read.settings.remote && read.settings.remote !== remote) {
    remote = landingRemote(place.commonDir, row.onto, read.settings.remote);
    target = null;
  }
  return attemptOn(services, row, runner, scratch, remote, read.settings, target);
}

function unknownTarget(row: LandingRow, remote: string | null) {
  return refused(
    'UNKNOWN_TARGET',
    `There is no branch "${row.onto}" ${remote ? `on ${remote}` : 'in this repository'} to land on: name an existing one (onto).`,
  );
}

async function attemptOn(
  services: LandingServices,
  row: LandingRow,
  runner: Runner,
  scratch: string,
  remote: string | null,
  settings: LandSettings,
  known: string | null,
) {
  const { app } = services;
  const store = app.store;
  for (let round = 0; round < MAX_REPLAYS; round++) {
    if (runner.signal.aborted) return null;
    const target = round === 0 && known ? known : await currentTarget(row.worktree, remote, row.onto);
    if (target === null) return unknownTarget(row, remote);
    // A target that moved may hold other rules (its check, require_review): the work is judged by
    // the target it lands on. Where to land (land.remote) stays as first read.
    if (round > 0) {
      const read = await landSettings(row.worktree, target);
      if ('error' in read) return refused('SETTINGS', read.error);
      settings = { ...read.settings, remote: settings.remote };
    }
    // A lander that died after moving the target: the candidate it noted is there.
    if (row.candidate && (await contains(row.worktree, target, row.candidate)))
      return landedAs(row, row.candidate, row.target_before ?? target);
    const work = await workToLand(row.worktree, target, row.head_commit);
    if (work === null) return await unrelated(row);
    if (work.commits === 0)
      return landedAs(row, target, target, 'Every commit of it was on the target already.');
    const held = await heldWork(services, row, work.files, { base: work.base, head: row.head_commit });
    if (held) return refused(held.code, held.reason, held.details);
    const review = settings.require_review
      ? await reviewGate(services, row, await committedAt(row.worktree, row.head_commit))
      : null;
    if (review) return refused(review.code, review.reason, review.details);

    await addScratch(row.worktree, scratch, row.head_commit);
    const replayed = await replay(scratch, target, work.base);
    if (!replayed.ok) {
      const conflicts = await describeConflicts(services, row, replayed.conflicts, work.base, target);
      return refused(
        'CONFLICT',
        `Replaying it on ${row.onto} (${target.slice(0, 12)}) stops on a conflict in ${conflicts
          .map(
            (c) =>
              `${word(c.file, 200)}${c.lines.length > 0 ? ` (lines ${c.lines.join(', ')})` : ''}${c.meets[0] ? `, which ${c.meets[0].by} changed in ${c.meets[0].commit.slice(0, 12)}` : ''}`,
          )
          .join('; ')}. Bring your branch onto ${row.onto} (git rebase), settle it, then ask again.`,
        { conflicts, target },
      );
    }
    if (
      !(await store.write(() => store.landings.note(row.id, runner.id, { target_before: target }), {
        project: row.project_id,
      }))
    )
      return null;
    let output: string | null = null;
    let ms: number | null = null;
    if (settings.check) {
      const check = await runCheck({
        command: settings.check,
        cwd: scratch,
        landingId: row.id,
        timeoutMs: settings.check_timeout_seconds * 1000,
        tailChars: OUTPUT_CHARS,
        signal: runner.signal,
      });
      if (check.cancelled || runner.signal.aborted) return null;
      // Output of a program run on the requester's work: its controls go before anyone reads it.
      output = outputTail(check.output, OUTPUT_CHARS);
      ms = check.ms;
      if (!check.passed)
        return refused(
          'CHECK_FAILED',
          check.timedOut
            ? `The check (${inline(settings.check, 200)}) ran past ${settings.check_timeout_seconds} s and was ended.`
            : `The check (${inline(settings.check, 200)}) failed (exit ${check.code ?? 'by signal'}): nothing landed. Fix what it reports, commit, and ask again.`,
          { target, replayed: replayed.commit },
          { check_output: output, check_ms: ms },
        );
    }
    // Noted before the target moves: a taker after a crash here knows whether it moved.
    if (
      !(await store.write(() => store.landings.note(row.id, runner.id, { candidate: replayed.commit }), {
        project: row.project_id,
      }))
    )
      return null;
    if (runner.signal.aborted) return null;
    const moved = await moveTarget(scratch, remote, row.onto, target, replayed.commit);
    if (moved.moved) {
      const commits = replayed.commits;
      return {
        state: 'landed' as const,
        landed_commit: replayed.commit,
        reason: moved.worktree
          ? `The worktree ${moved.worktree}, which has ${row.onto} checked out, moved with it.`
          : null,
        details: JSON.stringify({ commits, target_before: target, dropped: work.commits - commits.length }),
        files: work.files,
        movedWorktree: moved.worktree,
        check_output: output,
        check_ms: ms,
        before: target,
        commits,
      };
    }
    if (moved.why === 'checked_out_dirty')
      return refused(
        'TARGET_CHECKED_OUT',
        `${row.onto} is checked out in ${moved.worktree}, whose uncommitted changes are in the way of moving it: commit or stash them there, then ask again. git said: ${moved.detail}`,
        { worktree: moved.worktree },
        { check_output: output, check_ms: ms },
      );
    // The target moved during the check: replayed again on the new one, and checked again.
    app.log.info('landing.target_moved', { landing: row.id, round });
    await removeScratch(row.worktree, scratch);
  }
  return refused(
    'TARGET_BUSY',
    `${row.onto} moved ${MAX_REPLAYS} times while this work was checked; ask again when it is quieter.`,
  );
}

/** A landing that ended with the work on the target (`commit`), found or made. */
async function landedAs(row: LandingRow, commit: string, before: string, note?: string) {
  const commits = before === commit ? [] : await commitsBetween(row.worktree, before, commit);
  return {
    state: 'landed' as const,
    landed_commit: commit,
    reason: note ?? null,
    details: JSON.stringify({ commits, target_before: before, dropped: 0 }),
    before,
    commits,
  };
}

/**
 * When the project asks for reviews: the requester's work item, approved with this commit checked
 * out or a later one (the commit noted at the approval); where none was noted (the submitter on
 * another machine), approved after the commit's date.
 */
async function reviewGate(
  services: LandingServices,
  row: LandingRow,
  committedAt: number | null,
): Promise<Refusal | null> {
  const item = row.session_id ? await services.app.store.workItems.latestBy(row.session_id) : undefined;
  const approvedHead = item?.approved_head ?? null;
  const covered =
    approvedHead !== null
      ? row.head_commit === approvedHead ||
        (await tryGitAsync(row.worktree, 'merge-base', '--is-ancestor', row.head_commit, approvedHead)) !==
          null
      : committedAt === null || (item !== undefined && Number(item.updated_at) >= committedAt);
  if (item && item.status === 'approved' && covered) return null;
  const title = item ? `${shown(item.title, 120)} (${item.id})` : '';
  return {
    code: 'NOT_APPROVED',
    reason: !item
      ? 'This project lands only approved work (land.require_review), and this session has submitted no work item: submit_work, get it approved, then ask again.'
      : item.status !== 'approved'
        ? `This project lands only approved work (land.require_review), and your work item ${title} is ${item.status}.`
        : `This project lands only approved work (land.require_review), and your work item ${title} was approved before your last commit${approvedHead ? ` (at ${approvedHead.slice(0, 12)})` : ''}: update_work with what changed, and get it approved again.`,
    details: item ? { work_item_id: item.id, status: item.status } : {},
  };
}

async function unrelated(row: LandingRow) {
  // Commits deleted with their branch (and pruned) are no history to fetch.
  if ((await tryGitAsync(row.worktree, 'cat-file', '-e', `${row.head_commit}^{commit}`)) === null)
    return refused(
      'WORK_GONE',
      `The commit asked to land (${row.head_commit.slice(0, 12)} of ${row.branch}) is no longer in the repository: its branch was deleted or moved and the commit pruned. Commit the work again on a branch, then ask again.`,
    );
  return refused(
    'UNRELATED',
    `${row.branch} shares no history with ${row.onto} here (unrelated histories, or a shallow clone cut it): fetch the whole history (git fetch --unshallow), or land onto a branch it grew from.`,
  );
}

/** The conflicts as said: each file's lines, both sides quoted, and the landed work it meets (whose, which commit). */
async function describeConflicts(
  services: LandingServices,
  row: LandingRow,
  conflicts: ReplayConflict[],
  base: string,
  target: string,
) {
  // The commits each recent landing put on the target (its details), to tell whose work a commit is.
  const landed = (await services.app.store.landings.recent(row.project_id, 50))
    .filter((l) => l.state === 'landed')
    .map((l) => ({ row: l, commits: new Set(landedCommits(l)) }));
  const landedBy = (commit: string) => landed.find((l) => l.commits.has(commit))?.row ?? null;
  const out = [];
  for (const c of conflicts.slice(0, 10)) {
    const touching = await commitsTouching(row.worktree, base, target, c.file);
    out.push({
      file: c.file,
      lines: c.lines,
      target_side: quoteBlock(c.target, 800, 12, '[… cut]'),
      your_side: quoteBlock(c.work, 800, 12, '[… cut]'),
      meets: touching.map((t) => {
        const by = landedBy(t.commit);
        return {
          commit: t.commit,
          subject: inline(t.subject, 200),
          // Names another session or a commit's author chose: quoted as data (`shown`).
          by: by ? `${shown(by.requester, 60)} (landing ${by.id.slice(0, 8)})` : shown(t.author, 60),
          landing_id: by?.id ?? null,
          session_id: by?.session_id ?? null,
        };
      }),
    });
  }
  return out;
}

/** The commits a landing put on the target, from its details. */
function landedCommits(row: LandingRow): string[] {
  try {
    const details = JSON.parse(row.details ?? '{}') as { commits?: unknown };
    return Array.isArray(details.commits)
      ? details.commits.filter((c): c is string => typeof c === 'string')
      : [];
  } catch {
    return [];
  }
}
