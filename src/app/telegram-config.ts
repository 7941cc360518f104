/**
 * The Telegram settings: config.json's `telegram` object, checked, with the environment's
 * SESSION_COLLAB_TELEGRAM_* variables over it.
 */
import { CollabError } from '../core/errors.js';

export interface TelegramConfig {
  /** From @BotFather; none: Telegram is off. */
  bot_token: string | null;
  /** Telegram user ids that may answer; anyone else is ignored. */
  allowed_user_ids: number[];
  /** The Bot API's address (tests point it at a local fake). */
  api_root: string;
  /** `polling` (getUpdates, the default) or `webhook` (Telegram calls `webhook_url`). */
  mode: 'polling' | 'webhook';
  /** The public https address Telegram posts updates to (a reverse proxy in front of `webhook_listen`). */
  webhook_url: string | null;
  /** Checked against the X-Telegram-Bot-Api-Secret-Token header of every webhook call. */
  webhook_secret: string | null;
  /** Where the process that holds the bot listens for those posts: host:port. */
  webhook_listen: string;
}

export const DEFAULT_TELEGRAM: TelegramConfig = {
  bot_token: null,
  allowed_user_ids: [],
  api_root: 'https://api.telegram.org',
  mode: 'polling',
  webhook_url: null,
  webhook_secret: null,
  webhook_listen: '127.0.0.1:8788',
};

const TELEGRAM_KEYS = Object.keys(DEFAULT_TELEGRAM);

/**
 * The Telegram settings in force: config.json's, with SESSION_COLLAB_TELEGRAM_BOT_TOKEN,
 * SESSION_COLLAB_TELEGRAM_ALLOWED_USER_IDS (comma-separated) and SESSION_COLLAB_TELEGRAM_API_ROOT
 * taking precedence (a token kept out of files). A bad value in the environment is a CONFIG_ERROR
 * naming the variable.
 */
export function telegramSettings(
  config: { telegram: TelegramConfig },
  env: NodeJS.ProcessEnv = process.env,
): TelegramConfig {
  const merged: Record<string, unknown> = { ...config.telegram };
  if (env.SESSION_COLLAB_TELEGRAM_BOT_TOKEN) merged.bot_token = env.SESSION_COLLAB_TELEGRAM_BOT_TOKEN.trim();
  if (env.SESSION_COLLAB_TELEGRAM_ALLOWED_USER_IDS)
    merged.allowed_user_ids = env.SESSION_COLLAB_TELEGRAM_ALLOWED_USER_IDS.split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map(Number);
  if (env.SESSION_COLLAB_TELEGRAM_API_ROOT) merged.api_root = env.SESSION_COLLAB_TELEGRAM_API_ROOT.trim();
  const bad = telegramProblem(merged);
  if (bad)
    throw new CollabError(
      'CONFIG_ERROR',
      `Telegram settings (config.json "telegram" and SESSION_COLLAB_TELEGRAM_* variables): ${bad}`,
    );
  return merged as unknown as TelegramConfig;
}

export function telegramProblem(value: unknown): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return '"telegram" must be an object (bot_token, allowed_user_ids, …)';
  const t = value as Record<string, unknown>;
  const unknown = Object.keys(t).filter((k) => !TELEGRAM_KEYS.includes(k));
  if (unknown.length > 0) return `unknown key "telegram.${unknown[0]}" (valid: ${TELEGRAM_KEYS.join(', ')})`;
  if (
    t.bot_token !== undefined &&
    t.bot_token !== null &&
    !(typeof t.bot_token === 'string' && /^\d+:[\w-]+$/.test(t.bot_token))
  )
    return '"telegram.bot_token" must be the token @BotFather gave (digits, a colon, then letters)';
  if (
    t.allowed_user_ids !== undefined &&
    !(
      Array.isArray(t.allowed_user_ids) &&
      t.allowed_user_ids.every((id) => Number.isSafeInteger(id) && id > 0)
    )
  )
    return '"telegram.allowed_user_ids" must be a list of Telegram user ids (numbers)';
  if (t.api_root !== undefined && !(typeof t.api_root === 'string' && /^https?:\/\/[^\s]+$/.test(t.api_root)))
    return '"telegram.api_root" must be an http(s) address';
  if (t.mode !== undefined && t.mode !== 'polling' && t.mode !== 'webhook')
    return '"telegram.mode" must be "polling" or "webhook"';
  for (const key of ['webhook_url', 'webhook_secret', 'webhook_listen'])
    if (t[key] !== undefined && t[key] !== null && typeof t[key] !== 'string')
      return `"telegram.${key}" must be a string`;
  if (
    t.webhook_listen !== undefined &&
    !(typeof t.webhook_listen === 'string' && /^[^\s:]+:\d{1,5}$/.test(t.webhook_listen))
  )
    return '"telegram.webhook_listen" must be host:port, e.g. "127.0.0.1:8788"';
  if (t.mode === 'webhook') {
    if (typeof t.webhook_url !== 'string' || !/^https?:\/\/\S+$/.test(t.webhook_url))
      return '"telegram.mode" webhook needs "webhook_url": the public address Telegram posts to';
    if (typeof t.webhook_secret !== 'string' || !/^[A-Za-z0-9_-]{16,256}$/.test(t.webhook_secret))
      return '"telegram.webhook_secret" must be 16 to 256 letters, digits, _ or - (Telegram\'s rule)';
  }
  return null;
}
