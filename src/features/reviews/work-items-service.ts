import type { AppContext } from '../../app/context.js';
import { CollabError, invalidInput } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { MAX_DIFF_EDITS, unifiedDiff } from '../../core/line-diff.js';
import { iso } from '../../core/time.js';
import {
  assertCan,
  assertGate,
  changedLines,
  nextStatus,
  type Phase,
  phaseIndex,
  type WorkType,
} from '../../core/work-status.js';
import { readRef } from '../../integrations/git-refs.js';
import { locateFolder } from '../../integrations/git-repo.js';
import type { ProjectRow } from '../../store/projects-store.js';
import type { WorkItemRow } from '../../store/work-items-store.js';
import type { NotificationsService } from '../notifications/notifications-service.js';
import type { SessionsService } from '../sessions/sessions-service.js';
import type { Actor } from './review-projects.js';
import { ReviewQueries } from './review-queries.js';
import { saveReview } from './review-records.js';
import { EVENT_PAGE_CHARS, itemView } from './review-views.js';

/** Work items: submitted, opened for review, updated to new versions (merged when approved). */
export class WorkItemsService extends ReviewQueries {
  constructor(
    app: AppContext,
    protected readonly sessions: SessionsService,
    protected readonly notifications: NotificationsService,
  ) {
    super(app);
  }

  async submitWork(
    actor: Actor,
    input: {
      projectId?: string | undefined;
      type: WorkType;
      phase: Phase;
      title: string;
      description?: string | undefined;
      content: string;
      metadata?: Record<string, unknown> | undefined;
      draft?: boolean | undefined;
    },
  ) {
    const { store } = this.app;
    const project = await this.projects.projectOf(actor, input.projectId);
    // Work submitted there would be work its submitter could not update.
    this.projects.assertChangedByItsOwn(
      project,
      actor,
      'Submit it to your own project (leave projectId out)',
    );
    if (project.status === 'archived')
      throw new CollabError(
        'INVALID_STATE',
        `Project ${project.id} is archived.`,
        'Reopen it with update_project {status: "active"}.',
      );
    // Its time made inside the write, and the item returned by it: a call sent again gets this very
    // item back. The id is made before the write: run again (its group rolled back,
    // store/write-groups.ts), the write keeps the id a read between the group's writes saw (a
    // reviewer's list of pending work, which it opens by).
    const made = `work_${newId().slice(0, 8)}`;
    const item = await store.write(async () => {
      const now = this.app.now();
      const item: WorkItemRow = {
        id: made,
        project_id: project.id,
        type: input.type,
        phase: input.phase,
        title: input.title,
        description: input.description ?? null,
        content: input.content,
        metadata: JSON.stringify(input.metadata ?? {}),
        status: input.draft ? 'draft' : 'pending_review',
        version: 1,
        submitted_by: actor.id,
        submitted_by_name: actor.name,
        created_at: now,
        updated_at: now,
      };
      await store.workItems.insert(item);
      await store.workItems.addRevision({
        work_item_id: item.id,
        version: 1,
        title: item.title,
        content: item.content,
        change_description: 'submitted',
        created_by: actor.id,
        created_by_name: actor.name,
        created_at: now,
      });
      await this.event(project.id, item.id, 'submitted', actor, 'worker', {
        title: item.title,
        type: item.type,
        phase: item.phase,
        version: 1,
        content: item.content,
        draft: input.draft === true,
      });
      if (!input.draft) await this.notifyReviewers(project, item, actor);
      return item;
    });
    return itemView(item);
  }

  /** Opens (if it awaits review) and describes an item; with history, its revisions and a diff. */
  async workDetail(
    actor: Actor,
    id: string,
    includeHistory: boolean,
    diff?: { from?: number | undefined; to?: number | undefined },
  ) {
    const { store } = this.app;
    const item = await store.write(async () => {
      const current = await this.item(id);
      // What a review that names no version reviews (submitReview).
      await store.workItems.markRead(id, actor.id, current.version, this.app.now());
      if (current.status === 'pending_review' && current.submitted_by !== actor.id) {
        const opened = { ...current, status: nextStatus(current.status, 'open'), updated_at: this.app.now() };
        await store.workItems.update(opened);
        await store.workEvents.watch(current.project_id, actor.id);
        await this.event(current.project_id, id, 'opened', actor, 'reviewer', { version: current.version });
        return opened;
      }
      return current;
    });
    const revisions = includeHistory ? await store.workItems.revisions(id) : [];
    let diffText: string | null = null;
    if (includeHistory && revisions.length > 1) {
      // By default the newest two revisions (an imported item's history may skip versions).
      const to = diff?.to ?? revisions.at(-1)!.version;
      const from = diff?.from ?? revisions.filter((r) => r.version < to).at(-1)?.version ?? to;
      const a = await store.workItems.revision(id, from);
      const b = await store.workItems.revision(id, to);
      if (!a || !b) throw invalidInput(`diffFrom/diffTo: versions go from 1 to ${item.version}.`);
      diffText =
        unifiedDiff(a.content, b.content, `v${from}`, `v${to}`) ??
        `diff too large: v${from} and v${to} differ by more than ${MAX_DIFF_EDITS} added and removed lines; compare versions nearer each other (diffFrom, diffTo).`;
    }
    // The revisions' contents, newest first, up to EVENT_PAGE_CHARS together (each may be the whole
    // content limit): the older ones say how long they are, and a diff still compares them.
    let room = EVENT_PAGE_CHARS;
    const shownContent = new Map<number, boolean>();
    for (const r of [...revisions].reverse()) {
      shownContent.set(r.version, r.content.length <= room);
      if (r.content.length <= room) room -= r.content.length;
      else room = 0;
    }
    const cut = revisions.filter((r) => !shownContent.get(r.version)).length;
    return {
      ...itemView(item),
      ...(await this.feedback(id)),
      ...(includeHistory
        ? {
            revisions: revisions.map((r) => ({
              version: r.version,
              title: r.title,
              ...(shownContent.get(r.version)
                ? { content: r.content }
                : { content: null, content_chars: r.content.length }),
              change_description: r.change_description,
              by: r.created_by_name,
              at: iso(r.created_at),
            })),
            ...(cut > 0 ? { revisions_without_content: cut } : {}),
            diff: diffText,
          }
        : {}),
    };
  }

  async updateWork(
    actor: Actor,
    input: {
      workItemId: string;
      content?: string | undefined;
      changeDescription: string;
      title?: string | undefined;
      phase?: Phase | undefined;
      status?: 'pending_review' | 'merged' | undefined;
    },
  ) {
    const { store } = this.app;
    if (
      input.content === undefined &&
      input.phase === undefined &&
      input.status === undefined &&
      input.title === undefined
    ) {
      throw invalidInput(
        'give content (a new version), title, phase, or status ("pending_review" for a draft, "merged").',
      );
    }
    // Whether it was approved automatically is returned by the write too: a call sent again gets
    // what the write returned, and nothing it set aside. The automatic review's id (used if there
    // is one) is made before the write, as a review's is (ReviewService.submitReview).
    const autoReviewId = `review_${newId().slice(0, 8)}`;
    const { item: updated, autoApproved } = await store.write(async () => {
      let item = await this.item(input.workItemId);
      let autoApproved = false;
      const project = await this.projects.project(item.project_id);
      this.projects.assertChangedByItsOwn(project, actor, 'Review it instead (submit_review)');
      const settings = this.projects.settings(project);
      const now = this.app.now();
      const approvedVersions = async () =>
        (await store.reviews.ofItem(item.id))
          .filter((r) => r.verdict === 'approve')
          .map((r) => r.work_item_version);
      if (input.content !== undefined || input.title !== undefined) {
        assertCan(item.status, 'update', item.id);
        const previous = item;
        item = {
          ...item,
          title: input.title ?? item.title,
          content: input.content ?? item.content,
          version: item.version + 1,
          status: nextStatus(item.status, 'update'),
          updated_at: now,
        };
        await store.workItems.update(item);
        // Its author has read what it wrote (a review of its own, where allowed, is of this one).
        await store.workItems.markRead(item.id, actor.id, item.version, now);
        await store.workItems.addRevision({
          work_item_id: item.id,
          version: item.version,
          title: item.title,
          content: item.content,
          change_description: input.changeDescription,
          created_by: actor.id,
          created_by_name: actor.name,
          created_at: now,
        });
        await this.event(item.project_id, item.id, 'updated', actor, 'worker', {
          version: item.version,
          change_description: input.changeDescription,
          content: item.content,
        });
        autoApproved = await this.maybeAutoApprove(previous, item, autoReviewId);
        if (autoApproved) item = await this.item(item.id);
        // A draft's new version is still the worker's own: reviewers hear of it once it is sent.
        else if (item.status !== 'draft') await this.notifyReviewers(project, item, actor);
      }
      // Sent for review: a draft. A new version of any other item, made by this very call, is
      // pending review already.
      const newVersion = input.content !== undefined || input.title !== undefined;
      if (input.status === 'pending_review' && !(newVersion && item.status === 'pending_review')) {
        assertCan(item.status, 'submit', item.id);
        item = { ...item, status: nextStatus(item.status, 'submit'), updated_at: now };
        await store.workItems.update(item);
        await this.event(item.project_id, item.id, 'sent_for_review', actor, 'worker', {
          version: item.version,
          change_description: input.changeDescription,
        });
        await this.notifyReviewers(project, item, actor);
      }
      if (input.phase !== undefined && input.phase !== item.phase) {
        if (phaseIndex(input.phase) > phaseIndex(item.phase)) {
          assertGate(
            item,
            await approvedVersions(),
            settings.require_approval,
            `move to phase ${input.phase}`,
          );
        }
        const from = item.phase;
        item = { ...item, phase: input.phase, updated_at: now };
        await store.workItems.update(item);
        await this.event(item.project_id, item.id, 'phase_changed', actor, 'worker', {
          from,
          to: input.phase,
        });
      }
      if (input.status === 'merged') {
        assertCan(item.status, 'merge', item.id);
        assertGate(item, await approvedVersions(), settings.require_approval, 'merge');
        item = { ...item, status: 'merged', updated_at: now };
        await store.workItems.update(item);
        await this.event(item.project_id, item.id, 'merged', actor, 'worker', {
          version: item.version,
          change_description: input.changeDescription,
        });
      }
      return { item, autoApproved };
    });
    return { ...itemView(updated), auto_approved: autoApproved };
  }

  /**
   * Automatic approval (AI_COLLAB_AUTO_APPROVE=true, or review_auto_approve in config): a new
   * version of an item whose changes were requested, when what the reviewers asked for since the
   * newest version one of them approved was minor (every request itemized in suggestions, all minor or
   * info) and the content changed, a little. A critical or major suggestion always goes back to a
   * reviewer, whatever the worker answered to it (the worker resolves suggestions: rejecting one
   * must not approve the work), as does a request whose concerns are only in its summary, or a new
   * title alone. Recorded as a review by "auto-approval" (of id `reviewId`, made before the write),
   * never silently.
   */
  private async maybeAutoApprove(
    previous: WorkItemRow,
    item: WorkItemRow,
    reviewId: string,
  ): Promise<boolean> {
    const enabled = process.env.AI_COLLAB_AUTO_APPROVE === 'true' || this.app.config.review_auto_approve;
    if (!enabled || previous.status !== 'changes_requested') return false;
    const { store } = this.app;
    const reviews = await store.reviews.ofItem(item.id);
    // The round: reviews of the versions after the newest one a reviewer's approval carried (one
    // that a request for changes of the same version outweighed, or a stale one, ends nothing).
    const requested = new Set(
      reviews.filter((r) => r.verdict === 'request_changes').map((r) => r.work_item_version),
    );
    const approved = Math.max(
      0,
      ...reviews
        .filter((r) => r.verdict === 'approve' && !Number(r.automatic) && !requested.has(r.work_item_version))
        .map((r) => r.work_item_version),
    );
    const round = new Set(reviews.filter((r) => r.work_item_version > approved).map((r) => r.id));
    const asked = (await store.reviews.suggestionsOf(item.id)).filter((s) => round.has(s.review_id));
    const itemized = reviews
      .filter((r) => round.has(r.id) && r.verdict === 'request_changes')
      .every((r) => asked.some((s) => s.review_id === r.id));
    if (!itemized || asked.some((s) => s.severity === 'critical' || s.severity === 'major')) return false;
    const lines = changedLines(previous.content, item.content);
    if (lines === 0 || lines > this.app.config.review_auto_approve_max_lines) return false;
    const open = asked.filter((s) => s.status === 'pending').length;
    const now = this.app.now();
    const summary = `Automatic approval: the changes asked for were ${asked.length} suggestion(s), all minor or info (${open} still open); ${lines} line(s) changed (threshold ${this.app.config.review_auto_approve_max_lines}).`;
    await saveReview(this.app.store, {
      id: reviewId,
      work_item_id: item.id,
      work_item_version: item.version,
      reviewer_id: null,
      reviewer_name: 'auto-approval',
      verdict: 'approve',
      summary,
      automatic: 1,
      created_at: now,
      updated_at: now,
    });
    await this.app.store.workItems.update({ ...item, status: 'approved', updated_at: now });
    await this.recordApprovedHead(item);
    await this.event(
      item.project_id,
      item.id,
      'auto_approved',
      { id: null, name: 'auto-approval' },
      'system',
      {
        version: item.version,
        summary,
      },
    );
    return true;
  }

  /**
   * Notes, as `item` is approved, the commit its submitter has checked out (read from its git folder
   * on this machine; null where that is not known): what the landing gate lands (land-one.ts).
   */
  protected async recordApprovedHead(item: WorkItemRow): Promise<void> {
    const { store } = this.app;
    const submitter = item.submitted_by ? await store.sessions.get(item.submitted_by) : undefined;
    let head: string | null = null;
    if (submitter && submitter.host === this.app.host) {
      const place = locateFolder(submitter.worktree);
      if (place.kind === 'git') head = readRef(place.gitDir, place.commonDir, 'HEAD');
    }
    await store.workItems.setApprovedHead(item.id, head);
  }

  /** Reviewers of a project hear of new work: its watchers, and the other live sessions in its repo. */
  protected async notifyReviewers(project: ProjectRow, item: WorkItemRow, actor: Actor): Promise<void> {
    const live =
      project.kind === 'named' ? [] : (await this.sessions.liveInProject(project.id)).map((s) => s.id);
    const recipients = [...(await this.app.store.workEvents.watchers(project.id)), ...live].filter(
      (id) => id !== actor.id,
    );
    await this.notifications.notify(recipients, {
      type: 'work_submitted',
      subject: `work:${item.id}`,
      payload: {
        work_item_id: item.id,
        title: item.title,
        work_type: item.type,
        version: item.version,
        from: actor.name,
        project: project.id,
      },
      project: project.id,
    });
  }
}
