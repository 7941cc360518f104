import {
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { CollabError } from '../core/errors.js';
import { checkLimits } from '../core/limits.js';
import { describeStorageFault } from '../core/storage-faults.js';
import { DEFAULT_TELEGRAM, type TelegramConfig, telegramProblem } from './telegram-config.js';

/**
 * The settings in config.json. Validated by hand rather than with zod: config is read by every
 * process, including the hook that runs on every edit, where loading zod would cost more than
 * the whole check.
 */
export interface Config {
  inactive_after_minutes: number;
  heartbeat_interval_seconds: number;
  retention_days: number;
  purge_interval_minutes: number;
  toolsets: string[];
  log_level: 'debug' | 'info' | 'warn' | 'error';
  enforcement: 'deny' | 'ask' | 'warn';
  /** What the editor hooks do when they cannot decide (the database is locked, a fault): never silent. */
  enforcement_on_error: 'allow' | 'ask' | 'deny';
  realm_scan_seconds: number;
  /** How long a request waits for another process's write lock before answering DB_BUSY. */
  lock_wait_seconds: number;
  review_require_approval: boolean;
  review_allow_self_review: boolean;
  review_auto_approve: boolean;
  review_auto_approve_max_lines: number;
  /** Realm folders this machine works with besides those registered with `realm init|register`. */
  realms: string[];
  /** Limits on what one request may ask, by name (docs/limits.md); unset ones keep their defaults. */
  limits: Record<string, number>;
  /** How long ask_human waits for an answer when the call does not say (human toolset). */
  human_wait_seconds: number;
  /** The longest a call waits for an answer, whatever it asks (clients cut calls at 60–120 s). */
  human_max_wait_seconds: number;
  /** Whether a question is also put to the person in the client, when the client can show a form. */
  human_elicitation: boolean;
  /** Pending questions expire after this many minutes; 0: never. */
  question_expiry_minutes: number;
  /**
   * How many times in a row the turn-end hook may send an agent back with news before its turn
   * ends all the same (the news then waits for its next turn); 0: never.
   */
  turn_end_continuations: number;
  /**
   * How long an idle session (its turn ended) is watched for news that wakes it, where its client
   * can be woken (Claude Code); 0: never woken.
   */
  wake_idle_minutes: number;
  /** Audit files of sessions silent this long are archived. */
  audit_archive_after_hours: number;
  /** The Telegram bot that carries questions to a phone (env SESSION_COLLAB_TELEGRAM_* overrides). */
  telegram: TelegramConfig;
  /** Other agent CLIs run as sub-workers (agent toolset). */
  agents: AgentsConfig;
  /** The HTTP hub (`session-collab hub`, `npm start`). */
  hub: HubConfig;
  /** The team database (PostgreSQL) instead of the embedded one; SESSION_COLLAB_DATABASE_URL overrides. */
  database_url: string | null;
  /**
   * Connections a hub replica keeps to the team database at most (besides one that listens);
   * `serve --in-process` and the commands keep two (a `serve` relay none: its machine's server has
   * them). Replicas and machine servers × (this + 1), plus 3 per in-process `serve`, must stay under
   * the server's max_connections.
   */
  database_pool_size: number;
}

export interface HubConfig {
  /** Where the hub listens: host:port. A non-loopback host needs tokens (`session-collab token create`). */
  listen: string;
  /** Host names besides localhost the hub answers to (Host and Origin are checked on every request). */
  allowed_hosts: string[];
  /** The largest request body accepted. */
  max_body_kib: number;
  /** How long a client may take to send a whole request (headers and body); 408 past it. */
  request_timeout_seconds: number;
  /** Requests one agent (token, or MCP session when there are no tokens) may make per second, sustained. */
  requests_per_second: number;
  /** Requests one agent may make at once above that rate. */
  burst: number;
  /** An MCP session quiet this long is let go from memory (it is taken up again on its next request). */
  session_idle_minutes: number;
  /**
   * The machine's server, when a client's `serve` started it, exits after this long with no client
   * attached and no dashboard open (a hub started on purpose stays).
   */
  idle_exit_minutes: number;
}

export const DEFAULT_HUB: HubConfig = {
  listen: '127.0.0.1:8787',
  allowed_hosts: [],
  max_body_kib: 1024,
  request_timeout_seconds: 30,
  requests_per_second: 50,
  burst: 200,
  session_idle_minutes: 10,
  idle_exit_minutes: 5,
};

const HUB_RULES: Record<keyof HubConfig, Rule> = {
  listen: { kind: 'listen' },
  allowed_hosts: { kind: 'names' },
  max_body_kib: { kind: 'range', min: 16, max: 65_536, unit: 'KiB' },
  request_timeout_seconds: { kind: 'range', min: 1, max: 3_600, unit: 'seconds' },
  requests_per_second: { kind: 'range', min: 1, max: 100_000, unit: 'requests' },
  burst: { kind: 'range', min: 1, max: 1_000_000, unit: 'requests' },
  session_idle_minutes: { kind: 'range', min: 1, max: 1_440, unit: 'minutes' },
  idle_exit_minutes: { kind: 'range', min: 1, max: 1_440, unit: 'minutes' },
};

export interface AgentsConfig {
  /** Conversations run at once (calls on one conversation always run in order). */
  max_parallel: number;
  /** A run is ended (its whole process group) after this long. */
  timeout_seconds: number;
  /** Output read from a run at most; the rest is cut and the cut reported. */
  output_chars: number;
  /** What claude may do unasked: its --permission-mode. */
  claude_permission_mode: 'default' | 'acceptEdits' | 'plan' | 'bypassPermissions';
  /** What codex may touch: its --sandbox. */
  codex_sandbox: 'read-only' | 'workspace-write' | 'danger-full-access';
  /** What gemini may do unasked: its --approval-mode. */
  gemini_approval_mode: 'default' | 'auto_edit' | 'yolo';
}

export const DEFAULT_AGENTS: AgentsConfig = {
  max_parallel: 2,
  timeout_seconds: 300,
  output_chars: 1_000_000,
  claude_permission_mode: 'acceptEdits',
  codex_sandbox: 'workspace-write',
  gemini_approval_mode: 'auto_edit',
};

const AGENT_RULES: Record<keyof AgentsConfig, Rule> = {
  max_parallel: { kind: 'range', min: 1, max: 16, unit: 'runs' },
  timeout_seconds: { kind: 'range', min: 2, max: 3_600, unit: 'seconds' },
  output_chars: { kind: 'range', min: 10_000, max: 10_000_000, unit: 'characters' },
  claude_permission_mode: { kind: 'enum', values: ['default', 'acceptEdits', 'plan', 'bypassPermissions'] },
  codex_sandbox: { kind: 'enum', values: ['read-only', 'workspace-write', 'danger-full-access'] },
  gemini_approval_mode: { kind: 'enum', values: ['default', 'auto_edit', 'yolo'] },
};

type Rule =
  | { kind: 'range'; min: number; max: number; unit: string }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'strings' }
  | { kind: 'boolean' }
  | { kind: 'limits' }
  | { kind: 'paths' }
  | { kind: 'telegram' }
  | { kind: 'listen' }
  | { kind: 'databaseUrl' }
  | { kind: 'names' }
  | { kind: 'section'; rules: Record<string, Rule> };

/**
 * Ranges keep a setting from switching protection off (a session inactive after a microsecond) or
 * turning a timer into a busy loop.
 */
const RULES: { [K in keyof Config]: Rule } = {
  inactive_after_minutes: { kind: 'range', min: 0.25, max: 7 * 24 * 60, unit: 'minutes' },
  heartbeat_interval_seconds: { kind: 'range', min: 1, max: 3600, unit: 'seconds' },
  retention_days: { kind: 'range', min: 1, max: 3650, unit: 'days' },
  purge_interval_minutes: { kind: 'range', min: 1, max: 7 * 24 * 60, unit: 'minutes' },
  toolsets: { kind: 'strings' },
  log_level: { kind: 'enum', values: ['debug', 'info', 'warn', 'error'] },
  enforcement: { kind: 'enum', values: ['deny', 'ask', 'warn'] },
  enforcement_on_error: { kind: 'enum', values: ['allow', 'ask', 'deny'] },
  realm_scan_seconds: { kind: 'range', min: 5, max: 86_400, unit: 'seconds' },
  lock_wait_seconds: { kind: 'range', min: 1, max: 60, unit: 'seconds' },
  review_require_approval: { kind: 'boolean' },
  review_allow_self_review: { kind: 'boolean' },
  review_auto_approve: { kind: 'boolean' },
  review_auto_approve_max_lines: { kind: 'range', min: 1, max: 1_000_000, unit: 'lines' },
  realms: { kind: 'paths' },
  limits: { kind: 'limits' },
  human_wait_seconds: { kind: 'range', min: 0, max: 110, unit: 'seconds' },
  human_max_wait_seconds: { kind: 'range', min: 1, max: 110, unit: 'seconds' },
  human_elicitation: { kind: 'boolean' },
  question_expiry_minutes: { kind: 'range', min: 0, max: 30 * 24 * 60, unit: 'minutes' },
  turn_end_continuations: { kind: 'range', min: 0, max: 10, unit: 'continuations' },
  wake_idle_minutes: { kind: 'range', min: 0, max: 24 * 60, unit: 'minutes' },
  audit_archive_after_hours: { kind: 'range', min: 1, max: 30 * 24, unit: 'hours' },
  telegram: { kind: 'telegram' },
  agents: { kind: 'section', rules: AGENT_RULES },
  hub: { kind: 'section', rules: HUB_RULES },
  database_url: { kind: 'databaseUrl' },
  database_pool_size: { kind: 'range', min: 1, max: 100, unit: 'connections' },
};

export const DEFAULT_CONFIG: Config = {
  inactive_after_minutes: 30,
  heartbeat_interval_seconds: 60,
  retention_days: 7,
  purge_interval_minutes: 60,
  toolsets: ['collab'],
  log_level: 'info',
  enforcement: 'deny',
  enforcement_on_error: 'ask',
  realm_scan_seconds: 60,
  lock_wait_seconds: 10,
  review_require_approval: true,
  review_allow_self_review: false,
  review_auto_approve: false,
  review_auto_approve_max_lines: 20,
  realms: [],
  limits: {},
  human_wait_seconds: 45,
  human_max_wait_seconds: 110,
  human_elicitation: true,
  question_expiry_minutes: 0,
  turn_end_continuations: 3,
  wake_idle_minutes: 60,
  audit_archive_after_hours: 24,
  telegram: DEFAULT_TELEGRAM,
  agents: DEFAULT_AGENTS,
  hub: DEFAULT_HUB,
  database_url: null,
  database_pool_size: 10,
};

export const CONFIG_KEYS = Object.keys(RULES) as Array<keyof Config>;

function problem(key: string, rule: Rule, value: unknown): string | null {
  switch (rule.kind) {
    case 'range':
      return typeof value === 'number' && Number.isFinite(value) && value >= rule.min && value <= rule.max
        ? null
        : `"${key}" must be a number of ${rule.unit} from ${rule.min} to ${rule.max}`;
    case 'enum':
      return typeof value === 'string' && rule.values.includes(value)
        ? null
        : `"${key}" must be one of ${rule.values.map((v) => `"${v}"`).join(', ')}`;
    case 'boolean':
      return typeof value === 'boolean' ? null : `"${key}" must be true or false`;
    case 'limits': {
      const problems = checkLimits(value);
      return problems.length === 0 ? null : problems.join('; ');
    }
    case 'paths':
      return Array.isArray(value) && value.every((v) => typeof v === 'string' && v.length > 0)
        ? null
        : `"${key}" must be a list of folder paths`;
    case 'strings':
      return Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')
        ? null
        : `"${key}" must be a non-empty list of strings`;
    case 'telegram':
      return telegramProblem(value);
    case 'listen':
      return typeof value === 'string' && /^(\[[0-9a-fA-F:]+\]|[^\s:]+):\d{1,5}$/.test(value)
        ? null
        : `"${key}" must be host:port, e.g. "127.0.0.1:8787"`;
    case 'databaseUrl':
      return value === null || (typeof value === 'string' && DATABASE_URL.test(value))
        ? null
        : `"${key}" must be null or a PostgreSQL URL (postgres://user@host:5432/database)`;
    case 'names':
      return Array.isArray(value) && value.every((v) => typeof v === 'string' && /^[^\s/]+$/.test(v))
        ? null
        : `"${key}" must be a list of host names`;
    case 'section': {
      const keys = Object.keys(rule.rules);
      if (value === null || typeof value !== 'object' || Array.isArray(value))
        return `"${key}" must be an object (${keys.join(', ')})`;
      for (const [k, v] of Object.entries(value)) {
        const inner = rule.rules[k];
        if (!inner) return `unknown key "${key}.${k}" (valid: ${keys.join(', ')})`;
        const bad = problem(`${key}.${k}`, inner, v);
        if (bad) return bad;
      }
      return null;
    }
  }
}

const DATABASE_URL = /^postgres(ql)?:\/\/\S+$/;

/**
 * The team database's URL: SESSION_COLLAB_DATABASE_URL, else config.json's `database_url`; null
 * for the embedded SQLite database. A malformed URL in the environment is a CONFIG_ERROR.
 */
export function databaseUrl(config: Config, env: NodeJS.ProcessEnv = process.env): string | null {
  const fromEnv = env.SESSION_COLLAB_DATABASE_URL?.trim();
  if (fromEnv) {
    if (!DATABASE_URL.test(fromEnv))
      throw new CollabError(
        'CONFIG_ERROR',
        'SESSION_COLLAB_DATABASE_URL must be a PostgreSQL URL (postgres://user@host:5432/database).',
      );
    return fromEnv;
  }
  return config.database_url;
}

/** Checks a parsed config.json; missing keys take their defaults. Errors name every bad key. */
export function parseConfig(raw: unknown, file: string): Config {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new CollabError('CONFIG_ERROR', `${file} must hold a JSON object.`);
  }
  const problems: string[] = [];
  const config: Record<string, unknown> = { ...DEFAULT_CONFIG };
  for (const [key, value] of Object.entries(raw)) {
    const rule = RULES[key as keyof Config];
    if (!rule) {
      problems.push(`unknown key "${key}"`);
      continue;
    }
    const bad = problem(key, rule, value);
    if (bad) problems.push(bad);
    else
      config[key] =
        rule.kind === 'telegram'
          ? { ...DEFAULT_TELEGRAM, ...(value as object) }
          : rule.kind === 'section'
            ? { ...(DEFAULT_CONFIG[key as keyof Config] as object), ...(value as object) }
            : value;
  }
  const beat = config.heartbeat_interval_seconds as number;
  const inactive = (config.inactive_after_minutes as number) * 60;
  if (problems.length === 0 && beat * 2 > inactive)
    problems.push(
      `"heartbeat_interval_seconds" (${beat}) must be at most half of "inactive_after_minutes" in seconds (${inactive}), or live sessions would look inactive`,
    );
  if (problems.length > 0) {
    throw new CollabError(
      'CONFIG_ERROR',
      `${file}: ${problems.join('; ')}`,
      `Valid keys: ${CONFIG_KEYS.join(', ')}. Delete the file to get the defaults back.`,
    );
  }
  return config as unknown as Config;
}

/**
 * Reads config.json, creating it with the defaults on first run. The file appears whole or not at
 * all: it is written under a temporary name and linked into place, which fails if another process
 * got there first (then theirs is read). Many processes may start together on a fresh home.
 */
export function loadConfig(file: string): Config {
  if (!existsSync(file)) {
    const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
    try {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(temp, `${JSON.stringify(DEFAULT_CONFIG, null, 2)}\n`);
    } catch (error) {
      if (existsSync(temp)) unlinkSync(temp);
      // Without a config file the defaults hold; a read-only or full disk is the database's to report.
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EROFS' || code === 'ENOSPC' || code === 'EPERM')
        return DEFAULT_CONFIG;
      throw describeStorageFault(error, file) ?? error;
    }
    try {
      linkSync(temp, file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // EEXIST: another process created it first, read theirs. A file system without hard links
      // gets a rename: still whole, though a simultaneous first start may write it twice.
      if (code !== 'EEXIST' && code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw error;
      if (code !== 'EEXIST' && !existsSync(file)) renameSync(temp, file);
    } finally {
      if (existsSync(temp)) unlinkSync(temp);
    }
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CollabError('CONFIG_ERROR', `${file} is not valid JSON: ${(error as Error).message}`);
  }
  return parseConfig(raw, file);
}
