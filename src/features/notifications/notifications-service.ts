import type { AppContext } from '../../app/context.js';
import { newOrderedId } from '../../core/ids.js';
import {
  coalescePayload,
  type Delivered,
  NOTIFICATION_TTL_MS,
  type Notice,
  type NotificationState,
  type NotificationType,
} from '../../core/notifications.js';
import { decodeCursor, type Page, pageOf } from '../../core/page.js';
import { iso } from '../../core/time.js';
import { recordedCall } from '../../store/call-records-store.js';
import type { NotificationRow } from '../../store/notifications-store.js';

/** A notification as a session receives it (the piggyback, notifications_list). */
export type NotificationView = Delivered;

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
  async notify(recipients: Iterable<string>, notice: Notice & { project: string | null }): Promise<void> {
    const { type, subject, payload, project: projectId } = notice;
    const { store } = this.app;
    const now = this.app.now();
    // Nested in an emitter's transaction, this joins it.
    await store.write(async () => {
      for (const sessionId of new Set(recipients)) {
        const pending = await store.notifications.pending(sessionId, type, subject);
        if (pending) {
          const merged = coalescePayload(JSON.parse(pending.payload) as Record<string, unknown>, {
            ...payload,
          });
          await store.notifications.coalesce(pending.id, JSON.stringify(merged), now);
        } else {
          await store.notifications.insert({
            id: newOrderedId(now),
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

  /** Whether the session was told this (a notification of this type and subject it has seen). */
  wasDelivered(sessionId: string, type: NotificationType, subject: string): Promise<boolean> {
    return this.app.store.notifications.wasSeen(sessionId, type, subject);
  }

  /** The subjects of the session's notifications of `type` delivered before (seen). */
  seenSubjects(sessionId: string, type: NotificationType): Promise<string[]> {
    return this.app.store.notifications.seenSubjects(sessionId, type);
  }

  /**
   * Marks what a session was told another way (a tool result that carried it) as seen: it is not
   * delivered a second time. Inside the caller's transaction.
   */
  async markSeen(sessionId: string, type: NotificationType, subject: string): Promise<void> {
    await this.app.store.notifications.markSubjectSeen(sessionId, type, subject, this.app.now());
  }

  /**
   * The session's pending notifications, now marked seen (the piggyback): the oldest `limit` of
   * them, `more` saying others wait for the next call. Runs on every tool call:
   * a read by index first (or `pending`, when the caller has just read whether any is), and a
   * write only when there is something to deliver, or when the call is sent again: what it
   * delivered the first time (seen by now) is recorded by that write.
   */
  async deliver(
    sessionId: string,
    { pending, limit = null }: { pending?: boolean; limit?: number | null } = {},
  ): Promise<{ delivered: NotificationView[]; more: boolean }> {
    const { store } = this.app;
    if (!recordedCall()?.again && !(pending ?? (await store.notifications.hasPending(sessionId))))
      return { delivered: [], more: false };
    return store.write(async () => {
      const now = this.app.now();
      // Pending at `now` (`stateAt`): younger than the time a notification is kept.
      const { delivered, full } = await store.notifications.deliverPending(
        sessionId,
        now - NOTIFICATION_TTL_MS,
        now,
        limit,
      );
      return {
        delivered: delivered.map((r) => this.view(r)),
        more: full && (await store.notifications.hasPending(sessionId)),
      };
    });
  }

  async list(
    sessionId: string,
    state: NotificationState | 'all',
    type: string | undefined,
    limit: number,
    cursor?: string,
  ): Promise<Page<NotificationView>> {
    const { store } = this.app;
    const after = cursor === undefined ? null : decodeCursor(cursor, 'number');
    await store.write(async () =>
      store.notifications.expireFor(sessionId, this.app.now() - NOTIFICATION_TTL_MS),
    );
    const rows = await store.notifications.list(
      sessionId,
      state,
      type ?? null,
      limit + 1,
      after ? { at: after.at, seq: after.id as number } : null,
    );
    const page = pageOf(rows, limit, (r) => ({ at: r.created_at, id: r.seq }));
    return { items: page.items.map((r) => this.view(r)), next_cursor: page.next_cursor };
  }

  /** A stored notification as delivered: rows are written by `notify` only, from typed notices. */
  private view(r: NotificationRow): NotificationView {
    return {
      ...(JSON.parse(r.payload) as object),
      id: r.id,
      type: r.type,
      state: r.state,
      count: r.count,
      created_at: iso(r.created_at),
      updated_at: iso(r.updated_at),
    } as NotificationView;
  }
}
