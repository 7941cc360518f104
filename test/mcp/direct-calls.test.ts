// Which calls are answered without the SDK's request machinery (mcp/direct-calls.ts), over a
// transport of its own: only on a connection that negotiated a 2024/2025 revision, only plain
// `tools/call` requests of tools that do not wait; everything else reaches the SDK as it came.
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { answerToolCallsDirectly } from '../../src/mcp/direct-calls.js';
import type { CollabServer } from '../../src/mcp/server.js';

function wired(options: { sendFails?: boolean } = {}) {
  const toSdk: JSONRPCMessage[] = [];
  const sent: JSONRPCMessage[] = [];
  const wire = {
    onmessage: (message: JSONRPCMessage) => {
      toSdk.push(message);
    },
    send: async (message: JSONRPCMessage) => {
      if (options.sendFails) throw new Error('the client went away');
      sent.push(message);
    },
  } as unknown as Transport;
  const asked: string[] = [];
  const finishing: Array<() => void> = [];
  let version: string | undefined;
  const server = {
    getNegotiatedProtocolVersion: () => version,
    direct: (request: { params: { name: string } }) => {
      if (request.params.name === 'waits') return null;
      if (request.params.name === 'rejects')
        return Promise.reject(Object.assign(new Error('refused'), { code: -32602, data: { why: 'x' } }));
      asked.push(request.params.name);
      return new Promise((resolve) => {
        finishing.push(() => resolve({ content: [{ type: 'text', text: request.params.name }] }));
      });
    },
  } as unknown as CollabServer;
  const failures: Error[] = [];
  answerToolCallsDirectly(
    wire,
    () => server,
    (error) => failures.push(error),
  );
  const receive = (message: Record<string, unknown>) => wire.onmessage?.(message as JSONRPCMessage);
  const call = (id: number, params: Record<string, unknown>) =>
    receive({ jsonrpc: '2.0', id, method: 'tools/call', params });
  const settle = async () => {
    for (const finish of finishing.splice(0)) finish();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return {
    failures,
    toSdk,
    sent,
    asked,
    receive,
    call,
    settle,
    negotiated: (v: string) => {
      version = v;
    },
  };
}

const ids = (messages: JSONRPCMessage[]) => messages.map((m) => (m as { id?: unknown }).id);

describe('calls answered without the SDK', () => {
  it('are plain tools/call requests of tools that do not wait, on a 2025 revision', async () => {
    const w = wired();
    w.call(1, { name: 'collab_check', arguments: {} });
    expect(w.asked).toEqual([]); // before the handshake: the SDK's
    w.negotiated('2025-06-18');
    w.call(2, { name: 'collab_check', arguments: { files: ['a.ts'] } });
    await w.settle();
    expect(w.asked).toEqual(['collab_check']);
    expect(w.sent).toEqual([
      { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'collab_check' }] } },
    ]);
    // Params the protocol refuses: said to be the client's mistake, plainly (the SDK would answer
    // an internal error holding its schema's report).
    w.call(4, { name: 'collab_check', arguments: ['x'] });
    w.call(5, { name: 42 });
    await w.settle();
    expect(w.sent.slice(1)).toEqual([
      {
        jsonrpc: '2.0',
        id: 4,
        error: {
          code: -32602,
          message:
            "Invalid params: params.arguments must be an object of the tool's arguments; got an array.",
        },
      },
      {
        jsonrpc: '2.0',
        id: 5,
        error: {
          code: -32602,
          message: "Invalid params: params.name must be the tool's name, a string; got a number.",
        },
      },
    ]);
    // Not plain: the SDK judges them (and answers with its errors).
    w.call(3, { name: 'waits', arguments: {} });
    w.call(6, { name: 'collab_check', task: { ttl: 1 } });
    w.receive({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} });
    w.receive({ jsonrpc: '1.0', id: 8, method: 'tools/call', params: { name: 'collab_check' } });
    // What the SDK's schema refuses: an id that is no safe integer, a member more, a bad progress token.
    w.receive({ jsonrpc: '2.0', id: 1.5, method: 'tools/call', params: { name: 'collab_check' } });
    w.receive({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'collab_check' }, result: {} });
    w.call(10, { name: 'collab_check', _meta: { progressToken: {} } });
    expect(w.asked).toEqual(['collab_check']);
    expect(ids(w.toSdk)).toEqual([1, 3, 6, 7, 8, 1.5, 9, 10]);
    // A progress token of the right kind is plain.
    w.call(11, { name: 'collab_check', _meta: { progressToken: 'p' } });
    expect(w.asked).toEqual(['collab_check', 'collab_check']);
  });

  it('are not answered once cancelled; an id still running goes to the SDK; another era turns them off', async () => {
    const w = wired();
    w.negotiated('2025-11-25');
    w.call(1, { name: 'collab_claim', arguments: {} });
    w.call(1, { name: 'collab_claim', arguments: {} });
    w.receive({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    await w.settle();
    expect(w.asked).toEqual(['collab_claim']);
    expect(w.sent).toEqual([]);
    // The second call with the running id, and the cancellation, reach the SDK.
    expect(w.toSdk).toMatchObject([{ id: 1 }, { method: 'notifications/cancelled' }]);

    w.negotiated('2026-07-28');
    w.call(2, { name: 'collab_check', arguments: {} });
    expect(w.asked).toEqual(['collab_claim']);
    expect(w.toSdk.at(-1)).toMatchObject({ id: 2 });
  });

  it('answers a failure as the SDK does, with its code and data, and tells a failed send', async () => {
    const w = wired();
    w.negotiated('2025-06-18');
    w.call(1, { name: 'rejects', arguments: {} });
    await w.settle();
    expect(w.sent).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'refused', data: { why: 'x' } } },
    ]);
    expect(w.failures).toEqual([]);

    const gone = wired({ sendFails: true });
    gone.negotiated('2025-06-18');
    gone.call(1, { name: 'collab_check', arguments: {} });
    await gone.settle();
    expect(gone.failures.map((e) => e.message)).toEqual(['Failed to send a response: the client went away']);
  });
});
