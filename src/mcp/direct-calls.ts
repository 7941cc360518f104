import { type JSONRPCMessage, ProtocolErrorCode, type Transport } from '@modelcontextprotocol/server';
import type { CollabServer, DirectToolCall } from './server.js';

/**
 * Protocol revisions whose `tools/call` result goes on the wire as the server made it (the SDK's
 * result encoding is the identity for them): those a client negotiates with `initialize`.
 */
const PLAIN_RESULT_REVISION = /^20(24|25)-/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** `message` as a `tools/call` request of the plainest shape, or null: the SDK judges every other. */
function toolCall(message: JSONRPCMessage): DirectToolCall | null {
  const m = message as Record<string, unknown>;
  if (m.method !== 'tools/call' || m.jsonrpc !== '2.0') return null;
  if (typeof m.id !== 'string' && typeof m.id !== 'number') return null;
  const params = m.params;
  if (!isObject(params) || typeof params.name !== 'string') return null;
  for (const key of Object.keys(params))
    if (key !== 'name' && key !== 'arguments' && key !== '_meta') return null;
  if (params.arguments !== undefined && !isObject(params.arguments)) return null;
  if (params._meta !== undefined && !isObject(params._meta)) return null;
  return m as unknown as DirectToolCall;
}

/**
 * Answers `wire`'s calls of tools that do not wait straight from the transport, without the SDK's
 * machinery for each request (its era checks, a request context with an abort controller and
 * senders, the result's encoding): under 8 clients that machinery was about a fifth of the machine
 * server's time per call (docs/benchmarks.md). Only once the connection has negotiated a revision
 * whose results go out as made (`initialize`), and only for a request of the plainest shape (a
 * name, arguments, `_meta`); the SDK answers everything else as before: the handshake, the listing,
 * tools that wait (their progress, cancellation and forms are its), bad requests and their errors.
 * Installed after the SDK took the transport (`serveStdio`): messages reach it first.
 */
export function answerToolCallsDirectly(wire: Transport, server: () => CollabServer | undefined): void {
  const toSdk = wire.onmessage;
  const send = wire.send.bind(wire);
  /** The `initialize` requests in flight, whose answers say which revision the connection speaks. */
  const handshakes = new Set<string | number>();
  let plainResults = false;
  /** Calls answered here still running, by id: true once the client cancelled one (no answer then). */
  const running = new Map<string | number, boolean>();

  wire.send = (message, options) => {
    const m = message as { id?: string | number; result?: { protocolVersion?: unknown } };
    if (m.id !== undefined && handshakes.delete(m.id) && m.result)
      plainResults = PLAIN_RESULT_REVISION.test(String(m.result.protocolVersion));
    return send(message, options);
  };

  wire.onmessage = (message, extra) => {
    const m = message as { id?: unknown; method?: unknown; params?: { requestId?: unknown } };
    if (m.method === 'initialize' && (typeof m.id === 'string' || typeof m.id === 'number')) {
      plainResults = false;
      handshakes.add(m.id);
    } else if (m.method === 'notifications/cancelled') {
      const id = m.params?.requestId as string | number;
      if (running.has(id)) running.set(id, true);
    } else if (plainResults && extra === undefined) {
      const request = toolCall(message);
      const answer = request && !running.has(request.id) ? server()?.direct(request) : null;
      if (request && answer) {
        running.set(request.id, false);
        answer
          .then(
            (result) => ({ jsonrpc: '2.0' as const, id: request.id, result }),
            (error: Error) => ({
              jsonrpc: '2.0' as const,
              id: request.id,
              error: { code: ProtocolErrorCode.InternalError, message: error.message || 'Internal error' },
            }),
          )
          .then((response) => {
            const cancelled = running.get(request.id);
            running.delete(request.id);
            // A client that went away meanwhile hears nothing: as with the SDK's own answers.
            return cancelled ? undefined : wire.send(response as JSONRPCMessage);
          })
          .catch(() => {});
        return;
      }
    }
    toSdk?.(message, extra);
  };
}
