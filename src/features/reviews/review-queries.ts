import type { AppContext } from '../../app/context.js';
import { type ConversationFormat, renderConversation } from '../../core/conversation.js';
import { CollabError, invalidInput } from '../../core/errors.js';
import { shown } from '../../core/fence.js';
import { iso } from '../../core/time.js';
import type { EventRole } from '../../store/work-events-store.js';
import type { WorkItemRow } from '../../store/work-items-store.js';
import { ReviewProjects } from './review-projects.js';
import { eventView, LISTED_ITEMS, listedItemView, suggestionView, withinPage } from './review-views.js';

/** Events that are not part of the worker–reviewer dialogue. */
const NOT_DIALOGUE = ['project_created', 'project_updated'];

/**
 * The read side of reviews: an item, its feedback, a project's context, search, the history and
 * the conversation. `ReviewService` (the write use cases) builds on it.
 */
export class ReviewQueries {
  readonly projects: ReviewProjects;

  constructor(protected readonly app: AppContext) {
    this.projects = new ReviewProjects(app, (projectId, kind, actor, content) =>
      this.event(projectId, null, kind, actor, 'system', content),
    );
  }

  async item(id: string): Promise<WorkItemRow> {
    const item = await this.app.store.workItems.get(id);
    if (!item) throw new CollabError('WORK_NOT_FOUND', `No work item with id ${shown(id)}.`);
    return item;
  }

  /** Reviews of an item with their suggestions and the worker's responses. */
  async feedback(workItemId: string) {
    const { store } = this.app;
    const item = await this.item(workItemId);
    const suggestions = await store.reviews.suggestionsOf(workItemId);
    const responses = await store.reviews.responsesOf(workItemId);
    const reviews = await store.reviews.ofItem(workItemId);
    return {
      reviews: reviews.map((r) => ({
        id: r.id,
        version: r.work_item_version,
        stale: r.work_item_version < item.version,
        reviewer: r.reviewer_name,
        reviewer_id: r.reviewer_id,
        verdict: r.verdict,
        summary: r.summary,
        automatic: r.automatic === 1,
        created_at: iso(r.created_at),
        suggestions: suggestions.filter((s) => s.review_id === r.id).map((s) => suggestionView(s)),
        responses: responses
          .filter((x) => x.review_id === r.id)
          .map((x) => ({
            id: x.id,
            by: x.responder_name,
            action: x.action,
            response: x.response,
            created_at: iso(x.created_at),
          })),
      })),
      open_suggestions: suggestions.filter((s) => s.status === 'pending').length,
    };
  }

  async projectContext(projectId: string, includeResolved: boolean) {
    const p = await this.projects.project(projectId);
    const items = (
      await this.app.store.workItems.filter({
        projectId,
        type: null,
        phase: null,
        statuses: null,
        excludeSubmitter: null,
      })
    ).filter((i) => includeResolved || i.status !== 'merged');
    const workItems = [];
    for (const i of items.slice(0, LISTED_ITEMS)) {
      const fb = await this.feedback(i.id);
      const latest = fb.reviews[fb.reviews.length - 1];
      workItems.push({
        ...listedItemView(i),
        open_suggestions: fb.open_suggestions,
        latest_review: latest
          ? { id: latest.id, verdict: latest.verdict, summary: latest.summary, version: latest.version }
          : null,
      });
    }
    return {
      project: await this.projects.projectView(p),
      work_items: workItems,
      ...(items.length > LISTED_ITEMS ? { more: items.length - LISTED_ITEMS } : {}),
    };
  }

  async search(
    query: string,
    f: {
      projectId?: string | undefined;
      type?: string | undefined;
      status?: string | undefined;
      limit: number;
    },
  ) {
    const words = query.match(/[\p{L}\p{N}_]+/gu) ?? [];
    if (words.length === 0) throw invalidInput('query: give at least one word to search for.');
    const rows = await this.app.store.workItems.search(words, {
      projectId: f.projectId ?? null,
      type: f.type ?? null,
      status: f.status ?? null,
      limit: f.limit,
    });
    return rows.map(({ score, matched, ...row }) => ({
      ...listedItemView(row),
      score: -score,
      matched_in: matched.split(','),
    }));
  }

  async history(f: {
    projectId?: string | undefined;
    workItemId?: string | undefined;
    limit: number;
    cursor?: number | undefined;
  }) {
    const rows = await this.app.store.workEvents.page({
      projectId: f.projectId ?? null,
      workItemId: f.workItemId ?? null,
      after: f.cursor ?? 0,
      limit: f.limit + 1,
    });
    const page = withinPage(rows.slice(0, f.limit));
    return {
      events: page.map(eventView),
      next_cursor: rows.length > page.length ? page[page.length - 1]!.seq : null,
    };
  }

  /**
   * The dialogue between worker and reviewer (the newest `limit` events, in order), rendered as
   * `format` says, with each item's title.
   */
  async conversation(f: {
    projectId?: string | undefined;
    workItemId?: string | undefined;
    format: ConversationFormat;
    limit: number;
  }) {
    if (f.projectId) await this.projects.project(f.projectId);
    if (f.workItemId) await this.item(f.workItemId);
    const latest = await this.app.store.workEvents.latest({
      projectId: f.projectId ?? null,
      workItemId: f.workItemId ?? null,
      exclude: NOT_DIALOGUE,
      limit: f.limit,
    });
    // The newest that fit in a page, in order.
    const events = withinPage([...latest].reverse())
      .reverse()
      .map(eventView);
    const titles = new Map<string, string>();
    for (const e of events)
      if (e.work_item_id && !titles.has(e.work_item_id))
        titles.set(e.work_item_id, (await this.item(e.work_item_id)).title);
    return { format: f.format, ...renderConversation(events, titles, f.format) };
  }

  protected event(
    projectId: string,
    workItemId: string | null,
    kind: string,
    actor: { id: string | null; name: string },
    role: EventRole,
    content: unknown,
  ): Promise<void> {
    return this.app.store.workEvents.append({
      project_id: projectId,
      work_item_id: workItemId,
      kind,
      actor_id: actor.id,
      actor_name: actor.name,
      role,
      content: JSON.stringify(content),
      created_at: this.app.now(),
    });
  }
}
