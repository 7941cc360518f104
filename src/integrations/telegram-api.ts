import { createRequire } from 'node:module';

/**
 * The Telegram Bot API calls the human toolset makes, through grammY's API client (loaded only
 * when a bot is configured). Plain text only (no parse mode: text from sessions is never read as
 * markup). The token never appears in an error or a log line.
 */

/** The parts of a Telegram update the bot reads. */
export interface TelegramUpdate {
  update_id: number;
  message?: TelegramMessage;
  callback_query?: {
    id: string;
    from: { id: number };
    data?: string;
    message?: { message_id: number; chat: { id: number } };
  };
}

export interface TelegramMessage {
  message_id: number;
  chat: { id: number };
  from?: { id: number };
  text?: string;
  reply_to_message?: { message_id: number };
}

export type Keyboard =
  | { inline: Array<Array<{ text: string; data: string }>> }
  | { forceReply: string }
  | { buttons: string[] };

export interface TelegramApi {
  getUpdates(offset: number, timeoutSeconds: number, signal: AbortSignal): Promise<TelegramUpdate[]>;
  /** Sends a message; its id. */
  send(chatId: number, text: string, keyboard?: Keyboard): Promise<number>;
  /** Replaces a message's text (and takes its buttons away). */
  edit(chatId: number, messageId: number, text: string): Promise<void>;
  answerCallback(id: string, text?: string): Promise<void>;
  deleteWebhook(): Promise<void>;
  setWebhook(url: string, secret: string): Promise<void>;
  /** The bot's user name: checks the token. */
  me(): Promise<string>;
}

/** Telegram answered 409 to getUpdates: another process polls this bot, or a webhook is set. */
export class TelegramConflict extends Error {}

/** An error from Telegram or the network, described without the token. */
export class TelegramError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

const MAX_TEXT = 4_000;

export function telegramApi(token: string, apiRoot: string): TelegramApi {
  // Required where it is installed (the bundle leaves it out: scripts/build.mjs), on first use.
  const { Api, GrammyError, HttpError } = createRequire(__filename)('grammy') as typeof import('grammy');
  // Every call ends within 10 s (a long poll asks for 5): the poller's lease (15 s) always
  // outlasts the poll it was renewed for, so no two processes ever poll at once.
  const api = new Api(token, { apiRoot: apiRoot.replace(/\/+$/, ''), timeoutSeconds: 10 });
  const markup = (k: Keyboard | undefined) => {
    if (!k) return {};
    if ('inline' in k)
      return {
        reply_markup: {
          inline_keyboard: k.inline.map((row) =>
            row.map((b) => ({ text: b.text.slice(0, 64), callback_data: b.data })),
          ),
        },
      };
    if ('forceReply' in k)
      return {
        reply_markup: { force_reply: true as const, input_field_placeholder: k.forceReply.slice(0, 64) },
      };
    return {
      reply_markup: {
        keyboard: [k.buttons.map((text) => ({ text }))],
        resize_keyboard: true,
        is_persistent: true,
      },
    };
  };
  const call = async <T>(method: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof GrammyError) {
        if (method === 'getUpdates' && error.error_code === 409)
          throw new TelegramConflict(error.description);
        throw new TelegramError(
          `Telegram ${method}: ${error.error_code} ${error.description}`,
          error.error_code,
        );
      }
      if (error instanceof HttpError) {
        const cause = error.error as { name?: string; code?: string; message?: string } | undefined;
        if (cause?.name === 'AbortError') throw error;
        throw new TelegramError(
          `Telegram ${method}: network error (${cause?.code ?? cause?.name ?? 'unknown'})`,
          null,
        );
      }
      throw error;
    }
  };
  return {
    getUpdates: (offset, timeout, signal) =>
      call('getUpdates', async () => {
        const updates = await api.getUpdates(
          { offset, timeout, allowed_updates: ['message', 'callback_query'] },
          // grammY types its signal as the abort-controller package's (for old Node); Node's is the same shape.
          signal as unknown as Parameters<typeof api.getUpdates>[1],
        );
        return updates as unknown as TelegramUpdate[];
      }),
    send: (chatId, text, keyboard) =>
      call(
        'sendMessage',
        async () => (await api.sendMessage(chatId, text.slice(0, MAX_TEXT), markup(keyboard))).message_id,
      ),
    edit: (chatId, messageId, text) =>
      call('editMessageText', async () => {
        await api.editMessageText(chatId, messageId, text.slice(0, MAX_TEXT));
      }),
    answerCallback: (id, text) =>
      call('answerCallbackQuery', async () => {
        await api.answerCallbackQuery(id, text ? { text: text.slice(0, 200) } : {});
      }),
    deleteWebhook: () =>
      call('deleteWebhook', async () => {
        await api.deleteWebhook();
      }),
    setWebhook: (url, secret) =>
      call('setWebhook', async () => {
        await api.setWebhook(url, { secret_token: secret, allowed_updates: ['message', 'callback_query'] });
      }),
    me: () => call('getMe', async () => (await api.getMe()).username),
  };
}
