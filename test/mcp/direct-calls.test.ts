// Which calls the transport answers itself (mcp/direct-calls.ts), over a transport of its own: only
// after an `initialize` whose answer names a revision of plain results, only plain `tools/call`
// requests of tools that do not wait; everything else reaches the SDK as it came.
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { answerToolCallsDirectly } from '../../src/mcp/direct-calls.js';
import type { CollabServer } from '../../src/mcp/server.js';

function wired() {
  const toSdk: JSONRPCMessage[] = [];
  const sent: JSONRPCMessage[] = [];
  const wire = {
    onmessage: (message: JSONRPCMessage) => {
      toSdk.push(message);
    },
    send: async (message: JSONRPCMessage) => {
      sent.push(message);
    },
  } as unknown as Transport;
  const asked: string[] = [];
  let finish: (() => void) | null = null;
  const server = {
    direct: (request: { params: { name: string } }) => {
      if (request.params.name === 'waits') return null;
      asked.push(request.params.name);
      return new Promise((resolve) => {
        finish = () => resolve({ content: [{ type: 'text', text: request.params.name }] });
      });
    },
  } as unknown as CollabServer;
  answerToolCallsDirectly(wire, () => server);
  const receive = (message: Record<string, unknown>) => wire.onmessage?.(message as JSONRPCMessage);
  const call = (id: number, params: Record<string, unknown>) =>
    receive({ jsonrpc: '2.0', id, method: 'tools/call', params });
  const handshake = async (version: string) => {
    receive({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: version } });
    await wire.send({ jsonrpc: '2.0', id: 'init', result: { protocolVersion: version } } as JSONRPCMessage);
  };
  const settle = async () => {
    finish?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { toSdk, sent, asked, receive, call, handshake, settle };
}

describe('calls answered by the transport itself', () => {
  it('are plain tools/call requests of tools that do not wait, once a 2025 revision is negotiated', async () => {
    const w = wired();
    w.call(1, { name: 'collab_check', arguments: {} });
    expect(w.asked).toEqual([]); // before the handshake: the SDK's
    await w.handshake('2025-06-18');
    w.call(2, { name: 'collab_check', arguments: { files: ['a.ts'] } });
    await w.settle();
    expect(w.asked).toEqual(['collab_check']);
    expect(w.sent.at(-1)).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text', text: 'collab_check' }] },
    });
    // Not plain: the SDK judges them (and answers with its errors).
    w.call(3, { name: 'waits', arguments: {} });
    w.call(4, { name: 'collab_check', arguments: ['x'] });
    w.call(5, { name: 42 });
    w.call(6, { name: 'collab_check', task: { ttl: 1 } });
    w.receive({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} });
    expect(w.asked).toEqual(['collab_check']);
    expect(w.toSdk.map((m) => (m as { id?: unknown }).id)).toEqual([1, 'init', 3, 4, 5, 6, 7]);
  });

  it('are not answered once cancelled, and a revision of another era turns them off', async () => {
    const w = wired();
    await w.handshake('2025-11-25');
    w.call(1, { name: 'collab_claim', arguments: {} });
    w.receive({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    await w.settle();
    expect(w.asked).toEqual(['collab_claim']);
    expect(w.sent.filter((m) => (m as { id?: unknown }).id === 1)).toEqual([]);
    // The cancellation reaches the SDK too.
    expect(w.toSdk.at(-1)).toMatchObject({ method: 'notifications/cancelled' });

    await w.handshake('2026-07-28');
    w.call(2, { name: 'collab_check', arguments: {} });
    expect(w.asked).toEqual(['collab_claim']);
    expect(w.toSdk.at(-1)).toMatchObject({ id: 2 });
  });
});
