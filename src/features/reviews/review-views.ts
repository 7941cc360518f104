import { iso } from '../../core/time.js';
import type { WorkStatus } from '../../core/work-status.js';
import type { SuggestionRow } from '../../store/reviews-store.js';
import type { WorkEventRow } from '../../store/work-events-store.js';
import type { WorkItemRow } from '../../store/work-items-store.js';

/** How work items, suggestions and history events look in tool results (the field names of the spec's data models). */

export type ItemView = ReturnType<typeof itemView>;
export type SuggestionView = ReturnType<typeof suggestionView>;

/**
 * A listed item's content at most (its start): a listing of many items (awaiting review, a
 * project's context, a search) stays bounded; the whole content is in `get_work_detail`.
 */
export const LISTED_CONTENT_CHARS = 2_000;
/**
 * Characters of events' contents one page of history or of the conversation carries at most (an
 * event holds a whole version's content): past them the page ends early (at least one event).
 */
export const EVENT_PAGE_CHARS = 1_000_000;

/** The first events of `rows` (in their order) whose contents fit in `EVENT_PAGE_CHARS`, one at least. */
export function withinPage<T extends { content: string }>(rows: T[]): T[] {
  let chars = 0;
  const page: T[] = [];
  for (const row of rows) {
    if (page.length > 0 && chars + row.content.length > EVENT_PAGE_CHARS) break;
    page.push(row);
    chars += row.content.length;
  }
  return page;
}

/** Items one listing carries at most; `more` counts the others. */
export const LISTED_ITEMS = 200;

/** An item as a listing shows it: its content cut to `LISTED_CONTENT_CHARS`, `content_chars` saying how long it is. */
export function listedItemView(i: WorkItemRow) {
  const view = itemView(i);
  return i.content.length > LISTED_CONTENT_CHARS
    ? { ...view, content: i.content.slice(0, LISTED_CONTENT_CHARS), content_chars: i.content.length }
    : view;
}

export function itemView(i: WorkItemRow) {
  return {
    id: i.id,
    projectId: i.project_id,
    type: i.type,
    phase: i.phase,
    title: i.title,
    description: i.description,
    content: i.content,
    metadata: JSON.parse(i.metadata) as Record<string, unknown>,
    status: i.status as WorkStatus,
    version: i.version,
    submittedBy: i.submitted_by_name,
    submittedById: i.submitted_by,
    submittedAt: iso(i.created_at),
    updatedAt: iso(i.updated_at),
  };
}

export function suggestionView(s: SuggestionRow) {
  return {
    id: s.id,
    reviewId: s.review_id,
    type: s.type,
    severity: s.severity,
    title: s.title,
    explanation: s.explanation,
    location: s.location ? (JSON.parse(s.location) as Record<string, unknown>) : null,
    currentContent: s.current_content,
    suggestedContent: s.suggested_content,
    status: s.status,
    resolution:
      s.status === 'pending'
        ? null
        : {
            action: s.status,
            comment: s.resolution_comment,
            by: s.resolved_by_name,
            resolvedAt: iso(s.resolved_at),
          },
  };
}

/** One event of a work item's history, as the tools show it. */
export function eventView(e: WorkEventRow) {
  return {
    seq: e.seq,
    kind: e.kind,
    work_item_id: e.work_item_id,
    actor: e.actor_name,
    actor_id: e.actor_id,
    role: e.role,
    content: JSON.parse(e.content) as Record<string, unknown>,
    at: iso(e.created_at),
  };
}
