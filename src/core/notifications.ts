import { shown, word } from './fence.js';
import { LIMITS } from './limits.js';

/**
 * Notification rules: the lifecycle `pending → seen → expired`, and how rapid repeats of one
 * subject coalesce into one notification.
 */

export type NotificationState = 'pending' | 'seen' | 'expired';

/**
 * What each kind of notification carries. One place, so that what emits a notification, what
 * describes it and what suggests a next step from it agree; `type` is never a payload field (the
 * delivered notification's `type` is its kind).
 */
export interface NotificationPayloads {
  message: { from: string; from_session_id: string; message_id: string; broadcast: boolean; preview: string };
  claim_conflict: { session: string; session_id: string; files: string[]; intent: string };
  claim_taken_over: {
    session: string;
    session_id: string;
    files: string[];
    intent: string;
    released: string[];
  };
  session_ended: { session: string; session_id: string; files: string[] };
  /** A person released one of this session's claims (from the dashboard or the command line). */
  claim_released: { claim_id: string; files: string[]; intent: string; by: string; reason: string };
  contract_updated: {
    realm: string;
    domain: string;
    contract: string;
    from_repo: string | null;
    old_version: string;
    new_version: string;
  };
  binding_changed: { realm: string; domain: string; repo: string; change: string };
  work_submitted: {
    work_item_id: string;
    title: string;
    work_type: string;
    version: number;
    from: string;
    project: string;
  };
  review_submitted: {
    work_item_id: string;
    title: string;
    reviewer: string;
    verdict: string;
    status: string;
    suggestions: number;
  };
  review_response: { work_item_id: string; title: string; from: string; action: string; preview: string };
  /**
   * This session's uncommitted changes and another live session's will meet when merged:
   * `textual` (git will conflict), `symbol` (both change one function), `file` (compared whole).
   */
  predicted_conflict: {
    session: string;
    session_id: string;
    file: string;
    level: string;
    symbols: string[];
    /** Where, in lines of the version both started from ("yours 10–12, theirs 11"). */
    lines: string;
    /** What the other session changed there: its lines, `-`/`+`, on one line (absent before). */
    theirs?: string;
  };
  /**
   * A file this session holds was changed and no hook announced it (a script, a generator, a
   * person's editor): `by` is the session that most likely did it (`evidence` says why), else null.
   */
  unseen_write: {
    file: string;
    folder: string;
    by: string | null;
    by_session_id: string | null;
    evidence: string;
  };
  /** How this session's request to land its work ended (`collab_land`), once it had returned. */
  land_outcome: {
    landing_id: string;
    /** landed, rejected or cancelled. */
    outcome: string;
    onto: string;
    /** The target's commit now holding the work (landed), else null. */
    commit: string | null;
    /** Why it was refused (rejected, cancelled), else null. */
    reason: string | null;
  };
  /**
   * Work another session just landed meets this session's uncommitted or unlanded changes: merging
   * them with the target will conflict (`textual`), touch one function (`symbol`), or break a use
   * of a changed interface (`semantic`).
   */
  landed_conflict: {
    landing_id: string;
    session: string;
    session_id: string | null;
    onto: string;
    commit: string;
    file: string;
    level: string;
    symbols: string[];
    lines: string;
  };
  /** Landed work moved the branch this session's worktree has checked out: its files moved with it. */
  target_moved_here: {
    landing_id: string;
    session: string;
    onto: string;
    commit: string;
    worktree: string;
  };
  /**
   * Another session (started in this session's worktree) landed the worktree's branch: its commits
   * are on the target now.
   */
  branch_landed: {
    landing_id: string;
    session: string;
    onto: string;
    commit: string;
    branch: string;
  };
  /** A person answered a question this session asked, after the call that asked had returned. */
  question_answered: {
    question_id: string;
    question: string;
    answer: string;
    answered_via: string;
    answered_at: string;
  };
}

export type NotificationType = keyof NotificationPayloads;

/**
 * One notification to emit: its kind, what it is about (repeats of a subject coalesce while
 * pending) and its payload.
 */
export type Notice = {
  [K in NotificationType]: { type: K; subject: string; payload: NotificationPayloads[K] };
}[NotificationType];

/** A notification as a session receives it: its payload, with its kind, state and times. */
export type Delivered = {
  [K in NotificationType]: NotificationPayloads[K] & {
    type: K;
    id: string;
    state: NotificationState;
    /** How many events this one stands for (repeats of a subject coalesce while pending). */
    count: number;
    created_at: string;
    updated_at: string;
  };
}[NotificationType];

/** Notifications expire this long after they were created. */
export const NOTIFICATION_TTL_MS = 7 * 86_400_000;

/** The state a notification is in at `now`, by age alone. */
export function stateAt(state: NotificationState, createdAt: number, now: number): NotificationState {
  return state !== 'expired' && now - createdAt >= NOTIFICATION_TTL_MS ? 'expired' : state;
}

/**
 * Merges a repeat into a still-pending notification of the same subject: the newest values win,
 * except the "before" side of a change (`old_*`, `from_*` keys), which keeps the first one, so that
 * 1.0.0 → 1.1.0 → 1.3.0 reads as one change from 1.0.0 to 1.3.0. Lists (`files`) are unioned.
 */
export function coalescePayload(
  earlier: Record<string, unknown>,
  later: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...earlier };
  for (const [key, value] of Object.entries(later)) {
    if ((key.startsWith('old_') || key.startsWith('from_')) && key in earlier) continue;
    const before = earlier[key];
    // Lists stay a summary: a notification never grows past a few KB, however often it repeats.
    if (Array.isArray(before) && Array.isArray(value))
      out[key] = [...new Set([...before, ...value])].slice(0, LIMITS.notifiedPaths);
    else out[key] = value;
  }
  return out;
}

/** One line for people and models. */
/**
 * How much of a notification's line a session is shown: a person's answer is the whole point of
 * its line (its payload keeps 2,000 characters), anything else a summary.
 */
export function notificationChars(n: Delivered): number {
  return n.type === 'question_answered' ? 2_400 : 400;
}

export function describeNotification(n: Delivered): string {
  const times = n.count > 1 ? ` (${n.count}×)` : '';
  switch (n.type) {
    case 'message':
      return `${n.broadcast ? 'Broadcast' : 'Message'} from "${n.from}"${times}: ${shown(n.preview, 300)}`;
    case 'claim_conflict':
      return `"${n.session}" claimed files overlapping yours: ${n.files.join(', ')} (intent: ${shown(n.intent, 200)})`;
    case 'claim_taken_over':
      return `While this session was inactive, "${n.session}" claimed ${n.files.join(', ')} (intent: ${shown(n.intent, 200)}); ${n.released.length > 0 ? `your claim on ${n.released.join(', ')} was released` : 'your claims stay beside theirs'}. Coordinate before editing those files.`;
    case 'session_ended':
      return `"${n.session}" ended; it held ${n.files.join(', ')} next to your claims`;
    case 'claim_released':
      return `${n.by} released your claim ${n.claim_id} on ${n.files.join(', ')} (intent: ${shown(n.intent, 200)}): ${shown(n.reason, 200)}. Claim again before editing those files.`;
    case 'contract_updated':
      return `Contract ${n.contract} (${n.domain}) changed ${word(n.old_version)} → ${word(n.new_version)}${n.from_repo ? ` in ${n.from_repo}` : ''}`;
    case 'binding_changed':
      return `Domain ${n.domain}: ${n.repo} ${n.change}`;
    case 'work_submitted':
      return `"${n.from}" submitted ${n.work_type} ${shown(n.title, 120)} (${n.work_item_id}, v${n.version}) for review`;
    case 'review_submitted':
      return `"${n.reviewer}" reviewed ${shown(n.title, 120)} (${n.work_item_id}): ${n.verdict}, ${n.suggestions} suggestion(s); now ${n.status}`;
    case 'review_response':
      return `"${n.from}" responded (${n.action}) on ${shown(n.title, 120)} (${n.work_item_id}): ${shown(n.preview, 300)}`;
    case 'predicted_conflict': {
      const symbols = n.symbols.length > 0 ? ` (${n.symbols.join(', ')})` : '';
      const theirs = n.theirs ? `; theirs: ${n.theirs}` : '';
      if (n.level === 'semantic')
        return `With "${n.session}": git will merge, but the build breaks: ${n.lines}`;
      if (n.level === 'symbol')
        return `"${n.session}" also changes ${n.symbols.join(', ')} in ${n.file}, not committed yet: git will merge the two, so read both before merging${theirs}`;
      return `Your changes to ${n.file}${symbols} will conflict with "${n.session}"'s uncommitted ones when merged (${n.lines})${theirs}`;
    }
    case 'unseen_write':
      return `${n.file}, which you hold, was changed in ${n.folder}${times} and no agent's edit tool did it: ${n.by ? `most likely "${n.by}" (${n.by_session_id}; ${n.evidence})` : `by whom is unknown (${n.evidence})`}. Read it again before you edit it`;
    case 'land_outcome':
      return n.outcome === 'landed'
        ? `Your work landed on ${word(n.onto)} as ${n.commit} (landing ${n.landing_id}); your own branch is as it was`
        : `Your request to land on ${word(n.onto)} was ${n.outcome} (landing ${n.landing_id}): ${n.reason ?? ''}`;
    case 'landed_conflict': {
      const symbols = n.symbols.length > 0 ? ` (${n.symbols.join(', ')})` : '';
      const what =
        n.level === 'semantic'
          ? `git will merge, but the build breaks: ${n.lines}`
          : n.level === 'symbol'
            ? `both change ${n.symbols.join(', ')}: git will merge, read both`
            : `merging will conflict (${n.lines})`;
      return `"${n.session}" landed work on ${word(n.onto)} (${n.commit.slice(0, 12)}) that meets your changes to ${word(n.file, 200)}${symbols}: ${what}`;
    }
    case 'target_moved_here':
      return `"${n.session}" landed work on ${word(n.onto)} (${n.commit.slice(0, 12)}), which your worktree ${n.worktree} has checked out: its files moved with it`;
    case 'branch_landed':
      return `"${n.session}" landed the work of your worktree's branch ${word(n.branch)} on ${word(n.onto)} as ${n.commit.slice(0, 12)} (landing ${n.landing_id}); your branch is as it was`;
    case 'question_answered':
      return `Your question ${n.question_id} (${shown(n.question, 200)}) was answered via ${n.answered_via}: ${shown(n.answer, 2_000)}`;
  }
}
