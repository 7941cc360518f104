import { createHash } from 'node:crypto';
import type { AppContext } from '../../app/context.js';
import type { TelegramConfig } from '../../app/telegram-config.js';
import { Backoff } from '../../core/backoff.js';
import { newId } from '../../core/ids.js';
import { processAlive } from '../../integrations/process-probe.js';
import {
  type TelegramApi,
  TelegramConflict,
  type TelegramUpdate,
  telegramApi,
} from '../../integrations/telegram-api.js';
import type { PollerRow } from '../../store/telegram-store.js';
import type { QuestionsService } from './questions-service.js';
import { TelegramExchange } from './telegram-exchange.js';

/** Seconds one getUpdates long poll lasts. */
const POLL_SECONDS = 5;
/** A poller's lease outlasts its poll by this much: it is renewed before each poll. */
const LEASE_MS = POLL_SECONDS * 1000 + 10_000;
/** How often a process that does not poll looks whether the poller is gone. */
const WATCH_MS = 1_000;

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
  private readonly exchange: TelegramExchange;
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
    this.exchange = new TelegramExchange(app, human, api, new Set(settings.allowed_user_ids));
  }

  /** Starts sending and (when this process gets the lease) polling. */
  start(): void {
    this.unsubscribe = this.human.onEvent((event) => void this.exchange.onQuestion(event));
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
    /** This poller met a conflict and waited for the poll in its way to end, without polling since. */
    let waitedOut = false;
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
        await this.exchange.flush();
        if (this.stopped || !(await this.holdLease())) continue;
        const offset = (await this.app.store.telegram.poller(this.bot))?.update_offset ?? 0;
        this.polling = new AbortController();
        const updates = await this.api.getUpdates(offset, POLL_SECONDS, this.polling.signal);
        this.polling = null;
        waitedOut = false;
        for (const update of updates) {
          // Still the poller (the lease renewed), or another process took over: it reads from
          // the stored offset.
          if (this.stopped || !(await this.holdLease())) break;
          await this.exchange.handle(update);
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
        if (error instanceof TelegramConflict && !waitedOut) {
          // Most often the last poll of the poller this one took over from: Telegram cannot tell
          // that a process was killed or a machine went off, and keeps its poll open until its
          // timeout. The lease is kept, and the next poll comes once that one has ended.
          waitedOut = true;
          this.app.log.info('telegram.conflict_waited', { message: error.message });
          await this.sleep(POLL_SECONDS * 1000 + 1000);
        } else if (error instanceof TelegramConflict) {
          // Again: another poller for this token (elsewhere, or a webhook). The lease is given up.
          waitedOut = false;
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
          await this.exchange.flush();
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
      await this.exchange.handle(update);
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
