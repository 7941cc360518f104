/**
 * `next_steps`: short suggestions derived from state, added to every tool response. One place
 * for all the rules, so that they read alike and are tested together.
 */

import { shown, word } from './fence.js';
import type { Delivered } from './notifications.js';
import { allowedActions, type WorkStatus } from './work-status.js';

export interface StepInput {
  tool: string;
  /** The tool's structured result (null when it failed). */
  output: Record<string, unknown> | null;
  /** The error code when it failed. */
  error: string | null;
  /** Unread messages for the caller's session (after this call). */
  unreadMessages: number;
  /** Notifications delivered with this response. */
  notifications: Delivered[];
  /** Whether more notifications wait than this response carries. */
  moreNotifications?: boolean;
}

const MAX_STEPS = 4;

type Conflict = { session?: string; session_id?: string; file?: string; overlap?: string[] };

function holders(conflicts: Conflict[]): string {
  return [...new Set(conflicts.map((c) => `"${c.session}" (${c.session_id})`))].join(', ');
}

export function nextSteps(input: StepInput): string[] {
  const steps: string[] = [];
  const out = input.output ?? {};
  const conflicts = Array.isArray(out.conflicts) ? (out.conflicts as Conflict[]) : [];

  if (input.tool === 'collab_check' && out.safe === false && conflicts.length > 0) {
    steps.push(
      `Message ${holders(conflicts)} with collab_message_send, or wait; ask the user before overriding their work.`,
    );
  }
  if (input.tool === 'collab_claim' && out.status === 'created_with_conflicts') {
    steps.push(
      `Coordinate with ${holders(conflicts)} before editing the overlapping files (collab_message_send).`,
    );
  }
  if (input.error === 'CLAIM_CONFLICT') {
    steps.push('See who holds the files with collab_claims_list, then message them or pick other work.');
  }
  if (input.error === 'SESSION_INACTIVE' || input.error === 'SESSION_NOT_FOUND') {
    steps.push('Start a session with collab_session_start (or omit session_id).');
  }
  if (input.unreadMessages > 0 && input.tool !== 'collab_message_list') {
    steps.push(
      `Read ${input.unreadMessages} unread message${input.unreadMessages === 1 ? '' : 's'} with collab_message_list.`,
    );
  }
  if (input.moreNotifications) {
    steps.push(
      `More notifications wait than this answer carries (${input.notifications.length}): they come with your next calls.`,
    );
  }
  for (const n of input.notifications) {
    switch (n.type) {
      case 'claim_conflict':
        steps.push(
          `"${n.session}" claimed files overlapping yours (${n.files.join(', ')}): coordinate with collab_message_send.`,
        );
        break;
      case 'claim_taken_over':
        steps.push(
          `While you were inactive "${n.session}" (${n.session_id}) took ${n.files.join(', ')}: message it before touching those files again.`,
        );
        break;
      case 'session_ended':
        steps.push(
          `"${n.session}" ended; files it held next to yours are free: collab_check before building on them.`,
        );
        break;
      case 'contract_updated':
        steps.push(
          `Contract ${n.contract} changed (${word(n.old_version)} → ${word(n.new_version)}): review it with contract_get.`,
        );
        break;
      case 'work_submitted':
        steps.push(`Review ${shown(n.title, 120)}: get_work_detail ${n.work_item_id}, then submit_review.`);
        break;
      case 'review_submitted': {
        // What the worker can do next depends on where the item is now: a merged item is final.
        const actions = allowedActions(n.status as WorkStatus);
        steps.push(
          actions.includes('update')
            ? `Read the review of ${shown(n.title, 120)} with get_review_feedback ${n.work_item_id}, then respond_to_review or update_work.`
            : `${shown(n.title, 120)} is ${n.status}: nothing more to do on it (get_review_feedback ${n.work_item_id} shows the review).`,
        );
        break;
      }
      case 'review_response':
        steps.push(
          `"${n.from}" answered your review of ${shown(n.title, 120)}: see get_conversation ${n.work_item_id}.`,
        );
        break;
      case 'predicted_conflict':
        steps.push(
          `Your changes to ${n.file} meet "${n.session}"'s (${n.session_id}): compare with collab_check, then coordinate with collab_message_send.`,
        );
        break;
      case 'land_outcome':
        steps.push(
          n.outcome === 'landed'
            ? `Your work is on ${n.onto} (${n.commit}): move your branch onto it (git reset --keep ${n.commit}) before going on.`
            : `Landing ${n.landing_id} was ${n.outcome}: collab_land_status shows why; fix it, then collab_land again.`,
        );
        break;
      case 'branch_landed':
        steps.push(
          `Your branch's work is on ${word(n.onto)} (${n.commit.slice(0, 12)}), landed by "${n.session}": move your branch onto it (git reset --keep ${n.commit}) before going on.`,
        );
        break;
      case 'target_moved_here':
        steps.push(
          `${n.onto} moved under your worktree (now ${n.commit.slice(0, 12)}): read again the files you had open before editing them.`,
        );
        break;
      case 'landed_conflict':
        steps.push(
          `What "${n.session}" landed on ${n.onto} meets your changes to ${n.file}: collab_check shows both sides; bring your work onto ${n.onto} (git rebase) and settle it.`,
        );
        break;
      case 'unseen_write':
        steps.push(
          `${n.file} changed behind the hooks: read it again before editing it${n.by ? `, and ask "${n.by}" (collab_message_send) what it changed` : ''}.`,
        );
        break;
      case 'binding_changed':
        steps.push(`Domain ${n.domain} changed (${n.repo} ${n.change}): see realm_status.`);
        break;
      case 'question_answered':
        steps.push(
          `A person answered your question ${n.question_id}: act on the answer in this notification.`,
        );
        break;
      case 'message':
        break; // the unread count above says it
    }
  }
  if (input.tool === 'realm_status' && out.session === null) {
    steps.push('Start a session with session_start to track your work.');
  }
  if (input.tool === 'realm_check' && Array.isArray(out.errors) && out.errors.length > 0) {
    steps.push('Fix the errors realm_check lists, then run it again.');
  }
  return [...new Set(steps)].slice(0, MAX_STEPS);
}
