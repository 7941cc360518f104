import type { ReviewRow, SuggestionRow, SuggestionStatus } from '../../store/reviews-store.js';
import type { Store } from '../../store/store.js';

/** Stores a review and makes its summary searchable. False when it was there already (same id). */
export async function saveReview(store: Store, row: ReviewRow): Promise<boolean> {
  const inserted = await store.reviews.insert(row);
  if (inserted) await store.workItems.indexText(row.work_item_id, 'review', row.summary, row.summary);
  return inserted;
}

/** Stores a suggestion and makes it searchable. False when it was there already (same id). */
export async function saveSuggestion(store: Store, row: SuggestionRow): Promise<boolean> {
  const inserted = await store.reviews.addSuggestion(row);
  if (inserted)
    await store.workItems.indexText(
      row.work_item_id,
      'suggestion',
      row.title,
      `${row.explanation}\n${row.suggested_content ?? ''}`,
    );
  return inserted;
}

/** A suggestion as the spec's data model gives it. */
export interface SuggestionInput {
  type: 'improvement' | 'bug' | 'security' | 'performance' | 'style' | 'clarity';
  severity: 'critical' | 'major' | 'minor' | 'info';
  title: string;
  explanation: string;
  location?:
    | { startLine?: number | undefined; endLine?: number | undefined; section?: string | undefined }
    | undefined;
  currentContent?: string | undefined;
  suggestedContent?: string | undefined;
}

/** The stored row of a suggestion of `review` (pending unless a resolution is given). */
export function suggestionRow(
  id: string,
  review: Pick<ReviewRow, 'id' | 'work_item_id'>,
  s: SuggestionInput,
  at: number,
  resolution?: { status: SuggestionStatus; comment: string | null; by: string | null; at: number | null },
): SuggestionRow {
  const resolved = resolution && resolution.status !== 'pending' ? resolution : null;
  return {
    id,
    review_id: review.id,
    work_item_id: review.work_item_id,
    type: s.type,
    severity: s.severity,
    title: s.title,
    explanation: s.explanation,
    location: s.location ? JSON.stringify(s.location) : null,
    current_content: s.currentContent ?? null,
    suggested_content: s.suggestedContent ?? null,
    status: resolved?.status ?? 'pending',
    resolution_comment: resolved?.comment ?? null,
    resolved_by_name: resolved?.by ?? null,
    resolved_at: resolved?.at ?? null,
    created_at: at,
  };
}
