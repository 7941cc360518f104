import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { CollabError } from '../core/errors.js';

export const configSchema = z
  .object({
    inactive_after_minutes: z.number().positive().default(30),
    heartbeat_interval_seconds: z.number().positive().default(60),
    retention_days: z.number().positive().default(7),
    purge_interval_minutes: z.number().positive().default(60),
    toolsets: z.array(z.string()).min(1).default(['collab']),
    log_level: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  })
  .strict();

export type Config = z.infer<typeof configSchema>;

export const DEFAULT_CONFIG: Config = configSchema.parse({});

/** Reads config.json, creating it with the defaults on first run. Errors name the bad key. */
export function loadConfig(file: string): Config {
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(DEFAULT_CONFIG, null, 2)}\n`, { flag: 'wx' });
    return DEFAULT_CONFIG;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CollabError('CONFIG_ERROR', `${file} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      if (issue.code === 'unrecognized_keys')
        return `unknown key ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
      return `"${issue.path.join('.')}": ${issue.message}`;
    });
    throw new CollabError(
      'CONFIG_ERROR',
      `${file}: ${problems.join('; ')}`,
      `Valid keys: ${Object.keys(configSchema.shape).join(', ')}. Delete the file to get the defaults back.`,
    );
  }
  return parsed.data;
}
