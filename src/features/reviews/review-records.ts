import type { ReviewRow, SuggestionRow } from '../../store/reviews-store.js';
import type { Store } from '../../store/store.js';

/** Stores a review and makes its summary searchable. False when it was there already (same id). */
export function saveReview(store: Store, row: ReviewRow): boolean {
  const inserted = store.reviews.insert(row);
  if (inserted) store.workItems.indexText(row.work_item_id, 'review', row.summary, row.summary);
  return inserted;
}

/** Stores a suggestion and makes it searchable. False when it was there already (same id). */
export function saveSuggestion(store: Store, row: SuggestionRow): boolean {
  const inserted = store.reviews.addSuggestion(row);
  if (inserted)
    store.workItems.indexText(
      row.work_item_id,
      'suggestion',
      row.title,
      `${row.explanation}\n${row.suggested_content ?? ''}`,
    );
  return inserted;
}
