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
}

type Rule =
  | { kind: 'range'; min: number; max: number; unit: string }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'strings' }
  | { kind: 'boolean' }
  | { kind: 'limits' }
  | { kind: 'paths' };

/**
 * Ranges keep a setting from switching protection off (a session inactive after a microsecond) or
 * turning a timer into a busy loop.
 */
const RULES: { [K in keyof Config]: Rule } = {
  inactive_after_minutes: { kind: 'range', min: 1, max: 7 * 24 * 60, unit: 'minutes' },
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
  }
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
    else config[key] = value;
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
