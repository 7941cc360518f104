// tools/call as it crosses the wire, spoken to in raw JSON-RPC over real stdio: the request is
// checked against the protocol's schema once (a malformed one is answered with an error, and the
// server goes on), and the result the envelope builds goes out as it was built.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI, requireBuild } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

function rawServe(cwd: string, home: string) {
  const child = spawn(process.execPath, [CLI, 'serve'], {
    cwd,
    env: { ...process.env, SESSION_COLLAB_HOME: home },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const answers = new Map<number, Record<string, unknown>>();
  const waiting = new Map<number, (m: Record<string, unknown>) => void>();
  let buffer = '';
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
      const message = JSON.parse(buffer.slice(0, nl)) as Record<string, unknown>;
      buffer = buffer.slice(nl + 1);
      const id = message.id as number;
      answers.set(id, message);
      waiting.get(id)?.(message);
    }
  });
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  const answer = (id: number) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const known = answers.get(id);
      if (known) resolve(known);
      else waiting.set(id, resolve);
    });
  return { child, send, answer };
}

describe('tools/call on the wire', () => {
  it('answers a malformed request with a JSON-RPC error and a good one with the envelope’s result', async () => {
    requireBuild();
    const repo = gitRepo();
    const server = rawServe(repo, tempDir());
    server.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'wire', version: '1' } },
    });
    server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    server.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 42 } });
    server.send({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'collab_check', arguments: 'x' },
    });
    server.send({
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: 'no_such_tool', arguments: {} },
    });
    server.send({
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/call',
      params: { name: 'collab_check', arguments: { files: ['src/a.ts'] } },
    });
    server.send({
      jsonrpc: '2.0',
      id: 6,
      method: 'tools/call',
      params: { name: 'collab_check', arguments: {} },
    });

    for (const id of [2, 3]) {
      const error = (await server.answer(id)).error as { code: number; message: string };
      expect(error.message).toMatch(id === 2 ? /name/ : /arguments/);
    }
    expect(((await server.answer(4)).error as { message: string }).message).toMatch(/no_such_tool not found/);

    const ok = (await server.answer(5)).result as Record<string, unknown>;
    expect(ok.isError).toBeUndefined();
    expect(ok.structuredContent).toMatchObject({ safe: true, conflicts: [] });
    expect((ok.content as { type: string; text: string }[])[0]).toMatchObject({ type: 'text' });
    expect((ok.content as { text: string }[])[0]!.text).toMatch(/Safe/);

    // Arguments that break the tool's own input schema: a tool error with its code, not a crash.
    const bad = (await server.answer(6)).result as Record<string, unknown>;
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toMatchObject({ error: { code: 'INVALID_INPUT' } });

    server.child.stdin.end();
    await new Promise((resolve) => server.child.once('exit', resolve));
  });
});
