import type { AppContext } from '../../app/context.js';
import { CollabError, invalidInput } from '../../core/errors.js';
import { shown } from '../../core/fence.js';
import { newId } from '../../core/ids.js';
import type { SessionState } from '../../core/liveness.js';
import { iso } from '../../core/time.js';
import type { DeliveredVia, MessageRow } from '../../store/messages-store.js';
import type { SessionRow } from '../../store/sessions-store.js';
import type { NotificationsService } from '../notifications/notifications-service.js';
import { stateOf } from '../sessions/liveness.js';
import type { SessionsService } from '../sessions/sessions-service.js';

export interface MessageView {
  id: string;
  from_session_id: string;
  from: string;
  to_session_id: string | null;
  broadcast: boolean;
  reply_to: string | null;
  content: string;
  created_at: string;
  read: boolean;
}

/** A sent message's delivery to one recipient: when it reached its agent, how, and when that agent next acted. */
export interface ReceiptView {
  session_id: string;
  session: string;
  delivered_at: string | null;
  delivered_via: DeliveredVia | null;
  acted_at: string | null;
}

/** A message the caller sent, with its receipts (a broadcast: the sessions it reached so far). */
export interface SentView extends Omit<MessageView, 'read'> {
  receipts: ReceiptView[];
}

/**
 * What `list` reads of an inbox: unread only or all, at most `limit`, marked read (`via` says how
 * they reached the agent), unless `cancelled` aborts before that write commits.
 */
interface InboxRead {
  unreadOnly: boolean;
  markAsRead: boolean;
  limit: number;
  via?: DeliveredVia;
  cancelled?: AbortSignal | undefined;
}

export class MessagesService {
  constructor(
    private readonly app: AppContext,
    private readonly sessions: SessionsService,
    private readonly notifications: NotificationsService,
  ) {}

  async send(
    from: SessionRow,
    input: { to?: string | undefined; content: string; replyTo?: string | undefined },
  ): Promise<{
    message_id: string;
    to_session_id: string | null;
    recipients: number;
    recipient_status?: SessionState;
  }> {
    const content = input.content.trim();
    if (!content) throw invalidInput('content: the message is empty.');
    const { store } = this.app;
    let to = input.to ?? null;
    if (input.replyTo !== undefined) {
      const original = await store.messages.get(input.replyTo);
      // Another project's message is not one to reply to from here.
      if (!original || original.project_id !== from.project_id)
        throw new CollabError('MESSAGE_NOT_FOUND', `No message with id ${shown(input.replyTo)} to reply to.`);
      // A reply without a recipient goes back to the original sender.
      if (to === null && original.from_session_id !== from.id) to = original.from_session_id;
    }
    let recipientStatus: SessionState | undefined;
    if (to !== null) {
      // By id, or by name among the project's live sessions.
      const recipient = await this.sessions.findByRef(from.project_id, to);
      to = recipient.id;
      recipientStatus = stateOf(this.app, recipient);
    }
    // The message and the notifications it causes in one write: a call sent again gets this very
    // message back (the id its write returned, as recorded), and sends nothing twice. The id is
    // made before the write: run again (its group rolled back, store/write-groups.ts), the write
    // keeps the id a read between the group's writes may have seen (and answered with).
    const made = newId();
    const { id, recipients } = await store.write(
      async () => {
        const id = made;
        await store.messages.insert({
          id,
          project_id: from.project_id,
          from_session_id: from.id,
          from_name: from.name,
          to_session_id: to,
          reply_to: input.replyTo ?? null,
          content,
          created_at: this.app.now(),
        });
        const recipientIds =
          to !== null
            ? [to]
            : (await this.sessions.liveInProject(from.project_id))
                .filter((s) => s.id !== from.id)
                .map((s) => s.id);
        await this.notifications.notify(recipientIds, {
          type: 'message',
          subject: `message:${from.id}`,
          payload: {
            from: from.name,
            from_session_id: from.id,
            message_id: id,
            broadcast: to === null,
            preview: content.slice(0, 160),
          },
          project: from.project_id,
        });
        return { id, recipients: recipientIds.length };
      },
      { project: from.project_id },
    );
    this.app.log.info('message.send', { message: id, from: from.id, to });
    return {
      message_id: id,
      to_session_id: to,
      recipients,
      ...(recipientStatus !== undefined ? { recipient_status: recipientStatus } : {}),
    };
  }

  /**
   * How many messages the session has unread (direct, and broadcasts since it started), whether a
   * notification of its is pending, and whether it was delivered messages it has not acted after
   * (`InboxService.acting`): one read.
   */
  news(session: { id: string; project_id: string; created_at: number }): Promise<{
    unread: number;
    pending: boolean;
    unacted: boolean;
  }> {
    return this.app.store.messages.unreadAndPending(session);
  }

  /**
   * The session's inbox (a page), marking what it reads read when `markAsRead`; `cancelled` aborted
   * before that write commits (the call that asked was cancelled, its answer never to be read): it
   * is rolled back, its reason thrown, the messages still unread.
   */
  async list(session: SessionRow, input: InboxRead): Promise<MessageView[]> {
    const { store } = this.app;
    const rows = input.markAsRead
      ? await store.write(this.readingAndMarking(session, input), { project: session.project_id })
      : await store.messages.inboxOf(session, input.unreadOnly, input.limit);
    return rows.map((r) => ({ ...messageView(r), read: r.read_at !== null }));
  }

  /**
   * Whether a call sent again handed the session's messages over (`list`, marking them read) when
   * it was sent before: they are read by now, and the call answers the same again.
   */
  handedOver(session: SessionRow): Promise<boolean> {
    return this.app.store.doneBefore(
      this.readingAndMarking(session, { unreadOnly: true, markAsRead: true, limit: 0 }),
    );
  }

  /**
   * The write of `list` marking what it reads read: one function for both (a call's write is known
   * by its function's text, `handedOver`). Read in the same write, a call sent again gets these
   * very messages back (read by then, they would no longer be unread).
   */
  private readingAndMarking(session: SessionRow, input: InboxRead) {
    const { store } = this.app;
    return async () => {
      const rows = await store.messages.inboxOf(session, input.unreadOnly, input.limit);
      const unread = rows.filter((r) => r.read_at === null).map((r) => r.id);
      if (unread.length === 0) return rows;
      const now = this.app.now();
      await store.messages.markRead(unread, session.id, now, input.via ?? 'list');
      // Read now: the notifications announcing them would repeat them in this very answer.
      if ((await store.messages.unreadCount(session)) === 0)
        await store.notifications.markTypeSeen(session.id, 'message', now);
      input.cancelled?.throwIfAborted();
      return rows;
    };
  }

  /**
   * The messages `session` sent, newest first, each with its receipts: for every recipient its agent
   * was delivered it to, when and how, and when that agent next acted; a direct message not
   * delivered yet lists its recipient with none of these.
   */
  async sent(session: SessionRow, limit: number): Promise<SentView[]> {
    const { store } = this.app;
    const rows = await store.messages.sentBy(session.id, limit);
    const receipts = await store.messages.receipts(rows.map((r) => r.id));
    const names = new Map<string, string>();
    const out: SentView[] = [];
    for (const r of rows) {
      const mine: ReceiptView[] = receipts
        .filter((x) => x.message_id === r.id)
        .map((x) => ({
          session_id: x.session_id,
          session: x.session_name,
          delivered_at: iso(x.read_at),
          delivered_via: x.via,
          acted_at: x.acted_at === null ? null : iso(x.acted_at),
        }));
      if (r.to_session_id !== null && mine.length === 0) {
        if (!names.has(r.to_session_id))
          names.set(r.to_session_id, (await store.sessions.get(r.to_session_id))?.name ?? '');
        mine.push({
          session_id: r.to_session_id,
          session: names.get(r.to_session_id)!,
          delivered_at: null,
          delivered_via: null,
          acted_at: null,
        });
      }
      out.push({ ...messageView(r), receipts: mine });
    }
    return out;
  }
}

/** A stored message as a tool shows it (without what depends on who reads it). */
function messageView(r: MessageRow): Omit<MessageView, 'read'> {
  return {
    id: r.id,
    from_session_id: r.from_session_id,
    from: r.from_name,
    to_session_id: r.to_session_id,
    broadcast: r.to_session_id === null,
    reply_to: r.reply_to,
    content: r.content,
    created_at: iso(r.created_at),
  };
}
