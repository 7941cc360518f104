import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, loadConfig } from '../../src/app/config.js';
import { resolveHome } from '../../src/app/home.js';
import type { CollabError } from '../../src/core/errors.js';
import { tempDir } from '../helpers/temp.js';

describe('config.json', () => {
  it('is created with the defaults on first run', () => {
    const file = join(tempDir(), 'nested', 'config.json');
    expect(loadConfig(file)).toEqual(DEFAULT_CONFIG);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(DEFAULT_CONFIG);
  });

  it('fills missing keys with defaults', () => {
    const file = join(tempDir(), 'config.json');
    writeFileSync(file, JSON.stringify({ inactive_after_minutes: 5 }));
    expect(loadConfig(file)).toEqual({ ...DEFAULT_CONFIG, inactive_after_minutes: 5 });
  });

  it.each([
    [{ inactive_minutes: 5 }, 'unknown key "inactive_minutes"'],
    [{ retention_days: -1 }, '"retention_days" must be a number of days from 1 to 3650'],
    [
      { inactive_after_minutes: 1e-12 },
      '"inactive_after_minutes" must be a number of minutes from 0.25 to 10080',
    ],
    [
      { heartbeat_interval_seconds: 1e-9 },
      '"heartbeat_interval_seconds" must be a number of seconds from 1 to 3600',
    ],
    [
      { inactive_after_minutes: 1, heartbeat_interval_seconds: 45 },
      'at most half of "inactive_after_minutes"',
    ],
    [{ toolsets: [] }, '"toolsets" must be a non-empty list'],
    [{ enforcement: 'block' }, '"enforcement" must be one of "deny", "ask", "warn"'],
    [{ log_level: 'loud' }, '"log_level"'],
    [{ lock_wait_seconds: 0 }, '"lock_wait_seconds" must be a number of seconds from 1 to 60'],
    [{ limits: { intent_chars: 5 } }, '"limits.intent_chars" must be a whole number from 100 to 100000'],
    [{ limits: { intent: 500 } }, 'unknown limit "limits.intent"'],
    [{ limits: [] }, '"limits" must be an object'],
  ])('names the bad key in %j', (content, expected) => {
    const file = join(tempDir(), 'config.json');
    writeFileSync(file, JSON.stringify(content));
    expect(() => loadConfig(file)).toThrow(expected);
    try {
      loadConfig(file);
    } catch (error) {
      expect((error as CollabError).code).toBe('CONFIG_ERROR');
      expect((error as CollabError).hint).toContain('inactive_after_minutes');
    }
  });

  it('reports invalid JSON', () => {
    const file = join(tempDir(), 'config.json');
    writeFileSync(file, '{ nope');
    expect(() => loadConfig(file)).toThrow(/not valid JSON/);
  });
});

describe('home folder', () => {
  it('honours SESSION_COLLAB_HOME, then AI_COLLAB_STORAGE_DIR, then XDG_CONFIG_HOME', () => {
    expect(resolveHome({ SESSION_COLLAB_HOME: '/x/h' }).database).toBe('/x/h/registry.db');
    expect(resolveHome({ XDG_CONFIG_HOME: '/x/c' }).home).toBe('/x/c/session-collab-mcp');
    expect(resolveHome({ AI_COLLAB_STORAGE_DIR: '/x/ai', XDG_CONFIG_HOME: '/x/c' }).home).toBe('/x/ai');
    expect(resolveHome({ SESSION_COLLAB_HOME: '/x/h', AI_COLLAB_STORAGE_DIR: '/x/ai' }).home).toBe('/x/h');
    expect(resolveHome({}).log).toMatch(/\.config\/session-collab-mcp\/logs\/collab\.log$/);
  });
});
