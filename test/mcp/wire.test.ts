// tools/call as it crosses the wire, spoken to in raw JSON-RPC over real stdio: the request is
// checked against the protocol's schema once (a malformed one is answered with an error, and the
// server goes on), and the result the envelope builds goes out as it was built.
import { describe, expect, it } from 'vitest';
import { bareServe } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

describe('tools/call on the wire', () => {
  it('answers a malformed request with a JSON-RPC error and a good one with the envelope’s result', async () => {
    const server = bareServe(gitRepo(), tempDir());
    const call = (params: unknown) => server.request('tools/call', params);

    for (const [params, field] of [
      [{ name: 42 }, /name/],
      [{ name: 'collab_check', arguments: 'x' }, /arguments/],
      [{ name: 'no_such_tool', arguments: {} }, /no_such_tool not found/],
    ] as const) {
      const error = (await call(params))?.error as { message: string };
      expect(error.message).toMatch(field);
    }

    const ok = (await call({ name: 'collab_check', arguments: { files: ['src/a.ts'] } }))?.result as Record<
      string,
      unknown
    >;
    expect(ok.isError).toBeUndefined();
    expect(ok.structuredContent).toMatchObject({ safe: true, conflicts: [] });
    expect((ok.content as { type: string; text: string }[])[0]).toMatchObject({ type: 'text' });
    expect((ok.content as { text: string }[])[0]!.text).toMatch(/Safe/);

    // Arguments that break the tool's own input schema: a tool error with its code, not a crash.
    const bad = (await call({ name: 'collab_check', arguments: { files: [] } }))?.result as Record<
      string,
      unknown
    >;
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toMatchObject({ error: { code: 'INVALID_INPUT' } });

    server.child.stdin.end();
    await server.exit;
  });

  it('answers a plain call of a tool that does not wait itself, as the SDK answers the same call', async () => {
    const server = bareServe(gitRepo(), tempDir());
    const params = { name: 'collab_check', arguments: { files: ['src/a.ts'] } };
    // Answered once the handshake is: the SDK answers what comes before.
    await server.request('tools/list', {});
    const direct = await server.request('tools/call', params);
    // A field the plain shape does not have: the SDK answers it (it drops the field).
    const viaSdk = await server.request('tools/call', { ...params, unknownField: 1 });
    expect(viaSdk?.result).toEqual(direct?.result);
    // Which path answered shows in the response's first field: the SDK's envelope puts `result`
    // first, the direct answer `jsonrpc`.
    const lines = server.output().out.split('\n');
    const lineOf = (id: unknown) => lines.find((l) => l.includes(`"id":${id},`) || l.endsWith(`"id":${id}}`));
    expect(lineOf(direct?.id)).toMatch(/^\{"jsonrpc"/);
    expect(lineOf(viaSdk?.id)).toMatch(/^\{"result"/);

    server.child.stdin.end();
    await server.exit;
  });
});
