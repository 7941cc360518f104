/**
 * What a relay asks again of the next machine's server when the one it was attached to died with
 * requests unanswered: those where asking again changes nothing (`askAgain`).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** A request of the client not answered yet: its line, when it came, whether a server has it. */
export interface Pending {
  line: string;
  at: number;
  sent: boolean;
}

/** What the relay knows of each tool to ask again: whether calling it twice changes nothing. */
export type ToolHints = Map<string, { again: boolean }>;

let hints: ToolHints | undefined;

/**
 * The tools' hints, read once from the build's tool-definitions.json (beside the bundles) when a
 * server first goes away: a read-only or idempotent tool may be asked again. Empty where the file
 * is not (from source): then only requests other than tool calls are.
 */
export function toolHints(): ToolHints {
  if (hints) return hints;
  hints = new Map();
  try {
    const file = join(dirname(__filename), 'tool-definitions.json');
    const definitions = JSON.parse(readFileSync(file, 'utf8')) as Record<
      string,
      { annotations?: { readOnlyHint?: boolean; idempotentHint?: boolean } }
    >;
    for (const [name, d] of Object.entries(definitions))
      hints.set(name, {
        again: d.annotations?.readOnlyHint === true || d.annotations?.idempotentHint === true,
      });
  } catch {
    // no build beside this bundle
  }
  return hints;
}

/**
 * A pending request as it is asked of the next server, or null where asking again could do twice
 * what the dead server may have done. A wait (`wait_seconds`) keeps its deadline: it is asked for
 * what is left of its time.
 */
export function askAgain(p: Pending, tools: ToolHints, now = Date.now()): string | null {
  const message = parse(p.line);
  if (!message || typeof message.method !== 'string') return null;
  if (message.method !== 'tools/call') return p.line;
  const params = message.params as { name?: unknown; arguments?: Record<string, unknown> } | undefined;
  if (typeof params?.name !== 'string' || tools.get(params.name)?.again !== true) return null;
  const wait = params.arguments?.wait_seconds;
  if (typeof wait !== 'number') return p.line;
  const left = Math.max(0, Math.floor(wait - (now - p.at) / 1000));
  return JSON.stringify({
    ...message,
    params: { ...params, arguments: { ...params.arguments, wait_seconds: left } },
  });
}

/** A line from the client or the server: what the relay needs to know of it. */
export interface Message {
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

/** A line as JSON-RPC, or null where it is none. */
export function parse(line: string): Message | null {
  try {
    const value = JSON.parse(line) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Message) : null;
  } catch {
    return null;
  }
}
