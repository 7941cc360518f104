import { CollabError, invalidInput } from '../../core/errors.js';
import { shown } from '../../core/fence.js';
import { newId } from '../../core/ids.js';
import { assertCan, nextStatus, type Verdict } from '../../core/work-status.js';
import type { ResponseRow, ReviewRow, SuggestionRow, SuggestionStatus } from '../../store/reviews-store.js';
import type { Actor } from './review-projects.js';
import { type SuggestionInput, saveReview, saveSuggestion, suggestionRow } from './review-records.js';
import { LISTED_ITEMS, listedItemView, suggestionView } from './review-views.js';
import { WorkItemsService } from './work-items-service.js';

/**
 * The AI worker / AI reviewer workflow, over the same database and sessions as everything else.
 * In layers: the read side (`ReviewQueries`), work items (`WorkItemsService`: submit, open,
 * update) and, here, reviews (review, suggest, respond, resolve, the reviewer's queue).
 */
export class ReviewService extends WorkItemsService {
  async submitReview(
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
    // The review's id and its suggestions' are made before the write: run again (its group rolled
    // back, store/write-groups.ts), the write keeps the ids a read between the group's writes saw
    // (the worker's, who answers the review and resolves its suggestions by them).
    const reviewId = `review_${newId().slice(0, 8)}`;
    const suggestionIds = (input.suggestions ?? []).map(() => `sugg_${newId().slice(0, 8)}`);
    const result = await store.write(async () => {
      const item = await this.item(input.workItemId);
      const settings = this.projects.settings(await this.projects.project(item.project_id));
      if (item.submitted_by === actor.id && input.verdict === 'approve' && !settings.allow_self_review) {
        throw new CollabError(
          'NOT_ALLOWED',
          `Session "${actor.name}" submitted work item ${item.id}, so it cannot approve it.`,
          "Another session reviews it (get_pending_reviews lists it for them). Self-review is for single-session use, and allowing it is the person's call (review_allow_self_review in config.json).",
        );
      }
      assertCan(item.status, 'review', item.id);
      // Named, or the one the reviewer last read whole: an item updated since is not approved unseen.
      const version = input.version ?? (await store.workItems.readVersion(item.id, actor.id)) ?? item.version;
      if (version > item.version || version < 1)
        throw invalidInput(`version: work item ${item.id} has versions 1 to ${item.version}.`);
      const stale = version < item.version;
      const now = this.app.now();
      const review: ReviewRow = {
        id: reviewId,
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
      await saveReview(store, review);
      const suggestions: SuggestionRow[] = [];
      for (const [i, s] of (input.suggestions ?? []).entries())
        suggestions.push(await this.insertSuggestion(suggestionIds[i]!, review, s, now));
      await store.workEvents.watch(item.project_id, actor.id);
      await this.event(item.project_id, item.id, 'reviewed', actor, 'reviewer', {
        review_id: review.id,
        verdict: input.verdict,
        summary: input.summary,
        version,
        stale,
        suggestions: suggestions.map((s) => suggestionView(s)),
      });
      let status = item.status;
      if (!stale) {
        const verdicts = (await store.reviews.ofItem(item.id))
          .filter((r) => r.work_item_version === item.version)
          .map((r) => r.verdict);
        status = nextStatus(item.status, 'review', verdicts);
        if (status !== item.status) await store.workItems.update({ ...item, status, updated_at: now });
        if (status === 'approved' && item.status !== 'approved') await this.recordApprovedHead(item);
      }
      if (item.submitted_by && item.submitted_by !== actor.id) {
        await this.notifications.notify([item.submitted_by], {
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
      return { review, suggestions, stale, status, current: item.version };
    });
    return {
      review_id: result.review.id,
      work_item_id: input.workItemId,
      verdict: input.verdict,
      version: result.review.work_item_version,
      current_version: result.current,
      stale: result.stale,
      status: result.status,
      suggestions: result.suggestions.map((s) => suggestionView(s)),
    };
  }

  addSuggestion(actor: Actor, reviewId: string, input: SuggestionInput) {
    const { store } = this.app;
    // Made before the write, as a review's suggestions' are (submitReview).
    const id = `sugg_${newId().slice(0, 8)}`;
    return store.write(async () => {
      const review = await store.reviews.get(reviewId);
      if (!review) throw new CollabError('REVIEW_NOT_FOUND', `No review with id ${shown(reviewId)}.`);
      const item = await this.item(review.work_item_id);
      const s = await this.insertSuggestion(id, review, input, this.app.now());
      await this.event(item.project_id, item.id, 'suggestion_added', actor, 'reviewer', {
        review_id: reviewId,
        suggestion: suggestionView(s),
      });
      return suggestionView(s);
    });
  }

  private async insertSuggestion(
    id: string,
    review: ReviewRow,
    s: SuggestionInput,
    now: number,
  ): Promise<SuggestionRow> {
    const row = suggestionRow(id, review, s, now);
    await saveSuggestion(this.app.store, row);
    return row;
  }

  respond(
    actor: Actor,
    input: { workItemId: string; reviewId: string; response: string; action: ResponseRow['action'] },
  ) {
    const { store } = this.app;
    // Made before the write, as a review's is (submitReview).
    const id = `resp_${newId().slice(0, 8)}`;
    return store.write(async () => {
      const item = await this.item(input.workItemId);
      const review = await store.reviews.get(input.reviewId);
      if (!review || review.work_item_id !== item.id)
        throw new CollabError('REVIEW_NOT_FOUND', `No review "${input.reviewId}" of work item ${item.id}.`);
      const row: ResponseRow = {
        id,
        review_id: review.id,
        work_item_id: item.id,
        responder_id: actor.id,
        responder_name: actor.name,
        response: input.response,
        action: input.action,
        created_at: this.app.now(),
      };
      await store.reviews.addResponse(row);
      await this.event(item.project_id, item.id, 'responded', actor, 'worker', {
        review_id: review.id,
        action: input.action,
        response: input.response,
      });
      if (review.reviewer_id && review.reviewer_id !== actor.id) {
        await this.notifications.notify([review.reviewer_id], {
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
    return store.write(async () => {
      const s = await store.reviews.suggestion(input.suggestionId);
      if (!s)
        throw new CollabError('SUGGESTION_NOT_FOUND', `No suggestion with id ${shown(input.suggestionId)}.`);
      const item = await this.item(s.work_item_id);
      await store.reviews.resolve(s.id, input.resolution, input.comment ?? null, actor.name, this.app.now());
      await this.event(item.project_id, item.id, 'suggestion_resolved', actor, 'worker', {
        suggestion_id: s.id,
        title: s.title,
        resolution: input.resolution,
        comment: input.comment ?? null,
      });
      return suggestionView((await store.reviews.suggestion(s.id))!);
    });
  }

  async pendingReviews(
    actor: Actor,
    f: { projectId?: string | undefined; type?: string | undefined; phase?: string | undefined },
  ) {
    const { store } = this.app;
    if (f.projectId) {
      await this.projects.project(f.projectId);
      await store.write(() => store.workEvents.watch(f.projectId!, actor.id));
    }
    const items = await store.workItems.filter({
      projectId: f.projectId ?? null,
      type: f.type ?? null,
      phase: f.phase ?? null,
      statuses: ['pending_review', 'in_review'],
      excludeSubmitter: actor.id,
    });
    return {
      work_items: items.slice(0, LISTED_ITEMS).map((i) => listedItemView(i)),
      ...(items.length > LISTED_ITEMS ? { more: items.length - LISTED_ITEMS } : {}),
    };
  }
}
