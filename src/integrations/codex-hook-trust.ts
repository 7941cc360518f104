/**
 * Which of our hooks in a Codex hooks file need trusting, and the hash Codex computes for each: its
 * key is `<hooks file>:<event, snake_case>:<group>:<handler>`, its hash SHA-256 of the canonical JSON
 * of the event, the handler (with Codex's defaults: `async` false, `timeout` 600 s) and the group's
 * matcher (Codex leaves it out for events that take none). As codex 0.169.0 computes it.
 */
import { canonicalHash } from '../core/canonical-hash.js';
import { isOurHook } from './hook-commands.js';
import { readSettings } from './jsonc-settings.js';

/** Events whose groups Codex matches against nothing: their matcher is not hashed. */
const NO_MATCHER = new Set(['user_prompt_submit', 'stop']);

const snake = (event: string) => event.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/** Our hooks in `text` (the hooks file at the absolute path `file`), each with its trust key and hash. */
export function codexHookHashes(file: string, text: string): Array<{ key: string; hash: string }> {
  const hooks = readSettings(text, file).hooks;
  if (!hooks || typeof hooks !== 'object') return [];
  const out: Array<{ key: string; hash: string }> = [];
  for (const [event, groups] of Object.entries(hooks as Record<string, unknown>)) {
    if (!Array.isArray(groups)) continue;
    const label = snake(event);
    groups.forEach((group: { matcher?: unknown; hooks?: unknown }, g) => {
      if (!Array.isArray(group.hooks)) return;
      group.hooks.forEach((handler: Record<string, unknown>, h) => {
        if (!isOurHook(handler.command)) return;
        const identity = {
          event_name: label,
          hooks: [
            {
              type: handler.type ?? 'command',
              command: handler.command,
              timeout: handler.timeout ?? 600,
              async: handler.async ?? false,
              ...(handler.statusMessage !== undefined ? { statusMessage: handler.statusMessage } : {}),
            },
          ],
          ...(group.matcher !== undefined && !NO_MATCHER.has(label) ? { matcher: group.matcher } : {}),
        };
        out.push({ key: `${file}:${label}:${g}:${h}`, hash: canonicalHash(identity) });
      });
    });
  }
  return out;
}
