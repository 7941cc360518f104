import { describe, expect, it } from 'vitest';
import { askAgain } from '../../src/cli/relay-again.js';

const tools = new Map([
  ['collab_check', { again: true }],
  ['check_answers', { again: true }],
  ['collab_claim', { again: false }],
]);
const call = (name: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: args } });

describe('what a relay asks the next server when the one it had dies', () => {
  it('a read or an idempotent call as it was; any other request but a tool call too', () => {
    const check = call('collab_check', { files: ['a.ts'] });
    expect(askAgain({ line: check, at: 0, sent: true }, tools, 5_000)).toBe(check);
    const list = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
    expect(askAgain({ line: list, at: 0, sent: true }, tools, 5_000)).toBe(list);
  });

  it('a wait for what is left of its time: its deadline is kept, never past it', () => {
    const wait = call('check_answers', { wait_seconds: 30, question_ids: ['q1'] });
    const again = JSON.parse(askAgain({ line: wait, at: 1_000, sent: true }, tools, 13_500)!);
    expect(again).toMatchObject({
      id: 7,
      params: { name: 'check_answers', arguments: { wait_seconds: 17, question_ids: ['q1'] } },
    });
    const late = JSON.parse(askAgain({ line: wait, at: 0, sent: true }, tools, 60_000)!);
    expect(late.params.arguments.wait_seconds).toBe(0);
  });

  it('a write, a tool it does not know, or a line that is no request: not asked again', () => {
    expect(
      askAgain({ line: call('collab_claim', { files: ['a.ts'] }), at: 0, sent: true }, tools),
    ).toBeNull();
    expect(askAgain({ line: call('nope', {}), at: 0, sent: true }, tools)).toBeNull();
    expect(askAgain({ line: 'not json', at: 0, sent: true }, tools)).toBeNull();
  });
});
