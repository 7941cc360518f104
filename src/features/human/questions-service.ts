import type { AppContext } from '../../app/context.js';
import { CollabError, invalidInput } from '../../core/errors.js';
import { inline } from '../../core/fence.js';
import { newId } from '../../core/ids.js';
import { atMost, LIMITS } from '../../core/limits.js';
import type { AnswerChannel, QuestionStatus, Urgency } from '../../core/questions.js';
import { iso } from '../../core/time.js';
import { unrecorded } from '../../store/call-records-store.js';
import type { QuestionWithSession } from '../../store/questions-store.js';
import type { SessionRow } from '../../store/sessions-store.js';
import { fullId } from '../id-references.js';
import type { NotificationsService } from '../notifications/notifications-service.js';
import { stateOf } from '../sessions/liveness.js';
import type { AuditTrail } from './audit-trail.js';
import { optionsOf, type QuestionView, questionView } from './question-views.js';

/** What happened to an answer: it won (the question was pending), or the question had already closed. */
export interface AnswerOutcome {
  won: boolean;
  /**
   * Not won, but the answer recorded is this very one, from the same person through the same
   * channel: it was given before and is given again (a Telegram update read again after its poller
   * died once it had recorded it). Told as sent, not as "already answered".
   */
  again: boolean;
  question: QuestionWithSession;
}

export const MAX_OPTIONS = 20;
/** Questions one session may have open at once: a loop that asks cannot flood a person's phone. */
export const MAX_PENDING_PER_SESSION = 50;
/** Calls of one process waiting at once; more answer at once (each waiting call reads the database a few times a second). */
const MAX_WAITING = 64;
export const OPTION_CHARS = 200;
/** How often a waiting call looks for answers recorded by other processes. */
const POLL_MS = 200;

/**
 * Questions sessions put to a person, and their answers. Any channel (Telegram, the terminal, the
 * web page, the client's own form) answers through `answer`; the first answer to a pending question
 * wins, in one write transaction, and the others find it closed. The asker learns it from its
 * waiting call, from `check_answers`, or, when neither is waiting, from a notification on its next
 * tool response and through its hooks.
 */
export class QuestionsService {
  /** Calls of this process waiting for an answer: woken at once by an answer recorded here. */
  private readonly waiters = new Set<() => void>();
  /** Told of every question asked and closed in this process (the Telegram channel listens). */
  private readonly listeners = new Set<(event: QuestionEvent) => void>();
  private waiting = 0;

  constructor(
    private readonly app: AppContext,
    private readonly notifications: NotificationsService,
    /** The sessions' audit files (sessions/<id>.jsonl): every event here is written there too. */
    readonly audit: AuditTrail | null = null,
  ) {}

  onEvent(listener: (event: QuestionEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async ask(
    session: SessionRow,
    input: { question: string; options?: string[]; label?: string; urgency?: Urgency },
  ): Promise<QuestionWithSession> {
    const question = input.question.trim();
    if (!question) throw invalidInput('question: say what you need the person to decide.');
    const options = input.options?.map((o) => o.trim());
    if (options) {
      if (options.length > MAX_OPTIONS) throw invalidInput(`options: at most ${MAX_OPTIONS} choices.`);
      if (options.some((o) => o.length === 0 || o.length > OPTION_CHARS))
        throw invalidInput(`options: each choice is 1 to ${OPTION_CHARS} characters.`);
      if (new Set(options).size !== options.length) throw invalidInput('options: the choices must differ.');
    }
    const { store } = this.app;
    const expiry = this.app.config.question_expiry_minutes;
    // Its time made inside the write, and the id returned by it: a call sent again gets this very
    // question back. The id is made before the write: run again (its group rolled back,
    // store/write-groups.ts), the write keeps the id a read between the group's writes saw (the
    // dashboard's, which a person answers by).
    const made = newId();
    const id = await store.write(async () => {
      const id = made;
      const now = this.app.now();
      if ((await store.questions.pendingOf(session.id)) >= MAX_PENDING_PER_SESSION)
        throw invalidInput(
          `this session already has ${MAX_PENDING_PER_SESSION} questions waiting for a person.`,
          'Cancel the ones that no longer matter (list_questions, cancel_question), or wait for answers.',
        );
      await store.questions.insert({
        id,
        session_id: session.id,
        project_id: session.project_id,
        question,
        options: options && options.length > 0 ? JSON.stringify(options) : null,
        label: input.label?.trim() || null,
        urgency: input.urgency ?? 'normal',
        created_at: now,
        expires_at: expiry > 0 ? now + expiry * 60_000 : null,
      });
      return id;
    });
    const row = (await store.questions.getWithSession(id))!;
    this.app.log.info('question.asked', { question: id, session: session.id, urgency: row.urgency });
    await this.emit({ kind: 'asked', question: row });
    return row;
  }

  /**
   * Records an answer; the first to a pending question wins. The asker is notified (it reads the
   * notification unless a waiting call hands it the answer first).
   */
  async answer(
    questionId: string,
    text: string,
    via: AnswerChannel,
    by: string | null,
  ): Promise<AnswerOutcome> {
    const answer = text.trim();
    if (!answer) throw invalidInput('answer: it is empty.');
    if (answer.length > LIMITS.messageChars)
      throw invalidInput(`answer: ${answer.length} characters (${atMost('messageChars')}).`);
    const { store } = this.app;
    const { abandoned, ...outcome } = await store.write(async () => {
      const now = this.app.now();
      await this.expireWithin(now);
      const row = await store.questions.get(questionId);
      if (!row) throw notFound(questionId);
      // An asker that is gone (its process died without ending the session) reads no answer. Told
      // in this transaction: an asker taken up again meanwhile gets its person's answer.
      const abandoned =
        row.status === 'pending' &&
        !(await this.askerLive(row.session_id)) &&
        (await store.questions.close(questionId, 'abandoned', now));
      const won = await store.questions.answer(questionId, answer, via, by, now);
      if (won) {
        await this.notifications.notify([row.session_id], {
          type: 'question_answered',
          subject: questionId,
          project: row.project_id,
          payload: {
            question_id: questionId,
            question: inline(row.question, 200),
            answer: inline(answer, 2_000),
            answered_via: via,
            answered_at: iso(now),
          },
        });
      }
      const question = (await store.questions.getWithSession(questionId))!;
      const again =
        !won &&
        question.status === 'answered' &&
        question.answered_via === via &&
        question.answered_by === by &&
        question.answer === answer;
      return { won, again, question, abandoned };
    });
    if (outcome.won) this.app.log.info('question.answered', { question: questionId, via });
    if (outcome.won || abandoned) await this.closed(outcome.question);
    return outcome;
  }

  /** Whether the session that asked can still read an answer. */
  private async askerLive(sessionId: string): Promise<boolean> {
    const session = await this.app.store.sessions.get(sessionId);
    return session !== undefined && stateOf(this.app, session) === 'active';
  }

  /** Pending questions whose asker is gone are abandoned (a person is not shown them). */
  private async abandonGone(): Promise<void> {
    const { store } = this.app;
    const pending = await store.questions.all('pending', 500);
    const looksGone = new Set<string>();
    for (const id of new Set(pending.map((q) => q.session_id)))
      if (!(await this.askerLive(id))) looksGone.add(id);
    if (looksGone.size === 0) return;
    const closed = await store.write(async () => {
      const now = this.app.now();
      // Told again in this transaction: an asker taken up again since keeps its questions.
      const gone = new Set<string>();
      for (const id of looksGone) if (!(await this.askerLive(id))) gone.add(id);
      const closed: QuestionWithSession[] = [];
      for (const q of pending)
        if (gone.has(q.session_id) && (await store.questions.close(q.id, 'abandoned', now))) closed.push(q);
      return closed;
    });
    for (const q of closed) await this.closed((await store.questions.getWithSession(q.id))!);
  }

  /** The answer of option `n` (from 1) of a question offering choices. */
  async answerOption(
    questionId: string,
    n: number,
    via: AnswerChannel,
    by: string | null,
  ): Promise<AnswerOutcome> {
    const row = await this.app.store.questions.get(questionId);
    if (!row) throw notFound(questionId);
    const options = optionsOf(row);
    const choice = options?.[n - 1];
    if (choice === undefined) throw invalidInput(`option ${n}: the question offers ${options?.length ?? 0}.`);
    return this.answer(questionId, choice, via, by);
  }

  /** Cancels one of the session's own pending questions. */
  async cancel(session: SessionRow, questionId: string): Promise<QuestionWithSession> {
    const { store } = this.app;
    const row = await this.own(session, questionId);
    const closed = await store.write(() => store.questions.close(row.id, 'cancelled', this.app.now()));
    const after = (await store.questions.getWithSession(row.id))!;
    if (closed) {
      this.app.log.info('question.cancelled', { question: row.id, session: session.id });
      await this.closed(after);
    }
    return after;
  }

  /** What the person did with the client's form, when it was not an answer. */
  async recordElicitation(questionId: string, outcome: 'declined' | 'cancelled' | 'failed'): Promise<void> {
    const { store } = this.app;
    await store.write(() => store.questions.recordElicitation(questionId, outcome));
    this.app.log.info('question.elicitation', { question: questionId, outcome });
    const row = await store.questions.getWithSession(questionId);
    if (row) await this.emit({ kind: 'elicitation', question: row });
  }

  /** A question by its id or the start of it (the person at this machine types a few characters). */
  async resolve(idOrPrefix: string): Promise<QuestionWithSession> {
    return this.get(await fullId(this.app, 'question', idOrPrefix, null));
  }

  async get(questionId: string): Promise<QuestionWithSession> {
    const row = await this.app.store.questions.getWithSession(questionId);
    if (!row) throw notFound(questionId);
    return row;
  }

  /** One of the session's own questions; another session's is NOT_OWNER. */
  async own(session: SessionRow, questionId: string): Promise<QuestionWithSession> {
    const row = await this.get(questionId);
    if (row.session_id !== session.id)
      throw new CollabError(
        'NOT_OWNER',
        `Question ${questionId} was asked by session "${row.session_name}", not this one.`,
        'A session sees and cancels only its own questions (list_questions).',
      );
    return row;
  }

  /** A session's questions (or, with no session, every session's: the CLI and the web page), newest first. */
  async list(
    session: SessionRow | null,
    status: QuestionStatus | 'all',
    limit: number,
  ): Promise<QuestionWithSession[]> {
    await this.expireDue();
    if (session === null) await this.abandonGone();
    return session
      ? this.app.store.questions.ofSession(session.id, status, limit)
      : this.app.store.questions.all(status, limit);
  }

  /**
   * The session's questions a call should report: those given (its own), or else those pending and
   * those answered that no call has handed it yet.
   */
  async targets(session: SessionRow, ids: string[] | undefined): Promise<QuestionWithSession[]> {
    await this.expireDue();
    const targets: QuestionWithSession[] = [];
    if (ids && ids.length > 0) {
      for (const id of ids) targets.push(await this.own(session, id));
      return targets;
    }
    // Chosen in a write: a call sent again reports the same questions (handed over by the call
    // the first time, they would no longer be chosen).
    const { store } = this.app;
    return store.write(
      async () => {
        const chosen: QuestionWithSession[] = [];
        for (const q of await store.questions.ofSession(session.id, 'all', 200)) {
          if (
            q.status === 'pending' ||
            (q.status === 'answered' &&
              q.returned_at === null &&
              !(await this.notifications.wasDelivered(session.id, 'question_answered', q.id)))
          )
            chosen.push(q);
        }
        return chosen;
      },
      { project: session.project_id },
    );
  }

  /**
   * Waits until one of `ids` is no longer pending, `ms` have passed or `signal` aborts; `tick` is
   * called about every `tickMs` with the time waited. Answers recorded by this process wake it at
   * once; those of other processes within POLL_MS.
   */
  async waitForAny(
    ids: string[],
    ms: number,
    signal: AbortSignal | undefined,
    tick?: { everyMs: number; fn: (waitedMs: number) => void },
  ): Promise<void> {
    if (ids.length === 0 || ms <= 0) return;
    if (this.waiting >= MAX_WAITING) {
      this.app.log.warn('question.wait_refused', { waiting: this.waiting });
      return;
    }
    this.waiting++;
    try {
      await this.waitLoop(ids, ms, signal, tick);
    } finally {
      this.waiting--;
    }
  }

  private async waitLoop(
    ids: string[],
    ms: number,
    signal: AbortSignal | undefined,
    tick?: { everyMs: number; fn: (waitedMs: number) => void },
  ): Promise<void> {
    const started = Date.now();
    let lastTick = started;
    const settled = async () => {
      await this.expireDue();
      return (await this.app.store.questions.statuses(ids)).some((q) => q.status !== 'pending');
    };
    while (!(await settled())) {
      const now = Date.now();
      if (now - started >= ms || signal?.aborted) return;
      if (tick && now - lastTick >= tick.everyMs) {
        lastTick = now;
        tick.fn(now - started);
      }
      await this.pause(Math.min(POLL_MS, ms - (now - started)), signal);
    }
  }

  /**
   * Hands answered questions to their asker through a tool result: recorded, and the notification
   * that would have told it is marked seen (each answer reaches the session once).
   */
  async markReturned(questions: QuestionWithSession[]): Promise<void> {
    const answered = questions.filter((q) => q.status === 'answered' && q.returned_at === null);
    if (answered.length === 0) return;
    const { store } = this.app;
    await store.write(async () => {
      const now = this.app.now();
      for (const q of answered) {
        await store.questions.markReturned(q.id, now);
        await this.notifications.markSeen(q.session_id, 'question_answered', q.id);
      }
    });
  }

  /** Pending questions past their time become expired. */
  async expireDue(): Promise<void> {
    if (this.app.config.question_expiry_minutes <= 0) return;
    const { store } = this.app;
    // Waiting calls ask several times a second: the write lock only when something is due.
    if (!(await store.questions.anyDue(this.app.now()))) return;
    const expired = await store.write(() => this.expireWithin(this.app.now()));
    for (const id of expired) await this.closed((await store.questions.getWithSession(id))!);
  }

  view(q: QuestionWithSession): QuestionView {
    return questionView(q);
  }

  private async expireWithin(now: number): Promise<string[]> {
    return this.app.config.question_expiry_minutes > 0 ? this.app.store.questions.expireDue(now) : [];
  }

  private async closed(question: QuestionWithSession): Promise<void> {
    for (const wake of this.waiters) wake();
    await this.emit({ kind: 'closed', question });
  }

  private async emit(event: QuestionEvent): Promise<void> {
    await this.audit?.question(event);
    // What listeners do (send to Telegram, once) is not the call's: a call sent again finds it done.
    await unrecorded(async () => {
      for (const listener of this.listeners) {
        try {
          listener(event);
        } catch (error) {
          this.app.log.warn('question.listener_failed', { message: (error as Error).message });
        }
      }
    });
  }

  private pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}

export type QuestionEvent =
  | { kind: 'asked'; question: QuestionWithSession }
  | { kind: 'closed'; question: QuestionWithSession }
  | { kind: 'elicitation'; question: QuestionWithSession };

function notFound(id: string): CollabError {
  return new CollabError('QUESTION_NOT_FOUND', `No question ${id}.`);
}
