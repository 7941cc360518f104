import { CollabError, invalidInput } from '../../core/errors.js';
import { inline, shown } from '../../core/fence.js';
import { newId } from '../../core/ids.js';
import { noLongerActive } from '../claims/claims-service.js';
import type { AnswerOutcome } from '../human/questions-service.js';
import type { Wiring } from '../tool-context.js';

/** What a person does from outside any session (the dashboard): each recorded as done by that person. */
export interface Person {
  /** Shown to sessions, e.g. "a person (dashboard)". */
  name: string;
  /** The channel an answer came through. */
  via: 'web' | 'terminal';
}

const REASON_CHARS = 500;
const MESSAGE_CHARS = 10_000;

function reasonOf(reason: string): string {
  const text = inline(reason, REASON_CHARS);
  if (!text) throw invalidInput('reason: say why, for the session that held it.');
  return text;
}

/** A person acting on the shared state: answer, release a claim, message a session, end a session. */
export class PersonActions {
  constructor(
    private readonly app: Wiring,
    private readonly person: Person,
  ) {}

  /** Answers a pending question; the first answer from any channel wins. */
  async answer(questionId: string, text: string): Promise<AnswerOutcome> {
    if (!text.trim()) throw invalidInput('answer: the answer is empty.');
    return this.app.human.answer(questionId, text, this.person.via, this.person.name);
  }

  /** Releases any session's active claim, and tells that session who did and why. */
  async releaseClaim(
    claimId: string,
    reason: string,
  ): Promise<{ claim_id: string; files: string[]; session_id: string }> {
    const why = reasonOf(reason);
    const { store } = this.app;
    const released = await store.write(async () => {
      const claim = await store.claims.get(claimId);
      if (!claim) throw new CollabError('CLAIM_NOT_FOUND', `No claim with id ${shown(claimId)}.`);
      if (claim.status !== 'active')
        throw new CollabError(
          'CLAIM_NOT_ACTIVE',
          `Claim ${claimId} is no longer active: ${noLongerActive(claim.status)}.`,
        );
      const files = claim.files;
      await store.claims.release(
        claimId,
        'abandoned',
        `released by ${this.person.name}: ${why}`,
        this.app.now(),
      );
      await this.app.notifications.notify([claim.session_id], {
        type: 'claim_released',
        subject: `claim_released:${claimId}`,
        payload: { claim_id: claimId, files, intent: claim.intent, by: this.person.name, reason: why },
        project: claim.project_id,
      });
      return { claim_id: claimId, files, session_id: claim.session_id };
    });
    this.app.log.info('claim.release_by_person', { claim: claimId, by: this.person.name });
    return released;
  }

  /** Ends a session (live or not) and releases what it held. */
  async endSession(sessionId: string, reason: string): Promise<{ session_id: string; released: number }> {
    const why = reasonOf(reason);
    const { released } = await this.app.sessions.end(
      sessionId,
      'abandon',
      `ended by ${this.person.name}: ${why}`,
    );
    return { session_id: sessionId, released };
  }

  /** Sends a direct message to a session; it reaches the model with its next tool response or hook. */
  async message(sessionId: string, text: string): Promise<{ message_id: string }> {
    const content = text.trim();
    if (!content) throw invalidInput('message: the message is empty.');
    if (content.length > MESSAGE_CHARS)
      throw invalidInput(`message: at most ${MESSAGE_CHARS} characters (got ${content.length}).`);
    const { store } = this.app;
    const id = newId();
    await store.write(async () => {
      const to = await store.sessions.get(sessionId);
      if (!to) throw new CollabError('SESSION_NOT_FOUND', `No session with id ${shown(sessionId)}.`);
      if (to.status !== 'active')
        throw new CollabError('SESSION_INACTIVE', `Session "${to.name}" (${sessionId}) has ended.`);
      await store.messages.insert({
        id,
        project_id: to.project_id,
        from_session_id: `person:${this.person.via}`,
        from_name: this.person.name,
        to_session_id: to.id,
        reply_to: null,
        content,
        created_at: this.app.now(),
      });
      await this.app.notifications.notify([to.id], {
        type: 'message',
        subject: `message:person:${this.person.via}`,
        payload: {
          from: this.person.name,
          from_session_id: `person:${this.person.via}`,
          message_id: id,
          broadcast: false,
          preview: content.slice(0, 160),
        },
        project: to.project_id,
      });
    });
    this.app.log.info('message.send_by_person', { message: id, to: sessionId });
    return { message_id: id };
  }
}
