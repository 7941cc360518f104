import {
  type CallToolResult,
  type JSONRPCMessage,
  ProtocolErrorCode,
  type Transport,
} from '@modelcontextprotocol/server';
import { SENT_AGAIN, WAITED_MS } from '../integrations/relay-address.js';
import type { CollabServer, DirectToolCall } from './server.js';

/**
 * Protocol revisions whose `tools/call` result goes on the wire as the server made it (the SDK's
 * result encoding is the identity for them): those a client negotiates with `initialize`.
 */
const PLAIN_RESULT_REVISION = /^20(24|25)-/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const only = (value: Record<string, unknown>, keys: readonly string[]) =>
  Object.keys(value).every((key) => keys.includes(key));

/**
 * `message` as a `tools/call` request of the plainest shape, or null: the SDK judges every other
 * (and refuses what its schema does: an id that is no string or safe integer, a member more, a
 * progress token that is neither). What passes is a request the protocol's schema takes as it is.
 */
export function plainToolCall(message: unknown): DirectToolCall | null {
  if (!isObject(message) || message.method !== 'tools/call' || message.jsonrpc !== '2.0') return null;
  if (!only(message, ['jsonrpc', 'id', 'method', 'params'])) return null;
  if (typeof message.id !== 'string' && !Number.isSafeInteger(message.id)) return null;
  const params = message.params;
  if (!isObject(params) || typeof params.name !== 'string') return null;
  if (!only(params, ['name', 'arguments', '_meta'])) return null;
  if (params.arguments !== undefined && !isObject(params.arguments)) return null;
  const meta = params._meta;
  if (meta !== undefined) {
    // Only the members whose schema is this: other keys of `_meta` (a related task's, say) have
    // their own checks in the SDK.
    if (!isObject(meta) || !only(meta, ['progressToken', SENT_AGAIN, WAITED_MS])) return null;
    const token = meta.progressToken;
    if (token !== undefined && typeof token !== 'string' && !Number.isSafeInteger(token)) return null;
    if (meta[SENT_AGAIN] !== undefined && typeof meta[SENT_AGAIN] !== 'boolean') return null;
    if (meta[WAITED_MS] !== undefined && typeof meta[WAITED_MS] !== 'number') return null;
  }
  return message as unknown as DirectToolCall;
}

/**
 * What is wrong with a `tools/call` request whose params the protocol's schema refuses (a name
 * that is no string, arguments that are no object), or null. The SDK would answer it as an
 * internal error whose message is its schema's report; it is the client's mistake, said plainly.
 */
export function badToolCall(message: unknown): string | null {
  if (!isObject(message) || message.method !== 'tools/call' || message.jsonrpc !== '2.0') return null;
  if (typeof message.id !== 'string' && !Number.isSafeInteger(message.id)) return null;
  const params = message.params;
  const kind = (value: unknown) =>
    Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
  if (!isObject(params))
    return `params must be an object with the tool's name and arguments; got ${kind(params)}.`;
  if (typeof params.name !== 'string')
    return `params.name must be the tool's name, a string; got ${params.name === undefined ? 'none' : kind(params.name)}.`;
  if (params.arguments !== undefined && !isObject(params.arguments))
    return `params.arguments must be an object of the tool's arguments; got ${kind(params.arguments)}.`;
  return null;
}

/** A failure as the SDK answers one: its code and data where it has them. */
function errorResponse(id: string | number, error: unknown): JSONRPCMessage {
  const e = (isObject(error) ? error : {}) as { code?: unknown; message?: unknown; data?: unknown };
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: Number.isSafeInteger(e.code) ? (e.code as number) : ProtocolErrorCode.InternalError,
      message: typeof e.message === 'string' && e.message ? e.message : 'Internal error',
      ...(e.data !== undefined ? { data: e.data } : {}),
    },
  };
}

/**
 * The answer to `message` worked out without the SDK's machinery for each request (its era checks,
 * a request context with an abort controller and senders, the result's encoding): under 8 clients
 * that machinery was an eighth of the machine server's time per call (docs/benchmarks.md). Only on
 * a connection that negotiated a revision whose results go out as made (with `initialize`), for a
 * request of the plainest shape (a name, arguments, `_meta`) of a tool that does not wait; null for
 * everything else, which the SDK answers as before: the handshake, the listing, tools that wait
 * (their progress, cancellation and forms are its), bad requests and their errors.
 */
export function answerDirectly(
  server: CollabServer | undefined,
  message: unknown,
): { id: string | number; response: Promise<JSONRPCMessage> } | null {
  const version = server?.getNegotiatedProtocolVersion();
  if (!server || version === undefined || !PLAIN_RESULT_REVISION.test(version)) return null;
  const bad = badToolCall(message);
  if (bad !== null) {
    const id = (message as { id: string | number }).id;
    return {
      id,
      response: Promise.resolve({
        jsonrpc: '2.0',
        id,
        error: { code: ProtocolErrorCode.InvalidParams, message: `Invalid params: ${bad}` },
      }),
    };
  }
  const request = plainToolCall(message);
  const answer = request ? server.direct(request) : null;
  if (!request || !answer) return null;
  return {
    id: request.id,
    response: answer.then(
      (result: CallToolResult): JSONRPCMessage => ({ jsonrpc: '2.0', id: request.id, result }),
      (error: unknown) => errorResponse(request.id, error),
    ),
  };
}

/**
 * Answers `wire`'s calls of tools that do not wait straight from the transport (`answerDirectly`),
 * a call the client cancels meanwhile not at all. Installed after the SDK took the transport
 * (`serveStdio`): messages reach it first, and what it does not answer goes on to the SDK.
 */
export function answerToolCallsDirectly(
  wire: Transport,
  server: () => CollabServer | undefined,
  onerror: (error: Error) => void,
): void {
  const toSdk = wire.onmessage;
  /** Calls answered here still running, by id: true once the client cancelled one (no answer then). */
  const running = new Map<string | number, boolean>();
  wire.onmessage = (message, extra) => {
    const m = message as { method?: unknown; params?: { requestId?: unknown } };
    if (m.method === 'notifications/cancelled') {
      const id = m.params?.requestId as string | number;
      if (running.has(id)) running.set(id, true);
    } else if (extra === undefined && !running.has((message as { id?: string | number }).id ?? '')) {
      const direct = answerDirectly(server(), message);
      if (direct) {
        running.set(direct.id, false);
        void direct.response
          .then((response) => {
            const cancelled = running.get(direct.id);
            running.delete(direct.id);
            return cancelled ? undefined : wire.send(response);
          })
          // A client that went away meanwhile hears nothing; the failure is told, as the SDK tells its own.
          .catch((error: unknown) =>
            onerror(new Error(`Failed to send a response: ${(error as Error)?.message ?? String(error)}`)),
          );
        return;
      }
    }
    toSdk?.(message, extra);
  };
}
