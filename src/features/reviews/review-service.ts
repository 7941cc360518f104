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
  type Verdict,
  type WorkType,
} from '../../core/work-status.js';
import type { ProjectRow } from '../../store/projects-store.js';
import type { ResponseRow, ReviewRow, SuggestionRow, SuggestionStatus } from '../../store/reviews-store.js';
import type { WorkItemRow } from '../../store/work-items-store.js';
import type { NotificationsService } from '../notifications/notifications-service.js';
import type { SessionsService } from '../sessions/sessions-service.js';
import type { Actor } from './review-projects.js';
import { ReviewQueries } from './review-queries.js';
import { type SuggestionInput, saveReview, saveSuggestion, suggestionRow } from './review-records.js';
import { itemView, suggestionView } from './review-views.js';

/**
 * The AI worker / AI reviewer workflow, over the same database and sessions as everything else:
 * the write use cases (submit, open, update, review, suggest, respond, resolve), on top of the
 * read side (`ReviewQueries`).
 */
export class ReviewService extends ReviewQueries {
  constructor(
    app: AppContext,
    private readonly sessions: SessionsService,
    private readonly notifications: NotificationsService,
  ) {
    super(app);
  }

  submitWork(
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
    const project = this.projects.projectOf(actor, input.projectId);
    if (project.status === 'archived')
      throw new CollabError(
        'INVALID_STATE',
        `Project ${project.id} is archived.`,
        'Reopen it with update_project {status: "active"}.',
      );
    const now = this.app.now();
    const item: WorkItemRow = {
      id: `work_${newId().slice(0, 8)}`,
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
    store.write(() => {
      store.workItems.insert(item);
      store.workItems.addRevision({
        work_item_id: item.id,
        version: 1,
        title: item.title,
        content: item.content,
        change_description: 'submitted',
        created_by: actor.id,
        created_by_name: actor.name,
        created_at: now,
      });
      this.event(project.id, item.id, 'submitted', actor, 'worker', {
        title: item.title,
        type: item.type,
        phase: item.phase,
        version: 1,
        content: item.content,
        draft: input.draft === true,
      });
      if (!input.draft) this.notifyReviewers(project, item, actor);
    });
    return itemView(item);
  }

  /** Opens (if it awaits review) and describes an item; with history, its revisions and a diff. */
  workDetail(
    actor: Actor,
    id: string,
    includeHistory: boolean,
    diff?: { from?: number | undefined; to?: number | undefined },
  ) {
    const { store } = this.app;
    const item = store.write(() => {
      const current = this.item(id);
      if (current.status === 'pending_review' && current.submitted_by !== actor.id) {
        const opened = { ...current, status: nextStatus(current.status, 'open'), updated_at: this.app.now() };
        store.workItems.update(opened);
        store.workEvents.watch(current.project_id, actor.id);
        this.event(current.project_id, id, 'opened', actor, 'reviewer', { version: current.version });
        return opened;
      }
      return current;
    });
    const revisions = includeHistory ? store.workItems.revisions(id) : [];
    let diffText: string | null = null;
    if (includeHistory && revisions.length > 1) {
      const from = diff?.from ?? item.version - 1;
      const to = diff?.to ?? item.version;
      const a = store.workItems.revision(id, from);
      const b = store.workItems.revision(id, to);
      if (!a || !b) throw invalidInput(`diffFrom/diffTo: versions go from 1 to ${item.version}.`);
      diffText =
        unifiedDiff(a.content, b.content, `v${from}`, `v${to}`) ??
        `diff too large: v${from} and v${to} differ by more than ${MAX_DIFF_EDITS} added and removed lines; compare the revisions' content instead.`;
    }
    return {
      ...itemView(item),
      ...this.feedback(id),
      ...(includeHistory
        ? {
            revisions: revisions.map((r) => ({
              version: r.version,
              title: r.title,
              content: r.content,
              change_description: r.change_description,
              by: r.created_by_name,
              at: iso(r.created_at),
            })),
            diff: diffText,
          }
        : {}),
    };
  }

  updateWork(
    actor: Actor,
    input: {
      workItemId: string;
      content?: string | undefined;
      changeDescription: string;
      title?: string | undefined;
      phase?: Phase | undefined;
      status?: 'merged' | undefined;
    },
  ) {
    const { store } = this.app;
    if (
      input.content === undefined &&
      input.phase === undefined &&
      input.status === undefined &&
      input.title === undefined
    ) {
      throw invalidInput('give content (a new version), phase, or status "merged".');
    }
    let autoApproved = false;
    const updated = store.write(() => {
      let item = this.item(input.workItemId);
      const project = this.projects.project(item.project_id);
      const settings = this.projects.settings(project);
      const now = this.app.now();
      const approvedVersions = () =>
        store.reviews
          .ofItem(item.id)
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
        store.workItems.update(item);
        store.workItems.addRevision({
          work_item_id: item.id,
          version: item.version,
          title: item.title,
          content: item.content,
          change_description: input.changeDescription,
          created_by: actor.id,
          created_by_name: actor.name,
          created_at: now,
        });
        this.event(item.project_id, item.id, 'updated', actor, 'worker', {
          version: item.version,
          change_description: input.changeDescription,
          content: item.content,
        });
        autoApproved = this.maybeAutoApprove(previous, item);
        if (autoApproved) item = this.item(item.id);
        else this.notifyReviewers(project, item, actor);
      }
      if (input.phase !== undefined && input.phase !== item.phase) {
        if (phaseIndex(input.phase) > phaseIndex(item.phase)) {
          assertGate(item, approvedVersions(), settings.require_approval, `move to phase ${input.phase}`);
        }
        const from = item.phase;
        item = { ...item, phase: input.phase, updated_at: now };
        store.workItems.update(item);
        this.event(item.project_id, item.id, 'phase_changed', actor, 'worker', { from, to: input.phase });
      }
      if (input.status === 'merged') {
        assertCan(item.status, 'merge', item.id);
        assertGate(item, approvedVersions(), settings.require_approval, 'merge');
        item = { ...item, status: 'merged', updated_at: now };
        store.workItems.update(item);
        this.event(item.project_id, item.id, 'merged', actor, 'worker', {
          version: item.version,
          change_description: input.changeDescription,
        });
      }
      return item;
    });
    return { ...itemView(updated), auto_approved: autoApproved };
  }

  /**
   * Automatic approval (AI_COLLAB_AUTO_APPROVE=true, or review_auto_approve in config): a new
   * version of an item whose changes were requested, when its open suggestions are all minor or
   * info and the change is small. Recorded as a review by "auto-approval", never silently.
   */
  private maybeAutoApprove(previous: WorkItemRow, item: WorkItemRow): boolean {
    const enabled = process.env.AI_COLLAB_AUTO_APPROVE === 'true' || this.app.config.review_auto_approve;
    if (!enabled || previous.status !== 'changes_requested') return false;
    const open = this.app.store.reviews.suggestionsOf(item.id).filter((s) => s.status === 'pending');
    if (open.some((s) => s.severity === 'critical' || s.severity === 'major')) return false;
    const lines = changedLines(previous.content, item.content);
    if (lines > this.app.config.review_auto_approve_max_lines) return false;
    const now = this.app.now();
    const summary = `Automatic approval: ${open.length} open suggestion(s), all minor or info; ${lines} line(s) changed (threshold ${this.app.config.review_auto_approve_max_lines}).`;
    saveReview(this.app.store, {
      id: `review_${newId().slice(0, 8)}`,
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
    this.app.store.workItems.update({ ...item, status: 'approved', updated_at: now });
    this.event(item.project_id, item.id, 'auto_approved', { id: null, name: 'auto-approval' }, 'system', {
      version: item.version,
      summary,
    });
    return true;
  }

  submitReview(
    actor: Actor,
    input: {
      workItemId: string;
      verdict: Verdict;
      summary: string;
      suggestions?: SuggestionInput[] | undefined;
      version?: number | undefined;
    },
  ) {
    const { store } = this.app;
    const result = store.write(() => {
      const item = this.item(input.workItemId);
      const settings = this.projects.settings(this.projects.project(item.project_id));
      if (item.submitted_by === actor.id && input.verdict === 'approve' && !settings.allow_self_review) {
        throw new CollabError(
          'NOT_ALLOWED',
          `Session "${actor.name}" submitted work item ${item.id}, so it cannot approve it.`,
          'Another session reviews it; for single-session use, allow self-review in update_project settings.',
        );
      }
      assertCan(item.status, 'review', item.id);
      const version = input.version ?? item.version;
      if (version > item.version || version < 1)
        throw invalidInput(`version: work item ${item.id} has versions 1 to ${item.version}.`);
      const stale = version < item.version;
      const now = this.app.now();
      const review: ReviewRow = {
        id: `review_${newId().slice(0, 8)}`,
        work_item_id: item.id,
        work_item_version: version,
        reviewer_id: actor.id,
        reviewer_name: actor.name,
        verdict: input.verdict,
        summary: input.summary,
        automatic: 0,
        created_at: now,
        updated_at: now,
      };
      saveReview(store, review);
      const suggestions = (input.suggestions ?? []).map((s) => this.insertSuggestion(review, s, now));
      store.workEvents.watch(item.project_id, actor.id);
      this.event(item.project_id, item.id, 'reviewed', actor, 'reviewer', {
        review_id: review.id,
        verdict: input.verdict,
        summary: input.summary,
        version,
        stale,
        suggestions: suggestions.map((s) => suggestionView(s)),
      });
      let status = item.status;
      if (!stale) {
        const verdicts = store.reviews
          .ofItem(item.id)
          .filter((r) => r.work_item_version === item.version)
          .map((r) => r.verdict);
        status = nextStatus(item.status, 'review', verdicts);
        if (status !== item.status) store.workItems.update({ ...item, status, updated_at: now });
      }
      if (item.submitted_by && item.submitted_by !== actor.id) {
        this.notifications.notify([item.submitted_by], {
          type: 'review_submitted',
          subject: `review:${item.id}`,
          payload: {
            work_item_id: item.id,
            title: item.title,
            reviewer: actor.name,
            verdict: input.verdict,
            status,
            suggestions: suggestions.length,
          },
          project: item.project_id,
        });
      }
      return { review, suggestions, stale, status };
    });
    return {
      review_id: result.review.id,
      work_item_id: input.workItemId,
      verdict: input.verdict,
      version: result.review.work_item_version,
      stale: result.stale,
      status: result.status,
      suggestions: result.suggestions.map((s) => suggestionView(s)),
    };
  }

  addSuggestion(actor: Actor, reviewId: string, input: SuggestionInput) {
    const { store } = this.app;
    return store.write(() => {
      const review = store.reviews.get(reviewId);
      if (!review) throw new CollabError('REVIEW_NOT_FOUND', `No review with id "${reviewId}".`);
      const item = this.item(review.work_item_id);
      const s = this.insertSuggestion(review, input, this.app.now());
      this.event(item.project_id, item.id, 'suggestion_added', actor, 'reviewer', {
        review_id: reviewId,
        suggestion: suggestionView(s),
      });
      return suggestionView(s);
    });
  }

  private insertSuggestion(review: ReviewRow, s: SuggestionInput, now: number): SuggestionRow {
    const row = suggestionRow(`sugg_${newId().slice(0, 8)}`, review, s, now);
    saveSuggestion(this.app.store, row);
    return row;
  }

  respond(
    actor: Actor,
    input: { workItemId: string; reviewId: string; response: string; action: ResponseRow['action'] },
  ) {
    const { store } = this.app;
    return store.write(() => {
      const item = this.item(input.workItemId);
      const review = store.reviews.get(input.reviewId);
      if (!review || review.work_item_id !== item.id)
        throw new CollabError('REVIEW_NOT_FOUND', `No review "${input.reviewId}" of work item ${item.id}.`);
      const row: ResponseRow = {
        id: `resp_${newId().slice(0, 8)}`,
        review_id: review.id,
        work_item_id: item.id,
        responder_id: actor.id,
        responder_name: actor.name,
        response: input.response,
        action: input.action,
        created_at: this.app.now(),
      };
      store.reviews.addResponse(row);
      this.event(item.project_id, item.id, 'responded', actor, 'worker', {
        review_id: review.id,
        action: input.action,
        response: input.response,
      });
      if (review.reviewer_id && review.reviewer_id !== actor.id) {
        this.notifications.notify([review.reviewer_id], {
          type: 'review_response',
          subject: `response:${review.id}`,
          payload: {
            work_item_id: item.id,
            title: item.title,
            from: actor.name,
            action: input.action,
            preview: input.response.slice(0, 160),
          },
          project: item.project_id,
        });
      }
      return { response_id: row.id, review_id: review.id, work_item_id: item.id, action: input.action };
    });
  }

  resolveSuggestion(
    actor: Actor,
    input: {
      suggestionId: string;
      resolution: Exclude<SuggestionStatus, 'pending'>;
      comment?: string | undefined;
    },
  ) {
    const { store } = this.app;
    return store.write(() => {
      const s = store.reviews.suggestion(input.suggestionId);
      if (!s) throw new CollabError('SUGGESTION_NOT_FOUND', `No suggestion with id "${input.suggestionId}".`);
      const item = this.item(s.work_item_id);
      store.reviews.resolve(s.id, input.resolution, input.comment ?? null, actor.name, this.app.now());
      this.event(item.project_id, item.id, 'suggestion_resolved', actor, 'worker', {
        suggestion_id: s.id,
        title: s.title,
        resolution: input.resolution,
        comment: input.comment ?? null,
      });
      return suggestionView(store.reviews.suggestion(s.id)!);
    });
  }

  pendingReviews(
    actor: Actor,
    f: { projectId?: string | undefined; type?: string | undefined; phase?: string | undefined },
  ) {
    const { store } = this.app;
    if (f.projectId) {
      this.projects.project(f.projectId);
      store.write(() => store.workEvents.watch(f.projectId!, actor.id));
    }
    return store.workItems
      .filter({
        projectId: f.projectId ?? null,
        type: f.type ?? null,
        phase: f.phase ?? null,
        statuses: ['pending_review', 'in_review'],
        excludeSubmitter: actor.id,
      })
      .map((i) => itemView(i));
  }

  /** Reviewers of a project hear of new work: its watchers, and the other live sessions in its repo. */
  private notifyReviewers(project: ProjectRow, item: WorkItemRow, actor: Actor): void {
    const live = project.kind === 'named' ? [] : this.sessions.liveInProject(project.id).map((s) => s.id);
    const recipients = [...this.app.store.workEvents.watchers(project.id), ...live].filter(
      (id) => id !== actor.id,
    );
    this.notifications.notify(recipients, {
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
