import { describe, expect, it } from 'vitest';
import { askAgain, responseId } from '../../src/cli/relay-again.js';
import { SENT_AGAIN, WAITED_MS } from '../../src/integrations/relay-address.js';

const call = (name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
  });

describe('what a relay asks the next server when the one it had dies', () => {
  it('a request other than a tool call as it was', () => {
    const list = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
    expect(askAgain({ line: list, at: 0, sent: true }, 5_000)).toBe(list);
  });

  it('every tool call, read or write, marked as sent again with how long it has waited, keeping what _meta it had', () => {
    for (const name of ['collab_check', 'collab_claim', 'collab_message_send']) {
      const again = JSON.parse(askAgain({ line: call(name, { files: ['a.ts'] }), at: 0, sent: true }, 5)!);
      expect(again).toEqual({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name, arguments: { files: ['a.ts'] }, _meta: { [SENT_AGAIN]: true, [WAITED_MS]: 5 } },
      });
    }
    const withToken = JSON.parse(
      askAgain({ line: call('ask_human', { question: 'q?' }, { progressToken: 4 }), at: 0, sent: true }, 9)!,
    );
    expect(withToken.params._meta).toEqual({ progressToken: 4, [SENT_AGAIN]: true, [WAITED_MS]: 9 });
  });

  it("a wait as it came, with the time since the client sent it (the server asks for what is left of the wait's time)", () => {
    const wait = call('check_answers', { wait_seconds: 30, question_ids: ['q1'] });
    const again = JSON.parse(askAgain({ line: wait, at: 1_000, sent: true }, 13_500)!);
    expect(again).toMatchObject({
      id: 7,
      params: {
        name: 'check_answers',
        arguments: { wait_seconds: 30, question_ids: ['q1'] },
        _meta: { [WAITED_MS]: 12_500 },
      },
    });
  });

  it('a line that is no request: not asked again', () => {
    expect(askAgain({ line: 'not json', at: 0, sent: true })).toBeNull();
    expect(askAgain({ line: '{"jsonrpc":"2.0","id":1,"result":{}}', at: 0, sent: true })).toBeNull();
  });
});

describe('which request a line from the server answers', () => {
  it('read from the start of a response as the server writes it, whatever its result holds', () => {
    const result = { content: [{ type: 'text', text: '"id":9,"result": {"x"' }] };
    for (const id of [7, -1, 0, 'a', 'with "quotes", and \\ "id":3,"result":', 'ünï', '']) {
      const response = JSON.stringify({ jsonrpc: '2.0', id, result });
      expect(responseId(response)).toBe(JSON.stringify(id));
      expect(responseId(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -1, message: 'no' } }))).toBe(
        JSON.stringify(id),
      );
    }
  });

  it('parsed when written otherwise; none for notifications and requests of the server', () => {
    expect(responseId(JSON.stringify({ result: {}, jsonrpc: '2.0', id: 4 }))).toBe('4');
    expect(responseId(JSON.stringify({ jsonrpc: '2.0', id: 1.5, result: {} }))).toBe('1.5');
    expect(responseId('{ "jsonrpc": "2.0", "id": "x", "result": {} }')).toBe('"x"');
    expect(
      responseId(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: {} })),
    ).toBeNull();
    expect(
      responseId(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'elicitation/create', params: {} })),
    ).toBeNull();
    expect(responseId('not json')).toBeNull();
    expect(responseId('{"jsonrpc":"2.0","id":"unterminated,"result":')).toBeNull();
  });
});
