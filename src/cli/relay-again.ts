/**
 * What a relay asks again of the next machine's server when the one it was attached to died with
 * requests unanswered (`askAgain`).
 */
import { SENT_AGAIN, WAITED_MS } from '../integrations/relay-address.js';

/** A request of the client not answered yet: its line, when it came, whether a server has it. */
export interface Pending {
  line: string;
  at: number;
  sent: boolean;
}

/**
 * A pending request as it is asked of the next server: every one is. A tool call is marked as sent
 * again (`SENT_AGAIN` in its `_meta`), so that the writes the dead server made for it are answered
 * from their records rather than done twice, with how long it has waited since the client sent it
 * (`WAITED_MS`): a wait keeps its deadline, the server asking it for what is left of its time (of
 * the `wait_seconds` given, or of the tool's default, which only the server knows). Null for a line
 * that is no request.
 */
export function askAgain(p: Pending, now = Date.now()): string | null {
  const message = parse(p.line);
  if (!message || typeof message.method !== 'string') return null;
  if (message.method !== 'tools/call') return p.line;
  const params = (message.params ?? {}) as { _meta?: Record<string, unknown> };
  const again = {
    ...params,
    _meta: { ...params._meta, [SENT_AGAIN]: true, [WAITED_MS]: Math.max(0, now - p.at) },
  };
  return JSON.stringify({ ...message, params: again });
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

/** How the machine's server begins a response: its id (JSON), then its result or error. */
const RESPONSE_START = /^\{"jsonrpc":"2\.0","id":(-?\d+|"(?:[^"\\]|\\.)*"),"(?:result|error)":/;

/**
 * The id (as JSON) of a line from the server that is a response, read from its start as the server
 * writes responses, without parsing the rest (a result may be long); by parsing it otherwise. Null
 * for a line that is no response (a notification, a request of the server's).
 */
export function responseId(line: string): string | null {
  const start = RESPONSE_START.exec(line);
  if (start) return start[1]!;
  const message = parse(line);
  return message && message.method === undefined && message.id !== undefined
    ? JSON.stringify(message.id)
    : null;
}
