/** The transport a relay's connection is served over: lines in, messages out, as the SDK's stdio one. */
import { EventEmitter } from 'node:events';
import { deserializeMessage, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { LineTransport } from '../../src/mcp/line-transport.js';

/** A socket's writing side: takes `room` writes, then says to wait for 'drain'. */
class Output extends EventEmitter {
  written: string[] = [];
  writable = true;
  constructor(private room = Number.POSITIVE_INFINITY) {
    super();
  }
  write(text: string): boolean {
    this.written.push(text);
    return --this.room > 0;
  }
  /** The connection goes. */
  gone(): void {
    this.writable = false;
    this.emit('close');
  }
}

const started = async (transport: LineTransport) => {
  const messages: JSONRPCMessage[] = [];
  const errors: string[] = [];
  let closed = 0;
  transport.onmessage = (m) => messages.push(m);
  transport.onerror = (e) => errors.push(e.message);
  transport.onclose = () => {
    closed += 1;
  };
  await transport.start();
  await new Promise((r) => setImmediate(r));
  return { messages, errors, closed: () => closed };
};

const call = (id: number, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'collab_check', arguments: { files: ['a.ts'] } },
  ...extra,
});

describe('a transport over lines handed to it', () => {
  it('hands on lines received before it started first, in order, then the rest, split anywhere', async () => {
    const transport = new LineTransport(new Output());
    transport.receive(`${JSON.stringify(call(1))}\n${JSON.stringify(call(2)).slice(0, 10)}`);
    const { messages, errors } = await started(transport);
    transport.receive(`${JSON.stringify(call(2)).slice(10)}\r\n`);
    const accented = { ...call(3), params: { name: 'collab_check', arguments: { files: ['é/ü.ts'] } } };
    const bytes = Buffer.from(`${JSON.stringify(accented)}\n`);
    transport.receive(bytes.subarray(0, 70));
    transport.receive(bytes.subarray(70));
    expect(messages).toEqual([call(1), call(2), accented]);
    expect(errors).toEqual([]);
  });

  it("checks every message but a plain tool call against the protocol's schema, and goes on after a bad one", async () => {
    const output = new Output();
    const transport = new LineTransport(output);
    const { messages, errors } = await started(transport);
    const lines = [
      'not json',
      '{"jsonrpc":"2.0","id":{"no":1},"method":"tools/list"}',
      // A member more: not the plain shape, so the schema judges it.
      JSON.stringify(call(4, { extra: true })),
      JSON.stringify({ ...call(5), params: { name: 'collab_check', arguments: [] } }),
      // `_meta` members with checks of their own in the SDK: refused, or taken without what is more.
      JSON.stringify({
        ...call(7),
        params: { ...call(7).params, _meta: { 'io.modelcontextprotocol/related-task': 5 } },
      }),
      JSON.stringify({
        ...call(8),
        params: {
          ...call(8).params,
          _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't', more: 1 } },
        },
      }),
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      JSON.stringify(call(6)),
    ];
    for (const line of lines) transport.receive(`${line}\n`);
    // As the SDK's own stdio transport takes or refuses each.
    const sdk = lines.flatMap((line) => {
      try {
        return [deserializeMessage(line)];
      } catch {
        return [];
      }
    });
    expect(messages).toEqual(sdk);
    expect(messages.map((m) => ('id' in m ? m.id : null))).toEqual([5, 8, null, 6]);
    expect(errors).toHaveLength(lines.length - sdk.length);
    // Each refused line is answered, under its id only where it named a method and an id of the
    // protocol's shape.
    expect(output.written.map((l) => JSON.parse(l) as { id: unknown; error: { code: number } })).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/not JSON/) } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/"id" must be/) } },
      { jsonrpc: '2.0', id: 4, error: { code: -32600, message: expect.any(String) } },
      { jsonrpc: '2.0', id: 7, error: { code: -32600, message: expect.any(String) } },
    ]);
  });

  it('answers what is no message as JSON-RPC asks, saying what is wrong; never under a response’s id', async () => {
    const output = new Output();
    const transport = new LineTransport(output);
    const { messages } = await started(transport);
    const lines = [
      '[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
      '5',
      'null',
      '{"jsonrpc":"1.0","id":2,"method":"ping"}',
      '{"jsonrpc":"2.0","id":3,"method":["ping"]}',
      '{"jsonrpc":"2.0","id":4,"method":"ping","params":[1]}',
      // A response to one of the server's requests, got wrong: its id is the server's, not answered under.
      '{"jsonrpc":"2.0","id":5,"error":"no"}',
      '{"jsonrpc":"2.0","id":6}',
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    ];
    for (const line of lines) transport.receive(`${line}\n`);
    const answers = output.written.map((l) => JSON.parse(l) as { id: unknown; error: { message: string } });
    expect(answers.map((a) => [a.id, a.error.message])).toEqual([
      [null, expect.stringMatching(/batch .*line of its own/)],
      [null, expect.stringMatching(/JSON object; got number/)],
      [null, expect.stringMatching(/JSON object; got null/)],
      [2, expect.stringMatching(/"jsonrpc" must be "2.0"/)],
      [3, expect.stringMatching(/"method" must be a string/)],
      [4, expect.stringMatching(/"params" must be an object/)],
      [null, expect.stringMatching(/a response needs/)],
      [null, expect.stringMatching(/no "method"/)],
    ]);
    expect(messages).toEqual([{ jsonrpc: '2.0', method: 'notifications/initialized' }]);
  });

  it('a line over 10 MiB is an error and closes it; nothing is read or sent after', async () => {
    const output = new Output();
    const transport = new LineTransport(output);
    const { messages, errors, closed } = await started(transport);
    transport.receive(Buffer.alloc(10 * 1024 * 1024 + 1, 'x'));
    expect(errors).toEqual([expect.stringMatching(/over 10485760 bytes/)]);
    expect(closed()).toBe(1);
    transport.receive(`${JSON.stringify(call(5))}\n`);
    expect(messages).toEqual([]);
    await expect(transport.send({ jsonrpc: '2.0', id: 5, result: {} })).rejects.toThrow(/closed/);
    await transport.close();
    expect(closed()).toBe(1);
  });

  it('sends a line per message, waiting for room when the other side reads slowly', async () => {
    const output = new Output(1);
    const transport = new LineTransport(output);
    await started(transport);
    let sent = false;
    const sending = transport.send({ jsonrpc: '2.0', id: 1, result: { ok: true } }).then(() => {
      sent = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(output.written).toEqual(['{"jsonrpc":"2.0","id":1,"result":{"ok":true}}\n']);
    expect(sent).toBe(false);
    output.emit('drain');
    await sending;
    expect(sent).toBe(true);
    expect(output.listenerCount('drain') + output.listenerCount('close')).toBe(0);
  });

  it('many messages waiting for the other side to read share one pair of listeners; lines refused meanwhile go unanswered', async () => {
    const output = new Output(1);
    const transport = new LineTransport(output);
    await started(transport);
    const sending = Array.from({ length: 50 }, (_, i) =>
      transport.send({ jsonrpc: '2.0', id: i, result: {} }),
    );
    expect(output.listenerCount('drain') + output.listenerCount('close')).toBe(2);
    // A client that sends junk and never reads: its answers would pile up without bound.
    for (let i = 0; i < 1000; i++) transport.receive('{}\n');
    expect(output.written).toHaveLength(50);
    output.emit('drain');
    await Promise.all(sending);
    expect(output.listenerCount('drain') + output.listenerCount('close')).toBe(0);
    transport.receive('{}\n');
    expect(output.written).toHaveLength(51);
  });

  it('a message not written when the connection goes is not taken for sent; none is sent after', async () => {
    const output = new Output(1);
    const transport = new LineTransport(output);
    await started(transport);
    const waiting = transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    output.gone();
    await expect(waiting).rejects.toThrow(/closed before/);
    await expect(transport.send({ jsonrpc: '2.0', id: 2, result: {} })).rejects.toThrow(/closed/);
    expect(output.listenerCount('drain') + output.listenerCount('close')).toBe(0);
  });

  it('a handler that throws is told and ends the connection; the rest of the chunk is not handed on', async () => {
    const transport = new LineTransport(new Output());
    const { messages, errors, closed } = await started(transport);
    const handed = transport.onmessage!;
    transport.onmessage = (m) => {
      handed(m);
      if ('id' in m && m.id === 2) throw new Error('handler failed');
    };
    transport.receive([call(1), call(2), call(3)].map((c) => `${JSON.stringify(c)}\n`).join(''));
    expect(messages.map((m) => ('id' in m ? m.id : null))).toEqual([1, 2]);
    expect(errors).toEqual(['handler failed']);
    expect(closed()).toBe(1);
  });
});
