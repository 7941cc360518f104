import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type { TelegramConfig } from '../../app/config.js';
import type { AppContext } from '../../app/context.js';
import { Backoff } from '../../core/backoff.js';
import { CollabError } from '../../core/errors.js';
import { inline } from '../../core/fence.js';
import { newId } from '../../core/ids.js';
import { age, closedNote, decodeButton, encodeButton } from '../../core/questions.js';
import { processAlive } from '../../integrations/process-probe.js';
import {
  type Keyboard,
  type TelegramApi,
  TelegramConflict,
  type TelegramMessage,
  type TelegramUpdate,
  telegramApi,
} from '../../integrations/telegram-api.js';
import type { QuestionWithSession } from '../../store/questions-store.js';
import type { PollerRow } from '../../store/telegram-store.js';
import { optionsOf, type QuestionEvent, type QuestionsService } from './questions-service.js';

/** Seconds one getUpdates long poll lasts. */
const POLL_SECONDS = 5;
/** A poller's lease outlasts its poll by this much: it is renewed before each poll. */
const LEASE_MS = POLL_SECONDS * 1000 + 10_000;
/** How often a process that does not poll looks whether the poller is gone. */
const WATCH_MS = 1_000;
const LIST_MAX = 20;
const PENDING_BUTTON = 'Pending';

/**
 * Starts the Telegram channel of this process when a bot token is configured (config.json
 * `telegram` or SESSION_COLLAB_TELEGRAM_*); null when none is.
 */
export async function startTelegram(
  app: AppContext,
  human: QuestionsService,
  settings: TelegramConfig,
): Promise<TelegramChannel | null> {
  if (!settings.bot_token) return null;
  const api = telegramApi(settings.bot_token, settings.api_root);
  const channel = new TelegramChannel(app, human, { ...settings, bot_token: settings.bot_token }, api);
  channel.start();
  return channel;
}

/**
 * Telegram for the human toolset, one per process that serves it with a bot configured. Every such
 * process sends the questions its sessions ask, at once; exactly one of them (the holder of the
 * bot's lease row, renewed before each poll, taken over when the holder's process is gone or its
 * lease has run out) polls getUpdates, so that Telegram never sees two pollers for one token. The
 * next update to ask for is stored with the lease, and advanced after each update is handled: a
 * new poller repeats and loses nothing. An answer is stored for the question its button or its
 * reply names, never by order.
 */
export class TelegramChannel {
  private readonly instance = newId();
  private readonly bot: string;
  private readonly allowed: Set<number>;
  private stopped = false;
  private polling: AbortController | null = null;
  private running: Promise<void> | null = null;
  private unsubscribe: (() => void) | null = null;
  private webhookCleared = false;
  private wake: (() => void) | null = null;
  private readonly settings: TelegramConfig & { bot_token: string };
  /** Webhook mode: the listener of the process that holds the bot. */
  private listener: { close(): Promise<void> } | null = null;
  /** Webhook posts are handled one at a time, in order. */
  private handling: Promise<void> = Promise.resolve();

  constructor(
    private readonly app: AppContext,
    private readonly human: QuestionsService,
    settings: TelegramConfig & { bot_token: string },
    private readonly api: TelegramApi,
  ) {
    this.settings = settings;
    this.bot = createHash('sha256').update(settings.bot_token).digest('hex').slice(0, 16);
    this.allowed = new Set(settings.allowed_user_ids);
  }

  /** Starts sending and (when this process gets the lease) polling. */
  start(): void {
    this.unsubscribe = this.human.onEvent((event) => void this.onQuestion(event));
    this.running = this.run().catch((error: Error) => {
      this.app.log.error('telegram.stopped', { message: error.message });
    });
  }

  /** Stops polling and gives the lease up, so that another process takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.polling?.abort();
    this.wake?.();
    await this.running;
    await this.listener?.close().catch(() => {});
    await this.release();
  }

  /** Gives the bot's lease up (never throws: otherwise it runs out by itself). */
  private async release(): Promise<void> {
    try {
      await this.app.store.write(() => this.app.store.telegram.release(this.bot, this.instance));
    } catch (error) {
      this.app.log.warn('telegram.release_failed', { message: (error as Error).message });
    }
  }

  /** Whether this process polls the bot now. */
  async polls(): Promise<boolean> {
    const row = await this.app.store.telegram.poller(this.bot);
    return row?.holder === this.instance && row.lease_until > this.app.now();
  }

  private async run(): Promise<void> {
    if (this.settings.mode === 'webhook') return this.runWebhook();
    const backoff = new Backoff(1_000, 30_000);
    while (!this.stopped) {
      try {
        if (!(await this.holdLease())) {
          await this.sleep(WATCH_MS);
          continue;
        }
        if (!this.webhookCleared) {
          await this.api.deleteWebhook();
          this.webhookCleared = true;
          this.app.log.info('telegram.polling', { pid: process.pid });
        }
        await this.flush();
        if (this.stopped || !(await this.holdLease())) continue;
        const offset = (await this.app.store.telegram.poller(this.bot))?.update_offset ?? 0;
        this.polling = new AbortController();
        const updates = await this.api.getUpdates(offset, POLL_SECONDS, this.polling.signal);
        this.polling = null;
        for (const update of updates) {
          // Still the poller (the lease renewed), or another process took over: it reads from
          // the stored offset.
          if (this.stopped || !(await this.holdLease())) break;
          await this.handle(update);
          // Handled, then confirmed: a poller that dies in between hands the update over again,
          // and answering twice finds the question already answered.
          await this.app.store.write(() =>
            this.app.store.telegram.advance(this.bot, this.instance, update.update_id + 1),
          );
        }
        backoff.reset();
      } catch (error) {
        this.polling = null;
        if (this.stopped) break;
        if (error instanceof TelegramConflict) {
          // Another poller for this token (elsewhere, or a webhook): give the lease up, wait.
          this.app.log.warn('telegram.conflict', { message: error.message });
          await this.release();
          this.webhookCleared = false;
          await this.sleep(LEASE_MS);
        } else {
          this.app.log.warn('telegram.error', { message: (error as Error).message });
          await this.sleep(backoff.next());
        }
      }
    }
  }

  /**
   * Webhook mode: the process that holds the bot's lease listens on `webhook_listen` and tells
   * Telegram to post to `webhook_url`; it renews the lease every second, and stops listening if
   * it loses it. Nobody polls.
   */
  private async runWebhook(): Promise<void> {
    const { webhook_url: url, webhook_secret: secret, webhook_listen: listen } = this.settings;
    if (!url || !secret) return;
    const backoff = new Backoff(1_000, 30_000);
    while (!this.stopped) {
      try {
        if (await this.holdLease()) {
          if (!this.listener) {
            const { listenForUpdates } = await import('../../integrations/telegram-webhook.js');
            this.listener = await listenForUpdates(listen, new URL(url).pathname, secret, (u) =>
              this.onPosted(u),
            );
            await this.api.setWebhook(url, secret);
            this.app.log.info('telegram.webhook', { listen, pid: process.pid });
          }
          await this.flush();
        } else if (this.listener) {
          await this.listener.close();
          this.listener = null;
        }
        backoff.reset();
        await this.sleep(WATCH_MS);
      } catch (error) {
        if (this.stopped) break;
        this.app.log.warn('telegram.error', { message: (error as Error).message });
        await this.listener?.close().catch(() => {});
        this.listener = null;
        await this.release();
        await this.sleep(backoff.next());
      }
    }
  }

  /** An update Telegram posted: handled once, in order (a repeat of one handled is skipped). */
  private onPosted(update: TelegramUpdate): Promise<void> {
    const next = this.handling.then(async () => {
      const offset = (await this.app.store.telegram.poller(this.bot))?.update_offset ?? 0;
      if (update.update_id < offset) return;
      await this.handle(update);
      await this.app.store.write(() =>
        this.app.store.telegram.advance(this.bot, this.instance, update.update_id + 1),
      );
    });
    this.handling = next.catch(() => {});
    return next;
  }

  /**
   * Holds (or takes) the bot's lease when nobody else holds it: its holder's lease ran out, or its
   * process on this host is gone. Read first, so that watching costs no write lock; whether the
   * holder's process is gone is asked then too (it reads /proc), and counts in the write only if
   * that holder still holds the lease.
   */
  private async holdLease(): Promise<boolean> {
    const { store } = this.app;
    const seen = await store.telegram.poller(this.bot);
    const goneHolder =
      seen?.holder_host === this.app.host && seen.holder_pid !== null && !processAlive(seen.holder_pid, null)
        ? seen.holder
        : undefined;
    const takeable = (row: PollerRow | undefined, now: number) =>
      !row ||
      row.holder === this.instance ||
      row.lease_until <= now ||
      (goneHolder !== undefined && row.holder === goneHolder);
    if (!takeable(seen, this.app.now())) return false;
    return store.write(async () => {
      const now = this.app.now();
      if (!takeable(await store.telegram.poller(this.bot), now)) return false;
      await store.telegram.take(this.bot, this.instance, process.pid, this.app.host, now + LEASE_MS);
      return true;
    });
  }

  private async onQuestion(event: QuestionEvent): Promise<void> {
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
  private async flush(): Promise<void> {
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
  private async handle(update: TelegramUpdate): Promise<void> {
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
        return this.api.answerCallback(cb.id, this.confirmation(outcome.won, outcome.question));
      }
      case 'draft': {
        const draft = await this.app.store.telegram.draft(chat, action.messageId);
        if (!draft) return this.api.answerCallback(cb.id, 'That message was already used.');
        const outcome = await this.human.answer(action.questionId, draft.text, 'telegram', String(from));
        if (outcome.won)
          await this.app.store.write(() => this.app.store.telegram.dropDraft(chat, action.messageId));
        await this.api.answerCallback(cb.id, this.confirmation(outcome.won, outcome.question));
        if (outcome.won)
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
      await this.api.send(chat, this.confirmation(outcome.won, outcome.question, text));
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

  private confirmation(won: boolean, q: QuestionWithSession, text?: string): string {
    if (won) return `✓ Sent to "${q.session_name}"${text ? `: ${inline(text, 200)}` : ''}`;
    return `Not sent: the question was ${already(q)}.`;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      timer.unref();
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
    });
  }
}

/** Who asks: the label (when given) or the session's name, with its repo and branch. */
function asker(q: QuestionWithSession): string {
  const where = `${basename(q.session_worktree)}${q.session_branch ? `@${q.session_branch}` : ''}`;
  return `${q.label ? `${q.label} (${q.session_name})` : q.session_name} · ${where}`;
}

function questionText(q: QuestionWithSession, now: number): string {
  const urgency = q.urgency === 'high' ? ' · URGENT' : q.urgency === 'low' ? ' · low priority' : '';
  const how = optionsOf(q)
    ? 'Tap a choice, or reply to this message with your own answer.'
    : 'Reply to this message with your answer.';
  const body = q.question.length > 3_000 ? `${q.question.slice(0, 2_999)}…` : q.question;
  return `❓ ${asker(q)}${urgency} · ${age(now - q.created_at)}\n\n${body}\n\n${how}`;
}

function questionButtons(q: QuestionWithSession): Keyboard | undefined {
  const options = optionsOf(q);
  if (!options) return undefined;
  return {
    inline: options.map((text, i) => [
      { text, data: encodeButton({ kind: 'option', questionId: q.id, option: i + 1 }) },
    ]),
  };
}

function noteOf(q: QuestionWithSession): string {
  return closedNote(q.status as Exclude<typeof q.status, 'pending'>, q.answered_via, q.closed_at ?? 0);
}

/** The line a closed question's messages end with. */
function closedText(q: QuestionWithSession): string {
  return q.status === 'answered' ? `✅ ${noteOf(q)}: ${inline(q.answer ?? '', 500)}` : `— ${noteOf(q)}`;
}

/** "already answered in the terminal at 10:32 UTC: yes", for a person whose answer came too late. */
function already(q: QuestionWithSession): string {
  return `already ${noteOf(q)}${q.status === 'answered' ? `: ${inline(q.answer ?? '', 200)}` : ''}`;
}

function buttonLabel(q: QuestionWithSession, now: number): string {
  return inline(`${q.label ?? q.session_name}: ${q.question} (${age(now - q.created_at)})`, 60);
}
