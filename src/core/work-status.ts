/**
 * The review workflow's rules: a work item's status machine, its phases, and the quality gate.
 *
 *   draft → pending_review → in_review → changes_requested | approved → merged
 *
 * A reviewer opening an item moves it to in_review; a new version (update_work) returns it to
 * pending_review; an approved item may be merged.
 */
import { CollabError } from './errors.js';

export const WORK_TYPES = ['discussion', 'requirement', 'design', 'code', 'test', 'doc'] as const;
export const PHASES = ['planning', 'development', 'testing', 'review', 'done'] as const;
export const STATUSES = [
  'draft',
  'pending_review',
  'in_review',
  'changes_requested',
  'approved',
  'merged',
] as const;
export const VERDICTS = ['approve', 'request_changes', 'comment'] as const;
export const SUGGESTION_TYPES = [
  'improvement',
  'bug',
  'security',
  'performance',
  'style',
  'clarity',
] as const;
export const SEVERITIES = ['critical', 'major', 'minor', 'info'] as const;

export type WorkType = (typeof WORK_TYPES)[number];
export type Phase = (typeof PHASES)[number];
export type WorkStatus = (typeof STATUSES)[number];
export type Verdict = (typeof VERDICTS)[number];

/** What moves an item from one status to another. */
export type WorkAction = 'submit' | 'open' | 'review' | 'update' | 'merge';

const MOVES: Record<WorkStatus, Partial<Record<WorkAction, true>>> = {
  draft: { submit: true, update: true },
  pending_review: { open: true, review: true, update: true },
  in_review: { review: true, update: true },
  changes_requested: { open: true, review: true, update: true },
  approved: { open: true, review: true, update: true, merge: true },
  merged: {},
};

const ACTION_LABEL: Record<WorkAction, string> = {
  submit: 'send it for review (update_work status "pending_review")',
  open: 'open it for review',
  review: 'review it (submit_review)',
  update: 'update it (update_work)',
  merge: 'merge it',
};

export function allowedActions(status: WorkStatus): WorkAction[] {
  return Object.keys(MOVES[status]) as WorkAction[];
}

/** Throws INVALID_STATE, naming the current status and what may be done from it. */
export function assertCan(status: WorkStatus, action: WorkAction, itemId: string): void {
  if (MOVES[status][action]) return;
  const allowed = allowedActions(status);
  throw new CollabError(
    'INVALID_STATE',
    `Work item ${itemId} is ${status}: cannot ${ACTION_LABEL[action]}.`,
    allowed.length === 0
      ? `A ${status} item is final.`
      : `From ${status} you can: ${allowed.map((a) => ACTION_LABEL[a]).join('; ')}.`,
  );
}

/** The status after an action (for `review`, after the verdicts on the current version). */
export function nextStatus(status: WorkStatus, action: WorkAction, verdicts: Verdict[] = []): WorkStatus {
  switch (action) {
    case 'submit':
      return 'pending_review';
    case 'open':
      return status === 'pending_review' ? 'in_review' : status;
    case 'update':
      return status === 'draft' ? 'draft' : 'pending_review';
    case 'merge':
      return 'merged';
    case 'review':
      // Request for changes outweighs approval for the same version, whatever order they came in.
      if (verdicts.includes('request_changes')) return 'changes_requested';
      if (verdicts.includes('approve')) return 'approved';
      return status === 'pending_review' ? 'in_review' : status;
  }
}

export function phaseIndex(phase: Phase): number {
  return PHASES.indexOf(phase);
}

/**
 * The quality gate: moving to a later phase, or merging, needs an approval of the current version
 * (unless the project relaxes it).
 */
export function assertGate(
  item: { id: string; version: number; status: WorkStatus },
  approvedVersions: number[],
  requireApproval: boolean,
  what: string,
): void {
  if (!requireApproval) return;
  if (item.status === 'approved' && approvedVersions.includes(item.version)) return;
  throw new CollabError(
    'GATE_CLOSED',
    `Cannot ${what}: version ${item.version} of work item ${item.id} is not approved (it is ${item.status}).`,
    'Get an approving review of the current version first, or relax the project: update_project {settings: {require_approval: false}}.',
  );
}

/** Lines changed between two texts (added + removed), for the auto-approval threshold. */
export function changedLines(before: string, after: string): number {
  const a = before.split('\n');
  const b = after.split('\n');
  const counts = new Map<string, number>();
  for (const line of a) counts.set(line, (counts.get(line) ?? 0) + 1);
  let common = 0;
  for (const line of b) {
    const n = counts.get(line) ?? 0;
    if (n > 0) {
      common++;
      counts.set(line, n - 1);
    }
  }
  return a.length - common + (b.length - common);
}
