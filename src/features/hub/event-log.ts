import { inline } from '../../core/fence.js';
import type { EventRow } from '../../store/events-store.js';
import type { Wiring } from '../tool-context.js';

/** One change as the dashboard's live feed carries it: what, where, and a line for people. */
export interface FeedEvent {
  id: number;
  at: string;
  project_id: string | null;
  kind: string;
  op: string;
  subject: string;
  text: string;
  /**
   * Whether a person's activity list shows it: a notification that only tells a session of what
   * has a line of its own (a message, a claim, an answer, a review) is not listed again, once per
   * recipient; the page still refreshes on it.
   */
  listed: boolean;
}

const TEXT_CHARS = 300;

/** Notifications whose cause the activity list already shows as an event of its own. */
const ECHOES = new Set([
  'message',
  'claim_conflict',
  'claim_taken_over',
  'claim_released',
  'session_ended',
  'question_answered',
  'work_submitted',
  'review_submitted',
  'review_response',
]);

/** The log of changes (whichever process made them), read in order and described for people. */
export class EventLog {
  constructor(private readonly app: Wiring) {}

  lastId(): Promise<number> {
    return this.app.store.events.lastId();
  }

  /** The oldest id kept; past the last one when none is. */
  oldestId(): Promise<number> {
    return this.app.store.events.oldestId();
  }

  /** Up to `limit` events after `id`, oldest first. */
  async after(id: number, limit: number): Promise<FeedEvent[]> {
    const events: FeedEvent[] = [];
    for (const row of await this.app.store.events.after(id, limit)) events.push(await this.describe(row));
    return events;
  }

  private async describe(row: EventRow): Promise<FeedEvent> {
    return {
      id: row.id,
      at: new Date(row.at).toISOString(),
      project_id: row.project_id,
      kind: row.kind,
      op: row.op,
      subject: row.subject,
      text: inline(await this.line(row), TEXT_CHARS),
      listed: !(row.kind === 'notification' && ECHOES.has(row.op)),
    };
  }

  private async line(row: EventRow): Promise<string> {
    const { store } = this.app;
    switch (row.kind) {
      case 'session': {
        const s = await store.sessions.get(row.subject);
        const name = s ? `"${s.name}"` : 'a session';
        if (row.op === 'started')
          return `${name} started${s?.client ? ` (${s.client}${s.branch ? `, ${s.branch}` : ''})` : ''}`;
        if (row.op === 'ended') return `${name} ended${s?.end_reason ? `: ${s.end_reason}` : ''}`;
        return `${name} changed`;
      }
      case 'claim': {
        const c = await store.claims.get(row.subject);
        if (!c) return `a claim was ${row.op}`;
        const files = c.files.slice(0, 5).join(', ') + (c.files.length > 5 ? ` +${c.files.length - 5}` : '');
        if (row.op === 'created') return `"${c.session_name}" claimed ${files}: ${c.intent}`;
        return `"${c.session_name}" ${row.op === 'expired' ? 'let expire' : 'released'} ${files} (${row.op})`;
      }
      case 'message': {
        const m = await store.messages.get(row.subject);
        if (!m) return 'a message was sent';
        const to = m.to_session_id
          ? ((await store.sessions.get(m.to_session_id))?.name ?? 'a session')
          : 'everyone';
        return `"${m.from_name}" → ${m.to_session_id ? `"${to}"` : to}: ${m.content}`;
      }
      case 'decision': {
        const d = await store.decisions.get(row.subject);
        return d ? `"${d.session_name}" decided (${d.category}): ${d.title}` : 'a decision was recorded';
      }
      case 'question': {
        const q = await store.questions.get(row.subject);
        if (!q) return `a question was ${row.op}`;
        const who = (await store.sessions.get(q.session_id))?.name ?? 'a session';
        if (row.op === 'asked') return `"${who}" asks: ${q.question}`;
        return `question of "${who}" ${row.op}${q.answered_via ? ` via ${q.answered_via}` : ''}: ${q.question}`;
      }
      case 'review': {
        const w = await store.workItems.get(row.subject);
        // Said as of this event (its op is the status it set), not as the item stands now.
        if (!w) return `a work item is ${row.op.replace(/_/g, ' ')}`;
        const what = `${w.type} "${w.title}"`;
        if (row.op === 'pending_review') return `"${w.submitted_by_name}" asks for a review of ${what}`;
        if (row.op === 'changes_requested') return `changes requested on ${what}`;
        return `${what} is ${row.op.replace(/_/g, ' ')}`;
      }
      case 'landing': {
        const l = await store.landings.get(row.subject);
        if (!l) return `a landing was ${row.op}`;
        const work = `${l.commits} commit(s) of ${l.branch || 'a detached HEAD'} onto ${l.onto}`;
        if (row.op === 'queued') return `"${l.requester}" asks to land ${work}`;
        if (row.op === 'landing')
          return `landing "${l.requester}"'s ${work}${l.attempts > 1 ? ` (taken over, attempt ${l.attempts})` : ''}`;
        if (row.op === 'landed')
          return `"${l.requester}" landed ${work} as ${(l.landed_commit ?? '').slice(0, 12)}`;
        return `"${l.requester}"'s request to land ${work} was ${row.op}: ${l.reason ?? ''}`;
      }
      case 'notification': {
        // A held file changed behind every hook: said whole, with whom it was said to.
        const n = row.op === 'unseen_write' ? await store.notifications.get(row.subject) : undefined;
        if (n) {
          const p = JSON.parse(n.payload) as { file: string; folder: string; by: string | null };
          const to = (await store.sessions.get(n.session_id))?.name ?? 'a session';
          return `${p.file} (held by "${to}") changed in ${p.folder} and no hook saw it${p.by ? `; most likely "${p.by}"` : ''}`;
        }
        return `a ${row.op.replace(/_/g, ' ')} notification`;
      }
      default:
        return `${row.kind} ${row.op}`;
    }
  }
}
