import { isAbsolute } from 'node:path';
import { inline } from '../core/fence.js';
import { LIMITS } from '../core/limits.js';
import { MAX_ENV_CHARS, RELAY_ENDING, type RelayHello } from '../integrations/relay-address.js';

/** What a relay says to the machine's server (integrations/relay-address.ts), read as data from a client. */

/** Why the relay ended, when the last line it sent says so (`RELAY_ENDING`). */
export function endingReason(tail: string): string | null {
  const lines = tail.trimEnd().split('\n');
  try {
    const last = JSON.parse(lines.at(-1) ?? '') as { method?: unknown; params?: { reason?: unknown } };
    return last.method === RELAY_ENDING && typeof last.params?.reason === 'string'
      ? inline(last.params.reason, 40)
      : null;
  } catch {
    return null;
  }
}

/** The relay's hello, checked: null when the line is not one. */
export function helloOf(line: string): RelayHello | null {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (value === null || typeof value !== 'object' || value.relay !== 1) return null;
  const text = (v: unknown, max: number) =>
    typeof v === 'string' && v.length > 0 && v.length <= max ? v : null;
  const pid = value.pid;
  const cwd = text(value.cwd, 4096);
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 1) return null;
  if (cwd === null || !isAbsolute(cwd)) return null;
  // One order, no repeats: the server keeps one selection per distinct choice.
  const toolsets = Array.isArray(value.toolsets)
    ? [
        ...new Set(
          value.toolsets.filter((t): t is string => typeof t === 'string' && t.length <= 40).slice(0, 20),
        ),
      ].sort()
    : null;
  return {
    relay: 1,
    pid,
    cwd,
    client_session_id: text(value.client_session_id, LIMITS.clientSessionIdChars),
    name: inline(text(value.name, 200) ?? '', 100) || null,
    toolsets,
    read_only: value.read_only === true,
    env: envOf(value.env),
  };
}

/** The client's environment as its relay sent it: strings only, bounded; empty when none. */
function envOf(value: unknown): Record<string, string> {
  const env: Record<string, string> = {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return env;
  let size = 0;
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v !== 'string') continue;
    size += key.length + v.length;
    if (size > MAX_ENV_CHARS) break;
    env[key] = v;
  }
  return env;
}
