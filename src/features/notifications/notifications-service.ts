import type { AppContext } from '../../app/context.js';
import { newId } from '../../core/ids.js';
import {
  coalescePayload,
  NOTIFICATION_TTL_MS,
  type NotificationState,
  stateAt,
} from '../../core/notifications.js';
import { decodeCursor, type Page, pageOf } from '../../core/page.js';
import { iso } from '../../core/time.js';
import type { NotificationRow } from '../../store/notifications-store.js';

/** Kinds of notification the product emits. */
export type NotificationType =
  | 'message'
  | 'claim_conflict'
  | 'claim_taken_over'
  | 'session_ended'
  | 'contract_updated'
  | 'binding_changed'
  | 'work_submitted'
  | 'review_submitted'
  | 'review_response';

export interface NotificationView {
  id: string;
  type: string;
  state: NotificationState;
  /** How many events this one stands for (repeats of a subject coalesce while pending). */
  count: number;
  created_at: string;
  updated_at: string;
  [field: string]: unknown;
}

/**
 * Notifications per recipient session: emitted by features, delivered by piggyback on every tool
 * response (then seen), listed by `notifications_list`, expired after 7 days.
 */
export class NotificationsService {
  constructor(private readonly app: AppContext) {}

  /**
   * Notifies sessions. A pending notification of the same type and subject absorbs the new one
   * (see core/notifications `coalescePayload`).
   */
  notify(
    recipients: Iterable<string>,
    type: NotificationType,
    subject: string,
    payload: Record<string, unknown>,
    projectId: string | null,
  ): void {
    const { store } = this.app;
    const now = this.app.now();
    // Nested in an emitter's transaction, this is a savepoint of it.
    store.write(() => {
      for (const sessionId of new Set(recipients)) {
        const pending = store.notifications.pending(sessionId, type, subject);
        if (pending) {
          const merged = coalescePayload(JSON.parse(pending.payload) as Record<string, unknown>, payload);
          store.notifications.coalesce(pending.id, JSON.stringify(merged), now);
        } else {
          store.notifications.insert({
            id: newId(),
            session_id: sessionId,
            project_id: projectId,
            type,
            subject,
            payload: JSON.stringify(payload),
            created_at: now,
          });
        }
      }
    });
  }

  /**
   * The session's pending notifications, now marked seen (the piggyback). Runs on every tool call:
   * a read by index first, and a write only when there is something to deliver.
   */
  deliver(sessionId: string): NotificationView[] {
    const { store } = this.app;
    if (!store.notifications.hasPending(sessionId)) return [];
    return store.write(() => {
      const now = this.app.now();
      const rows = store.notifications.pendingFor(sessionId);
      const fresh = rows.filter((r) => stateAt(r.state, r.created_at, now) === 'pending');
      store.notifications.markSeen(
        fresh.map((r) => r.id),
        now,
      );
      store.notifications.markExpired(rows.filter((r) => !fresh.includes(r)).map((r) => r.id));
      return fresh.map((r) => this.view(r));
    });
  }

  list(
    sessionId: string,
    state: NotificationState | 'all',
    type: string | undefined,
    limit: number,
    cursor?: string,
  ): Page<NotificationView> {
    const { store } = this.app;
    const after = cursor === undefined ? null : decodeCursor(cursor, 'number');
    store.write(() => store.notifications.expireFor(sessionId, this.app.now() - NOTIFICATION_TTL_MS));
    const rows = store.notifications.list(
      sessionId,
      state,
      type ?? null,
      limit + 1,
      after ? { at: after.at, seq: after.id as number } : null,
    );
    const page = pageOf(rows, limit, (r) => ({ at: r.created_at, id: r.seq }));
    return { items: page.items.map((r) => this.view(r)), next_cursor: page.next_cursor };
  }

  private view(r: NotificationRow): NotificationView {
    return {
      ...(JSON.parse(r.payload) as Record<string, unknown>),
      id: r.id,
      type: r.type,
      state: r.state,
      count: r.count,
      created_at: iso(r.created_at),
      updated_at: iso(r.updated_at),
    };
  }
}
