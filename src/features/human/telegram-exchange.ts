/**
 * The bot's side of the questions: each question sent to every allowed user (once, whichever
 * process gets to it first), its messages edited when it closes, and what the people send back —
 * a button, a reply, free text kept until they say which question it answers — made into answers.
 * Only the allowed users are heard. And a session idle with news its client cannot be woken for
 * (Codex, Gemini CLI, Cursor): its person is told, once an idle spell.
 */
import type { AppContext } from '../../app/context.js';
import { CollabError } from '../../core/errors.js';
import { inline } from '../../core/fence.js';
import { decodeButton, encodeButton } from '../../core/questions.js';
import type { TelegramApi, TelegramMessage, TelegramUpdate } from '../../integrations/telegram-api.js';
import type { QuestionWithSession } from '../../store/questions-store.js';
import type { SessionRow } from '../../store/sessions-store.js';
import { ACTIONABLE } from '../inbox/inbox-service.js';
import type { QuestionEvent, QuestionsService } from './questions-service.js';
import { buttonLabel, closedText, confirmation, questionButtons, questionText } from './telegram-text.js';

const LIST_MAX = 20;
/**
 * How long a session's turn has ended before its person is told it waits with news. Claude Code
 * starts its wake hook at the turn's end, and the session counts as watched only once that hook
 * has reached the server (a process start, a second or more on a busy machine): news in between
 * would have the person told of a session its hook is about to wake.
 */
const IDLE_TOLD_AFTER_MS = 5_000;
export const PENDING_BUTTON = 'Pending';

export class TelegramExchange {
  constructor(
    private readonly app: AppContext,
    private readonly human: QuestionsService,
    private readonly api: TelegramApi,
    private readonly allowed: Set<number>,
  ) {}

  async onQuestion(event: QuestionEvent): Promise<void> {
    try {
      if (event.kind === 'asked') await this.sendQuestion(event.question);
      else if (event.kind === 'closed') await this.showClosed(event.question.id);
    } catch (error) {
      const message = (error as Error).message;
      this.app.log.warn('telegram.error', { message });
      await this.human.audit?.error(event.question.session_id, {
        channel: 'telegram',
        question_id: event.question.id,
        message,
      });
    }
  }

  /**
   * Questions still to send, and closed questions whose messages do not say so yet. A failure is
   * logged and left for the next round: it never keeps the poller from polling.
   */
  async flush(): Promise<void> {
    for (const q of await this.app.store.questions.unsent(this.app.now(), 20)) {
      try {
        await this.sendQuestion(q);
      } catch (error) {
        this.app.log.warn('telegram.error', { message: (error as Error).message });
        return; // Telegram unreachable: the rest waits too
      }
    }
    const closed = new Set((await this.app.store.questions.unshownClosed(50)).map((m) => m.question_id));
    for (const id of closed) {
      try {
        await this.showClosed(id);
      } catch (error) {
        this.app.log.warn('telegram.error', { message: (error as Error).message });
        return;
      }
    }
    const now = this.app.now();
    for (const session of await this.app.store.sessions.idleUntold(now, now - IDLE_TOLD_AFTER_MS, 20)) {
      try {
        await this.tellIdle(session);
      } catch (error) {
        this.app.log.warn('telegram.error', { message: (error as Error).message });
        return;
      }
    }
  }

  /**
   * A session whose turn ended, and which its client cannot wake, has news that asks its agent to
   * act: its person is told, once for this idle spell (whichever process takes it first), and goes
   * to it. Nothing is delivered: the agent hears it at its next turn.
   */
  private async tellIdle(session: SessionRow): Promise<void> {
    const { store } = this.app;
    const unread = await store.messages.unreadCount(session);
    if (unread === 0 && !(await store.notifications.hasPendingOf(session.id, ACTIONABLE))) return;
    if (!(await store.write(() => store.sessions.takeIdleTold(session.id, this.app.now())))) return;
    const newest = (await store.messages.inboxOf(session, true, 50)).at(-1);
    const project = await store.projects.get(session.project_id);
    const text = [
      `Session "${inline(session.name, 60)}" (${session.client ?? 'an agent'}${project ? ` · ${inline(project.name ?? project.root, 80)}` : ''}) finished its turn and is waiting, with ${unread > 0 ? `${unread} unread message${unread === 1 ? '' : 's'}` : 'news for it'}.`,
      ...(newest ? [`Newest, from "${inline(newest.from_name, 60)}": ${inline(newest.content, 300)}`] : []),
      'Its client cannot be woken: it hears this at its next turn. Go to it, or send it on with a prompt.',
    ].join('\n');
    for (const chat of this.allowed) {
      try {
        await this.api.send(chat, text);
      } catch (error) {
        this.app.log.warn('telegram.unreachable_user', { user: chat, message: (error as Error).message });
      }
    }
    this.app.log.info('telegram.idle_told', { session: session.id, unread });
  }

  /**
   * Sends a question to every allowed user, once, whichever process gets to it first (it takes the
   * sending for a minute; a process that dies meanwhile leaves it to be sent again). A user the
   * bot cannot reach (who never pressed Start, or blocked it) is logged and skipped; if nobody
   * could be reached for another reason, the question is sent again later.
   */
  private async sendQuestion(q: QuestionWithSession): Promise<void> {
    const { store } = this.app;
    if (!(await store.write(() => store.questions.takeSending(q.id, this.app.now())))) return;
    let reached = 0;
    let failure: Error | null = null;
    for (const chat of this.allowed) {
      try {
        const id = await this.api.send(chat, questionText(q, this.app.now()), questionButtons(q));
        await store.write(() => store.questions.addMessage(q.id, chat, id));
        reached++;
      } catch (error) {
        const status = (error as { status?: number | null }).status ?? null;
        if (status !== null && status >= 400 && status < 500 && status !== 429) {
          this.app.log.warn('telegram.unreachable_user', { user: chat, message: (error as Error).message });
          await this.human.audit?.error(q.session_id, {
            channel: 'telegram',
            question_id: q.id,
            user: chat,
            status,
          });
        } else failure = error as Error;
      }
    }
    await store.write(() => store.questions.doneSending(q.id, reached > 0 || failure === null));
    if (failure && reached === 0) throw failure;
  }

  /**
   * Edits a closed question's messages to say how it closed (and takes its buttons away). A
   * message Telegram will not edit (deleted, too old, the user blocked the bot) is left as it is.
   */
  private async showClosed(questionId: string): Promise<void> {
    const { store } = this.app;
    const q = await store.questions.getWithSession(questionId);
    if (!q || q.status === 'pending') return;
    for (const m of await store.questions.messagesOf(questionId)) {
      if (m.closed_shown) continue;
      try {
        await this.api.edit(
          m.chat_id,
          m.message_id,
          `${questionText(q, this.app.now())}\n\n${closedText(q)}`,
        );
      } catch (error) {
        const status = (error as { status?: number | null }).status ?? null;
        if (status === null || status === 429 || status >= 500) throw error; // tried again later
      }
      await store.write(() => store.questions.markShown(m.chat_id, m.message_id));
    }
  }

  /**
   * One update from an allowed user. Never throws: an update that fails (Telegram refusing a late
   * button answer, a database fault) is logged and passed over, so that it cannot hold up every
   * update after it.
   */
  async handle(update: TelegramUpdate): Promise<void> {
    const from = update.message?.from?.id ?? update.callback_query?.from.id;
    if (from === undefined || !this.allowed.has(from)) {
      this.app.log.warn('telegram.ignored', {
        from: from ?? null,
        kind: update.callback_query ? 'button' : 'message',
      });
      return;
    }
    const chat = update.message?.chat.id ?? update.callback_query?.message?.chat.id ?? from;
    try {
      if (update.callback_query) await this.onButton(update.callback_query, from);
      else if (update.message?.text !== undefined) await this.onText(update.message, from);
    } catch (error) {
      this.app.log.warn('telegram.update_failed', {
        update: update.update_id,
        message: (error as Error).message,
      });
      if (error instanceof CollabError)
        await this.api.send(chat, `Not sent: ${error.message}`).catch(() => {});
    }
  }

  private async onButton(cb: NonNullable<TelegramUpdate['callback_query']>, from: number): Promise<void> {
    const action = decodeButton(cb.data);
    const chat = cb.message?.chat.id ?? from;
    if (!action) return this.api.answerCallback(cb.id);
    switch (action.kind) {
      case 'list':
        await this.api.answerCallback(cb.id);
        return this.sendPending(chat);
      case 'pick': {
        await this.api.answerCallback(cb.id);
        const q = await this.human.get(action.questionId);
        if (q.status !== 'pending')
          return void (await this.api.send(chat, `That question is ${closedText(q)}.`));
        const shown = await this.api.send(chat, questionText(q, this.app.now()), questionButtons(q));
        const prompt = await this.api.send(chat, `Your answer to "${inline(q.question, 60)}":`, {
          forceReply: 'Type your answer',
        });
        await this.app.store.write(async () => {
          await this.app.store.questions.addMessage(q.id, chat, shown);
          await this.app.store.questions.addMessage(q.id, chat, prompt);
        });
        return;
      }
      case 'option': {
        const outcome = await this.human.answerOption(
          action.questionId,
          action.option,
          'telegram',
          String(from),
        );
        return this.api.answerCallback(cb.id, confirmation(outcome.won || outcome.again, outcome.question));
      }
      case 'draft': {
        const draft = await this.app.store.telegram.draft(chat, action.messageId);
        if (!draft) return this.api.answerCallback(cb.id, 'That message was already used.');
        const outcome = await this.human.answer(action.questionId, draft.text, 'telegram', String(from));
        if (outcome.won || outcome.again)
          await this.app.store.write(() => this.app.store.telegram.dropDraft(chat, action.messageId));
        await this.api.answerCallback(cb.id, confirmation(outcome.won || outcome.again, outcome.question));
        if (outcome.won || outcome.again)
          await this.api.send(
            chat,
            `✓ Sent to "${outcome.question.session_name}": ${inline(draft.text, 200)}`,
          );
        return;
      }
    }
  }

  private async onText(message: TelegramMessage, from: number): Promise<void> {
    const chat = message.chat.id;
    const text = (message.text ?? '').trim();
    if (text === '/start' || text === '/help')
      return void (await this.api.send(
        chat,
        'Questions from your coding sessions arrive here. Tap a choice, or reply to a question with your own answer. "Pending" lists the open ones.',
        { buttons: [PENDING_BUTTON] },
      ));
    if (text === '/pending' || text === PENDING_BUTTON) return this.sendPending(chat);
    if (!text) return;
    const replied = message.reply_to_message
      ? await this.app.store.questions.questionOfMessage(chat, message.reply_to_message.message_id)
      : null;
    if (replied) {
      const outcome = await this.human.answer(replied, text, 'telegram', String(from));
      await this.api.send(chat, confirmation(outcome.won || outcome.again, outcome.question, text));
      return;
    }
    // Free text that answers nothing yet: kept until the person says which question it answers.
    const pending = await this.human.list(null, 'pending', LIST_MAX);
    if (pending.length === 0) return void (await this.api.send(chat, 'No pending questions.'));
    await this.app.store.write(async () => {
      await this.app.store.telegram.purgeDrafts(this.app.now() - 86_400_000);
      await this.app.store.telegram.addDraft({
        chat_id: chat,
        message_id: message.message_id,
        from_id: from,
        text,
        created_at: this.app.now(),
      });
    });
    await this.api.send(chat, 'Which question does this answer?', {
      inline: pending.map((q) => [
        {
          text: buttonLabel(q, this.app.now()),
          data: encodeButton({ kind: 'draft', messageId: message.message_id, questionId: q.id }),
        },
      ]),
    });
  }

  private async sendPending(chat: number): Promise<void> {
    const pending = await this.human.list(null, 'pending', LIST_MAX);
    if (pending.length === 0) return void (await this.api.send(chat, 'No pending questions.'));
    await this.api.send(chat, `${pending.length} pending question${pending.length === 1 ? '' : 's'}:`, {
      inline: pending.map((q) => [
        { text: buttonLabel(q, this.app.now()), data: encodeButton({ kind: 'pick', questionId: q.id }) },
      ]),
    });
  }
}
