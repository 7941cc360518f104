/**
 * What this product relies on in the MCP SDK beyond its public, documented surface, checked
 * against the SDK installed. The SDK is pinned to an exact version (package.json); an upgrade must
 * pass this file, or the code that relies on the changed behaviour must change with it.
 *
 * 1. `Server._wrapHandler`, the SDK's protected hook for subclasses around each request handler:
 *    src/mcp/server.ts overrides it to leave the SDK's second validation of `tools/call` out (every
 *    result is built by one envelope and checked against its tool's output schema already).
 * 2. A Streamable HTTP session taken up again on a new transport (a hub restarted, another replica):
 *    the SDK has no public way to adopt a session id (typescript-sdk#1658), so
 *    src/http/mcp-endpoint.ts replays the client's stored `initialize` into a transport whose
 *    session id generator returns that id, through the public `handleRequest`.
 * 3. Calls answered without the SDK's request machinery (src/mcp/direct-calls.ts): `serveStdio`
 *    takes the transport's `onmessage` when called, so a handler set after it sees each message
 *    first; `getNegotiatedProtocolVersion` (deprecated, still served) names the revision an
 *    `initialize` negotiated; and on those revisions the SDK sends a `tools/call` result as the
 *    handler made it (test/mcp/wire.test.ts compares the two answers over real stdio).
 */
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import {
  type JSONRPCMessage,
  Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ownProcess } from '../../src/features/sessions/client-sessions.js';
import { Connection } from '../../src/features/sessions/connection.js';
import { select } from '../../src/mcp/registry.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { testApp } from '../helpers/app.js';
import { gitRepo } from '../helpers/temp.js';

const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const installed = (name: string) =>
  (
    JSON.parse(readFileSync(new URL(`../../node_modules/${name}/package.json`, import.meta.url), 'utf8')) as {
      version: string;
    }
  ).version;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the MCP SDK, as this product uses it', () => {
  it('is pinned to the exact version installed (server and client alike)', () => {
    const server = packageJson.dependencies['@modelcontextprotocol/server']!;
    const client = packageJson.devDependencies['@modelcontextprotocol/client']!;
    expect(server).toMatch(/^\d+\.\d+\.\d+$/);
    expect(client).toBe(server);
    expect(installed('@modelcontextprotocol/server')).toBe(server);
    expect(installed('@modelcontextprotocol/client')).toBe(client);
  });

  it('wraps every request handler through _wrapHandler, which the server overrides for tools/call only', async () => {
    const wrap = vi.spyOn(
      Server.prototype as unknown as { _wrapHandler: (method: string, handler: unknown) => unknown },
      '_wrapHandler',
    );
    const app = await testApp();
    try {
      const connection = new Connection(app, app.sessions, {
        cwd: gitRepo(),
        client: () => 'contract',
        server: ownProcess(),
        name: null,
      });
      createMcpServer(app, connection, await select(['collab'], { readOnly: false }));
      const methods = wrap.mock.calls.map((call) => call[0]);
      expect(methods).toContain('tools/list');
      expect(methods).not.toContain('tools/call');
    } finally {
      await app.close();
    }
  });

  it('takes a session up again on a new transport when its initialize is replayed there', async () => {
    const id = 'stored-session-id';
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => id });
    const server = new Server({ name: 'contract', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', () => ({ tools: [] }));
    await server.connect(transport);
    const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
    const post = (body: unknown, sessionId?: string) =>
      transport.handleRequest(
        new Request('http://hub.invalid/mcp', {
          method: 'POST',
          headers: sessionId ? { ...headers, 'mcp-session-id': sessionId } : headers,
          body: JSON.stringify(body),
        }),
      );
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    // The premise: a new transport does not know the session.
    expect((await post(list, id)).status).toBeGreaterThanOrEqual(400);
    const replayed = await transport.handleRequest(
      new Request('http://hub.invalid/mcp', { method: 'POST', headers }),
      {
        parsedBody: {
          jsonrpc: '2.0',
          id: 'restore',
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'c', version: '1' },
          },
        },
      },
    );
    expect(replayed.headers.get('mcp-session-id')).toBe(id);
    await replayed.text();
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, id)).text();
    const answer = await post(list, id);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('"tools":[]');
    await transport.close();
  });

  it('lets a handler set after serveStdio see messages first, and names the revision initialize negotiated', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const wire = new StdioServerTransport(input, output);
    let server: Server | undefined;
    const handle = serveStdio(
      () => {
        server = new Server({ name: 'contract', version: '1' }, { capabilities: { tools: {} } });
        return server;
      },
      { transport: wire },
    );
    const seen: unknown[] = [];
    const toSdk = wire.onmessage;
    expect(toSdk).toBeTypeOf('function');
    wire.onmessage = (message: JSONRPCMessage) => {
      seen.push((message as { method?: string }).method);
      toSdk?.(message);
    };
    const answered = new Promise<string>((resolve) => output.once('data', (d) => resolve(String(d))));
    input.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
      })}\n`,
    );
    expect(JSON.parse(await answered)).toMatchObject({ id: 1, result: { protocolVersion: '2025-06-18' } });
    expect(seen).toEqual(['initialize']);
    expect(server?.getNegotiatedProtocolVersion()).toBe('2025-06-18');
    await handle.close();
  });
});
