import { execFile } from 'node:child_process';
import { readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { dashboardLogin, startHubProcess, stoppedAfterEach } from '../helpers/hub.js';
import { CLI } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

const run = promisify(execFile);
const tracked = stoppedAfterEach();
const client = tracked.client;

function hub(home: string, options: Omit<Parameters<typeof startHubProcess>[0], 'home'> = {}) {
  return tracked.hub({ home, ...options });
}

/** The CLI in `home`; one still running after `timeoutMs` (0: no limit) is stopped. */
async function cli(
  home: string,
  args: string[],
  timeoutMs = 0,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], {
      env: { ...process.env, SESSION_COLLAB_HOME: home },
      timeout: timeoutMs,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
/** A GET with a Host header of our choosing (fetch sends the URL's). */
function statusWithHost(url: string, path: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${url}${path}`, { headers: { host } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
    request.end();
  });
}

const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('the hub over Streamable HTTP', () => {
  it('serves every toolset to many clients at once, each client its own session', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo({ 'src/a.ts': 'a\n' });
    const h = await hub(home);
    const a = await client({ mcp: h.mcp, project: repo, name: 'alpha' });
    const b = await client({ mcp: h.mcp, project: repo, name: 'beta' });

    const listed = (await a.client.listTools()).tools.map((t) => t.name);
    for (const name of ['collab_claim', 'realm_status', 'submit_work', 'ask_human', 'execute_claude'])
      expect(listed).toContain(name);

    const claimed = await a.call<{ claim_id: string }>('collab_claim', {
      files: ['src/a.ts'],
      intent: 'refactor a',
      exclusive: true,
    });
    const refused = await b.fail('collab_claim', { files: ['src/a.ts'], intent: 'fix a', exclusive: true });
    expect(refused.code).toBe('CLAIM_CONFLICT');
    const sessions = await a.call<{ sessions: Array<{ id: string; client: string }> }>('collab_session_list');
    expect(sessions.sessions.map((s) => s.client).sort()).toEqual(['alpha', 'beta']);
    // One connection never acts as another.
    const other = sessions.sessions.find((s) => s.client === 'beta')!.id;
    expect(claimed.claim_id).toBeTruthy();
    expect(
      (await a.fail('collab_claim', { files: ['src/b.ts'], intent: 'as beta', session_id: other })).code,
    ).toBe('NOT_OWNER');

    // Every tool answers over HTTP with a tool result (called without arguments: a result, or
    // INVALID_INPUT naming what is missing), never a protocol error.
    // Left out: those that end the session, and those that wait (collab_wait: 60 s by default).
    const skip = new Set(['collab_session_end', 'session_stop', 'ask_human', 'check_answers', 'collab_wait']);
    for (const name of listed.filter((n) => !skip.has(n))) {
      const result = await b.client.callTool({ name, arguments: {} });
      expect(result.content, name).toBeDefined();
      if (result.isError)
        expect((result.structuredContent as { error: { code: string } }).error.code, name).toMatch(
          /^[A-Z_]+$/,
        );
    }
    // A tool of each other toolset answers over HTTP.
    expect(await a.call('notifications_list')).toHaveProperty('notifications');
    expect(await a.call('list_projects')).toHaveProperty('projects');
    expect(await a.call('list_questions')).toHaveProperty('questions');
    expect(await a.call('get_current_session')).toBeTypeOf('object');

    // A client that ends its MCP session (DELETE) ends its collab session and frees its claims.
    await a.transport.terminateSession();
    await b.call('collab_claim', { files: ['src/a.ts'], intent: 'fix a', exclusive: true });
  });

  it('keeps a session across a hub restart: the client comes back with its Mcp-Session-Id', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo({ 'src/a.ts': 'a\n' });
    const first = await hub(home);
    const port = new URL(first.url).port;
    const a = await client({ mcp: first.mcp, project: repo, name: 'alpha' });
    await a.call('collab_claim', { files: ['src/a.ts'], intent: 'refactor a', exclusive: true });
    const before = (
      await a.call<{ claims: Array<{ claim_id: string; session_id: string }> }>('collab_claims_list')
    ).claims[0]!;
    const mcpSessionId = a.transport.sessionId!;
    await first.stop();

    const second = await hub(home, { listen: `127.0.0.1:${port}` });
    const again = await client({ mcp: second.mcp, project: repo, name: 'alpha', sessionId: mcpSessionId });
    // Calls racing in right after the restart are all the restored session's (none starts another).
    const raced = await Promise.all(
      [1, 2, 3].map((i) =>
        again.call<{ claim_id: string }>('collab_claim', { files: [`src/r${i}.ts`], intent: `r${i}` }),
      ),
    );
    const owners = await again.call<{ claims: Array<{ claim_id: string; session_id: string }> }>(
      'collab_claims_list',
      {},
    );
    for (const r of raced)
      expect(owners.claims.find((c) => c.claim_id === r.claim_id)?.session_id).toBe(before.session_id);
    for (const r of raced) await again.call('collab_release', { claim_id: r.claim_id, status: 'completed' });
    const mine = await again.call<{ claims: Array<{ claim_id: string; session_id: string }> }>(
      'collab_claims_list',
      {},
    );
    expect(mine.claims.map((c) => c.session_id)).toEqual([before.session_id]);
    // Still its own: it may release it, and another client is still refused meanwhile.
    const b = await client({ mcp: second.mcp, project: repo, name: 'beta' });
    expect((await b.fail('collab_claim', { files: ['src/a.ts'], intent: 'x', exclusive: true })).code).toBe(
      'CLAIM_CONFLICT',
    );
    await again.call('collab_release', { claim_id: mine.claims[0]!.claim_id, status: 'completed' });
    await b.call('collab_claim', { files: ['src/a.ts'], intent: 'x', exclusive: true });
    // An unknown session id is 404: the client starts a new session.
    const unknown = await fetch(second.mcp, {
      method: 'POST',
      headers: { ...mcpHeaders, 'mcp-session-id': 'no-such-session' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(unknown.status).toBe(404);
  });

  it('answers a plain call of a tool that does not wait as one JSON body, as the transport answers the same call', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const h = await hub(home);
    const opened = await fetch(h.mcp, {
      method: 'POST',
      headers: { ...mcpHeaders, 'x-collab-project': repo },
      body: JSON.stringify(initialize),
    });
    await opened.text();
    const session = { ...mcpHeaders, 'mcp-session-id': opened.headers.get('mcp-session-id')! };
    await fetch(h.mcp, {
      method: 'POST',
      headers: session,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    const post = (id: number, params: unknown, headers: Record<string, string> = {}) =>
      fetch(h.mcp, {
        method: 'POST',
        headers: { ...session, ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }),
      });
    const answerOf = async (response: Response) => {
      const text = await response.text();
      const json = response.headers.get('content-type')?.includes('text/event-stream')
        ? text
            .split('\n')
            .find((l) => l.startsWith('data: '))!
            .slice(6)
        : text;
      return JSON.parse(json) as { id: number; result: unknown };
    };
    const params = { name: 'collab_check', arguments: { files: ['src/a.ts'] } };
    const direct = await post(2, params, { 'mcp-protocol-version': '2025-11-25' });
    expect(direct.headers.get('content-type')).toBe('application/json');
    const answered = await answerOf(direct);
    expect(answered).toMatchObject({ id: 2, result: { structuredContent: { safe: true } } });
    // Not plain (a field it does not know), or a protocol version other than the session's: the
    // transport's own answer, an event stream, the same result (or its refusal).
    const viaSdk = await post(3, { ...params, unknownField: 1 });
    expect(viaSdk.headers.get('content-type')).toContain('text/event-stream');
    expect((await answerOf(viaSdk)).result).toEqual(answered.result);
    const otherVersion = await post(4, params, { 'mcp-protocol-version': '1999-01-01' });
    expect(otherVersion.status).toBe(400);
    const otherType = await post(5, params, { 'content-type': 'application/json-patch+json' });
    expect(otherType.status).toBe(415);
    // Params the protocol refuses: the client's mistake, said plainly (not an internal error).
    const bad = await (await post(6, { name: 'collab_check', arguments: ['x'] })).json();
    expect(bad).toEqual({
      jsonrpc: '2.0',
      id: 6,
      error: {
        code: -32602,
        message: "Invalid params: params.arguments must be an object of the tool's arguments; got an array.",
      },
    });
    const nameless = (await (await post(7, { arguments: {} })).json()) as { error: { message: string } };
    expect(nameless.error.message).toBe(
      "Invalid params: params.name must be the tool's name, a string; got none.",
    );
  });

  it('answers 403 to a Host or Origin from elsewhere, on every route', async () => {
    const home = tempDir('collab-home-');
    const h = await hub(home);
    for (const path of ['/mcp', '/', '/events', '/login?code=x', '/health']) {
      expect(await statusWithHost(h.url, path, 'evil.example:80'), path).toBe(403);
      expect(await statusWithHost(h.url, path, `localhost:${new URL(h.url).port}`), path).not.toBe(403);
      const evilOrigin = await fetch(`${h.url}${path}`, { headers: { origin: 'http://evil.example' } });
      expect(evilOrigin.status, path).toBe(403);
    }
    const posted = await fetch(h.mcp, {
      method: 'POST',
      headers: { ...mcpHeaders, origin: 'http://evil.example' },
      body: JSON.stringify(initialize),
    });
    expect(posted.status).toBe(403);
    const ours = await fetch(`${h.url}/health`, { headers: { origin: h.url } });
    expect(ours.status).toBe(200);
  });

  it('needs a bearer token once one exists; a session stays with its token', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const created = await cli(home, ['token', 'create', 'agent-1', '--json']);
    expect(created.code).toBe(0);
    const { token } = JSON.parse(created.stdout) as { token: string };
    expect(token).toMatch(/^sc_/);
    const second = JSON.parse((await cli(home, ['token', 'create', 'agent-2', '--json'])).stdout)
      .token as string;
    const listed = await cli(home, ['token', 'list', '--json']);
    expect(listed.stdout).not.toContain(token);
    expect((await cli(home, ['token', 'create', 'agent-1'])).code).toBe(1);

    const h = await hub(home);
    const missing = await fetch(h.mcp, {
      method: 'POST',
      headers: mcpHeaders,
      body: JSON.stringify(initialize),
    });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer realm="session-collab"/);
    const bad = await fetch(h.mcp, {
      method: 'POST',
      headers: { ...mcpHeaders, authorization: 'Bearer sc_not-a-token' },
      body: JSON.stringify(initialize),
    });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // A token in the query string is not a token.
    const query = await fetch(`${h.mcp}?token=${token}`, {
      method: 'POST',
      headers: mcpHeaders,
      body: JSON.stringify(initialize),
    });
    expect(query.status).toBe(401);

    const a = await client({
      mcp: h.mcp,
      project: repo,
      token,
      headers: { 'x-collab-client-session': 'client-1' },
    });
    const mine = await a.call<{ session_id: string }>('collab_session_start', { project_root: repo });
    // Another agent naming the same client session id gets a session of its own.
    const b = await client({
      mcp: h.mcp,
      project: repo,
      token: second,
      headers: { 'x-collab-client-session': 'client-1' },
    });
    const theirs = await b.call<{ session_id: string }>('collab_session_start', { project_root: repo });
    expect(theirs.session_id).not.toBe(mine.session_id);
    // Another token cannot use this session.
    const stolen = await fetch(h.mcp, {
      method: 'POST',
      headers: { ...mcpHeaders, authorization: `Bearer ${second}`, 'mcp-session-id': a.transport.sessionId! },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(stolen.status).toBe(404);

    expect((await cli(home, ['token', 'revoke', 'agent-1'])).code).toBe(0);
    const revoked = await fetch(h.mcp, {
      method: 'POST',
      headers: { ...mcpHeaders, authorization: `Bearer ${token}`, 'mcp-session-id': a.transport.sessionId! },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
    });
    expect(revoked.status).toBe(401);
    // Tokens never reach the log.
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(join(home, 'logs', 'collab.log'), 'utf8')).not.toContain(token);
  });

  it('an agent with a token runs no agent CLI on the hub’s machine, whatever folder it names; one of this machine does', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const state = tempDir('fake-agent-');
    const fakes = fileURLToPath(new URL('../fixtures/agent-clis', import.meta.url));
    const h = await hub(home, {
      args: ['--toolsets', 'collab,agent'],
      env: { PATH: `${fakes}:${process.env.PATH}`, FAKE_AGENT_STATE: state },
    });
    // Before any token: a client of this machine (loopback, no token) delegates.
    const local = await client({ mcp: h.mcp, project: repo });
    expect(await local.call('execute_claude', { prompt: 'hello' })).toMatchObject({ status: 'succeeded' });
    const { token } = JSON.parse((await cli(home, ['token', 'create', 'agent-1', '--json'])).stdout) as {
      token: string;
    };
    for (const project of [repo, '/']) {
      const remote = await client({ mcp: h.mcp, project, token });
      for (const [tool, args] of [
        ['execute_claude', { prompt: 'x' }],
        ['execute_claude_with_context', { prompt: 'x', file_paths: ['etc/passwd'] }],
      ] as const)
        expect(await remote.fail(tool, args)).toMatchObject({
          code: 'NOT_ALLOWED',
          message: expect.stringContaining("on the hub's machine"),
          hint: expect.stringContaining('without a token'),
        });
    }
    // Nothing of the machine's files went into a stored prompt: one run in all, the local one.
    expect(readdirSync(join(state, 'claude-projects')).length).toBe(1);
  });

  it('a token takes effect the moment `token create` returns: no request without one is served after', async () => {
    const home = tempDir('collab-home-');
    const h = await hub(home);
    const initializeWith = (headers: Record<string, string> = {}) =>
      fetch(h.mcp, {
        method: 'POST',
        headers: { ...mcpHeaders, ...headers },
        body: JSON.stringify(initialize),
      });
    // Open while no token exists; a request just before the token makes a cached answer fresh.
    expect((await initializeWith()).status).toBe(200);
    const created = await cli(home, ['token', 'create', 'agent-1', '--json']);
    expect(created.code).toBe(0);
    const { token } = JSON.parse(created.stdout) as { token: string };
    for (let i = 0; i < 5; i++) expect((await initializeWith()).status).toBe(401);
    expect((await initializeWith({ authorization: `Bearer ${token}` })).status).toBe(200);
  });

  it('a well-formed token that this hub did not issue, or revoked, is refused on a fresh initialize', async () => {
    const home = tempDir('collab-home-');
    const issued = async (h: string, name: string) =>
      (JSON.parse((await cli(h, ['token', 'create', name, '--json'])).stdout) as { token: string }).token;
    const live = await issued(home, 'agent-1');
    const revoked = await issued(home, 'agent-2');
    expect((await cli(home, ['token', 'revoke', 'agent-2'])).code).toBe(0);
    // Issued by another hub (another home, another database): the right shape, not ours.
    const foreign = await issued(tempDir('collab-other-home-'), 'agent-1');
    // Never issued anywhere: sc_ and 32 random bytes, as every token is.
    const { randomBytes } = await import('node:crypto');
    const unknown = `sc_${randomBytes(32).toString('base64url')}`;
    for (const t of [foreign, unknown, revoked]) expect(t).toHaveLength(live.length);
    const h = await hub(home);
    for (const [what, t] of Object.entries({ unknown, revoked, foreign })) {
      const answer = await fetch(h.mcp, {
        method: 'POST',
        headers: { ...mcpHeaders, authorization: `Bearer ${t}` },
        body: JSON.stringify(initialize),
      });
      expect(answer.status, what).toBe(401);
      expect(answer.headers.get('www-authenticate'), what).toContain('error="invalid_token"');
    }
    const ok = await fetch(h.mcp, {
      method: 'POST',
      headers: { ...mcpHeaders, authorization: `Bearer ${live}` },
      body: JSON.stringify(initialize),
    });
    expect(ok.status).toBe(200);
  });

  it('refuses to listen beyond loopback without tokens', async () => {
    const home = tempDir('collab-home-');
    const refused = await startHubProcess({ home, listen: '0.0.0.0:0' }).catch((error: Error) => error);
    expect(refused).toBeInstanceOf(Error);
    expect(String(refused)).toMatch(/Refusing to listen on 0\.0\.0\.0.*token create/s);
    await cli(home, ['token', 'create', 'agent-1']);
    const h = await hub(home, { listen: '0.0.0.0:0' });
    expect((await fetch(`${h.url}/health`)).status).toBe(200);
    // Revoking the last token closes such a hub; it does not open it.
    await cli(home, ['token', 'revoke', 'agent-1']);
    const open = await fetch(`${h.url}/mcp`, {
      method: 'POST',
      headers: mcpHeaders,
      body: JSON.stringify(initialize),
    });
    expect(open.status).toBe(401);
  });

  it('a port another program holds: the hub says which and what to do, without a stack, and leaves no socket behind', async () => {
    const holder = await hub(tempDir('collab-home-'));
    const port = new URL(holder.url).port;
    const home = tempDir('collab-home-');
    const refused = await cli(home, ['hub', '--listen', `127.0.0.1:${port}`], 20_000);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Another program listens on 127.0.0.1:${port}.`);
    expect(refused.stderr).toContain('--listen 127.0.0.1:0');
    expect(refused.stderr).not.toMatch(/EADDRINUSE|\n\s+at /);
    // The relays' socket it had taken is gone with it: a client's relay starts a server of its own.
    expect(readdirSync(home).filter((f) => f.startsWith('server-'))).toEqual([]);
    expect((await fetch(`${holder.url}/health`)).status).toBe(200);
  });

  it('a second hub of the same home is refused at once, naming the first, which keeps its clients', async () => {
    const home = tempDir('collab-home-');
    const first = await hub(home);
    const link = () => readdirSync(home).find((f) => /^server-[0-9a-f]+\.sock$/.test(f));
    const socket = readlinkSync(join(home, link()!));
    const second = await cli(home, ['hub', '--listen', '127.0.0.1:0'], 20_000);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(
      `A hub of this home folder already runs (pid ${first.proc.pid}) at ${first.url}.`,
    );
    expect(second.stderr).toContain('dashboard');
    // Its relays' socket is still the first hub's.
    expect(readlinkSync(join(home, link()!))).toBe(socket);
    expect(socket.endsWith(`.${first.proc.pid}`)).toBe(true);
  });

  it('a request never finished is cut at hub.request_timeout_seconds with 408; the others are served meanwhile', async () => {
    const home = tempDir('collab-home-');
    writeFileSync(join(home, 'config.json'), JSON.stringify({ hub: { request_timeout_seconds: 2 } }));
    const h = await hub(home);
    const { port } = new URL(h.url);
    const { connect } = await import('node:net');
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        // A chunked body begun and never ended.
        socket.write(
          `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n5\r\n{"jso\r\n`,
        );
      });
      let got = '';
      socket.on('data', (d) => {
        got += d;
      });
      socket.on('close', () => resolve(got));
      socket.on('error', reject);
      setTimeout(() => {
        socket.destroy();
        resolve(got);
      }, 20_000).unref();
    });
    // Cut within its timeout and a check of the connections (every second), not after Node's 5
    // minutes (the socket gives up at 20 s).
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect((await fetch(`${h.url}/health`)).status).toBe(200);
  });

  it("/hook/<event>: an input that is no JSON object is the caller's mistake, said so; a proxy's request is refused", async () => {
    const h = await hub(tempDir('collab-home-'));
    const repo = gitRepo();
    const ask = (input: string, headers: Record<string, string> = {}) =>
      fetch(`${h.url}/hook/PreToolUse`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ input, cwd: repo, identity: { sessionId: null, pid: null, start: null } }),
      });
    for (const [input, said] of [
      ['null', 'input: not a JSON object.'],
      ['[]', 'input: not a JSON object.'],
      ['not json', 'input: not JSON.'],
    ]) {
      const answer = await ask(input!);
      expect(answer.status, input).toBe(400);
      expect(JSON.stringify(await answer.json()), input).toContain(said!);
    }
    for (const proxy of ['x-real-ip', 'forwarded', 'x-forwarded-for'])
      expect((await ask('{}', { [proxy]: '127.0.0.1' })).status, proxy).toBe(403);
  });

  it("a hook call's id sent by another client is another call: never answered from the first one's record", async () => {
    const h = await hub(tempDir('collab-home-'));
    const repo = gitRepo();
    const start = (who: string, again: boolean) =>
      fetch(`${h.url}/hook/session-start`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-collab-hook-call': 'd6f1c1d2-0a4e-4c55-9a51-7d1b5a1e0c11',
          ...(again ? { 'x-collab-hook-again': '1' } : {}),
        },
        body: JSON.stringify({
          input: JSON.stringify({
            session_id: who,
            hook_event_name: 'SessionStart',
            cwd: repo,
            source: 'startup',
          }),
          cwd: repo,
          identity: { sessionId: who, pid: null, start: null },
        }),
      }).then(async (r) => JSON.stringify(await r.json()));
    const idOf = (answer: string) => /session_id ([0-9a-f-]{36})/.exec(answer)?.[1];
    const first = await start('hk-A', false);
    const other = await start('hk-B', true);
    expect(idOf(first)).toBeDefined();
    expect(idOf(other)).toBeDefined();
    expect(idOf(other)).not.toBe(idOf(first));
    // The same client asking again is answered from its record: the same session.
    expect(idOf(await start('hk-A', true))).toBe(idOf(first));
  });

  it('limits request size and rate per agent; a flood from one does not stop another', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({ hub: { requests_per_second: 5, burst: 20, max_body_kib: 16 } }),
    );
    const h = await hub(home);
    const big = await fetch(h.mcp, {
      method: 'POST',
      headers: mcpHeaders,
      body: JSON.stringify({ ...initialize, params: { ...initialize.params, pad: 'x'.repeat(20_000) } }),
    });
    expect(big.status).toBe(413);
    // Sent in chunks, without a length: read up to the limit, then refused all the same (the
    // connection may be cut instead of answered); under it, answered.
    const chunked = (size: number) =>
      new Promise<number | 'cut'>((resolve) => {
        const request = httpRequest(
          h.mcp,
          { method: 'POST', headers: { ...mcpHeaders, 'transfer-encoding': 'chunked' } },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on('error', () => resolve('cut'));
        const text = JSON.stringify({
          ...initialize,
          params: { ...initialize.params, pad: 'x'.repeat(size) },
        });
        for (let at = 0; at < text.length; at += 4_000) request.write(text.slice(at, at + 4_000));
        request.end();
      });
    expect([413, 'cut']).toContain(await chunked(40_000));
    expect(await chunked(1_000)).toBe(200);

    const flooder = await client({ mcp: h.mcp, project: repo, name: 'flooder' });
    const calm = await client({ mcp: h.mcp, project: repo, name: 'calm' });
    const flood = await Promise.allSettled(
      Array.from({ length: 60 }, () =>
        flooder.client.callTool({ name: 'collab_session_list', arguments: {} }),
      ),
    );
    const refused = flood.filter((r) => r.status === 'rejected');
    expect(refused.length).toBeGreaterThan(0);
    expect(String((refused[0] as PromiseRejectedResult).reason)).toMatch(/429|Too many requests/);
    // The other agent's bucket is its own.
    await calm.call('collab_session_list');
  });

  it('a long wait over HTTP: progress, and an answer from the dashboard reaches the asker', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const h = await hub(home);
    const asker = await client({ mcp: h.mcp, project: repo, name: 'asker' });
    const { cookie, csrf } = await dashboardLogin(h);
    expect(csrf).not.toBe('');
    const progress: string[] = [];
    const asked = asker.client.callTool(
      {
        name: 'ask_human',
        arguments: {
          question: 'Ship <it>?',
          options: ['yes', 'no'],
          label: 'Release <2.4>',
          wait_seconds: 30,
        },
      },
      { timeout: 5_000, resetTimeoutOnProgress: true, onprogress: (p) => progress.push(String(p.message)) },
    );
    let questionId = '';
    for (let i = 0; i < 100 && !questionId; i++) {
      const page = await (await fetch(`${h.url}/`, { headers: { cookie } })).text();
      questionId = /data-question="([^"]+)"/.exec(page)?.[1] ?? '';
      if (!questionId) await new Promise((r) => setTimeout(r, 100));
    }
    expect(questionId).not.toBe('');
    // The question's label is shown with it (escaped: it is the asker's text).
    const page = await (await fetch(`${h.url}/`, { headers: { cookie } })).text();
    const card = page.slice(page.indexOf(`data-question="${questionId}"`));
    expect(card.slice(0, card.indexOf('</article>'))).toContain(
      '<strong class="label">Release &lt;2.4&gt;</strong>',
    );
    await new Promise((r) => setTimeout(r, 3_500));
    const answered = await fetch(`${h.url}/actions/answer`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: h.url },
      body: new URLSearchParams({ csrf, back: '/', question_id: questionId, answer: 'yes' }).toString(),
    });
    expect(answered.status).toBe(303);
    expect(answered.headers.get('location')).toContain('notice=answered');
    const result = (await asked).structuredContent as {
      status: string;
      answer: string;
      answered_via: string;
    };
    expect(result).toMatchObject({ status: 'answered', answer: 'yes', answered_via: 'web' });
    expect(progress.length).toBeGreaterThanOrEqual(1);

    // A form without the cookie's CSRF token changes nothing.
    const forged = await fetch(`${h.url}/actions/answer`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        csrf: 'forged',
        back: '/',
        question_id: questionId,
        answer: 'no',
      }).toString(),
    });
    expect(forged.status).toBe(403);
  });

  it('a call the client cancels over HTTP is cancelled in the hub: the agent run it started ends', async () => {
    const home = tempDir('collab-home-');
    const state = tempDir('fake-agent-');
    const repo = gitRepo();
    const fakes = fileURLToPath(new URL('../fixtures/agent-clis', import.meta.url));
    const h = await hub(home, { env: { PATH: `${fakes}:${process.env.PATH}`, FAKE_AGENT_STATE: state } });
    const a = await client({ mcp: h.mcp, project: repo, name: 'delegator' });
    const controller = new AbortController();
    const call = a.client
      .callTool(
        { name: 'execute_claude', arguments: { prompt: 'sleep 30 then stop', wait_seconds: 60 } },
        { signal: controller.signal },
      )
      .catch(() => null);
    for (let i = 0; i < 100 && !readdirSync(state).some((f) => f.startsWith('child-')); i++)
      await new Promise((r) => setTimeout(r, 50));
    controller.abort();
    await call;
    let status = '';
    for (let i = 0; i < 50 && status !== 'cancelled'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const history = await a.call<{ executions: Array<{ status: string }> }>('get_execution_history', {
        limit: 1,
      });
      status = history.executions[0]?.status ?? '';
    }
    expect(status).toBe('cancelled');
  });
});

describe('the dashboard without a browser', () => {
  it('logs in once per link, sends a strict CSP, and replays missed events after Last-Event-ID', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo({ 'src/a.ts': 'a\n' });
    const h = await hub(home);
    const anonymous = await fetch(`${h.url}/`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).toContain('session-collab dashboard');
    const { cookie } = await dashboardLogin(h);
    const reused = await fetch(h.login, { redirect: 'manual' });
    expect(reused.status).toBe(401);
    const page = await fetch(`${h.url}/`, { headers: { cookie } });
    expect(page.status).toBe(200);
    // Nobody connected yet: the overview says how a project is set up.
    expect(await page.clone().text()).toContain('<code>session-collab init</code> in its folder');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect((await fetch(`${h.url}/events`)).status).toBe(401);
    // The realms this machine works with are on the overview.
    const realm = join(tempDir('collab-realm-'), 'shop');
    expect((await cli(home, ['realm', 'init', realm, '--name', 'shop-realm'])).code).toBe(0);
    const overview = await (await fetch(`${h.url}/`, { headers: { cookie } })).text();
    expect(overview).toContain('shop-realm');

    const a = await client({ mcp: h.mcp, project: repo, name: 'alpha' });
    await a.call('collab_claim', { files: ['src/a.ts'], intent: 'first' });
    const start = Number(
      /data-after="(\d+)"/.exec(await (await fetch(`${h.url}/`, { headers: { cookie } })).text())![1],
    );
    await a.call('collab_claim', { files: ['src/b.ts'], intent: 'second' });
    await a.call('collab_message_send', { content: 'hello <b>all</b>' });

    const controller = new AbortController();
    const events = await fetch(`${h.url}/events`, {
      headers: { cookie, 'last-event-id': String(start) },
      signal: controller.signal,
    });
    expect(events.headers.get('content-type')).toContain('text/event-stream');
    const reader = events.body!.getReader();
    let text = '';
    while (!/hello <b>all<\/b>/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    controller.abort();
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids[0]).toBe(start + 1);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect(text).toContain('second');
  });

  it("what a page shows and where its actions lead: no controls in sessions' words, notices by name only, back links kept whole, errors for a person", async () => {
    const h = await hub(tempDir('collab-home-'));
    const repo = gitRepo({ 'src/a.ts': 'a\n' });
    const { cookie, csrf } = await dashboardLogin(h);
    const a = await client({ mcp: h.mcp, project: repo, name: 'alpha' });
    await a.call('collab_claim', { files: ['src/a.ts'], intent: 'evil\u202etxt.exe\u0007\u001b[2J' });
    const board = await (await fetch(`${h.url}/`, { headers: { cookie } })).text();
    const project = /href="\/projects\/([^"]+)"/.exec(board)![1]!;
    const page = await (await fetch(`${h.url}/projects/${project}`, { headers: { cookie } })).text();
    expect(page).toContain('eviltxt.exe[2J');
    expect(page).not.toMatch(/[\u0007\u001b\u202e]/);
    // A notice is one of the dashboard's own, by name: not whatever a link names.
    for (const notice of ['constructor', 'toString', '__proto__'])
      expect(await (await fetch(`${h.url}/?notice=${notice}`, { headers: { cookie } })).text()).not.toContain(
        'class="notice"',
      );
    const act = (path: string, form: Record<string, string>) =>
      fetch(`${h.url}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: h.url },
        body: new URLSearchParams({ csrf, ...form }).toString(),
      });
    const messaged = await act('/actions/message', {
      back: `/projects/${project}?notice=released&tab=claims`,
      session_id: (await a.call<{ session_id: string }>('collab_session_start', { project_root: repo }))
        .session_id,
      text: 'hi',
    });
    expect(messaged.headers.get('location')).toBe(`/projects/${project}?tab=claims&notice=messaged`);
    // Something gone: 404, said for a person (no tool names), with the way back.
    const gone = await act('/actions/release', { back: '/', claim_id: 'nope', reason: 'x' });
    expect(gone.status).toBe(404);
    const said = await gone.text();
    expect(said).toContain('reload the page');
    expect(said).not.toMatch(/collab_\w+/);
    // An answer is held to a message's length, from every channel.
    const asked = a.client.callTool({ name: 'ask_human', arguments: { question: 'Ship?', wait_seconds: 5 } });
    let questionId = '';
    for (let i = 0; i < 50 && !questionId; i++) {
      questionId =
        /data-question="([^"]+)"/.exec(
          await (await fetch(`${h.url}/`, { headers: { cookie } })).text(),
        )?.[1] ?? '';
      if (!questionId) await new Promise((r) => setTimeout(r, 100));
    }
    const long = await act('/actions/answer', {
      back: '/',
      question_id: questionId,
      answer: 'x'.repeat(60_000),
    });
    expect(long.status).toBe(400);
    expect(await long.text()).toContain('limits.message_chars');
    expect((await act('/actions/answer', { back: '/', question_id: questionId, answer: 'yes' })).status).toBe(
      303,
    );
    await asked;
  });

  it('a stream resumed from an id past the newest, or from no id at all, does not go silent', async () => {
    const h = await hub(tempDir('collab-home-'));
    const repo = gitRepo();
    const { cookie } = await dashboardLogin(h);
    const poker = await client({ mcp: h.mcp, project: repo, name: 'poker' });
    let pokes = 0;
    /** The stream's text up to its first reset or change; a claim is made meanwhile, once it has said hello. */
    const firstEvents = async (lastEventId: string) => {
      const controller = new AbortController();
      const events = await fetch(`${h.url}/events`, {
        headers: { cookie, 'last-event-id': lastEventId },
        signal: controller.signal,
      });
      const reader = events.body!.getReader();
      let text = '';
      let poked = false;
      while (!/event: (reset|change)/.test(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
        if (!poked && text.includes('event: hello') && !text.includes('event: reset')) {
          poked = true;
          await poker.call('collab_claim', { files: [`f${pokes++}.ts`], intent: 'poke' });
        }
      }
      controller.abort();
      return text;
    };
    // Past the newest (a log started over, or an id made up): the page is told to reload.
    expect(await firstEvents('999999')).toContain('event: reset');
    // Not an id: a stream from now, which carries what happens next.
    expect(await firstEvents('0x10')).toContain('event: change');
    expect(await firstEvents('')).toContain('event: change');
  });

  it('`session-collab dashboard` prints a login link to the running hub', async () => {
    const home = tempDir('collab-home-');
    expect((await cli(home, ['dashboard'])).stderr).toMatch(/No hub is running/);
    const h = await hub(home);
    const printed = await cli(home, ['dashboard', '--json']);
    const { login } = JSON.parse(printed.stdout) as { login: string };
    expect(login.startsWith(`${h.url}/login?code=`)).toBe(true);
    expect((await fetch(login, { redirect: 'manual' })).status).toBe(303);
  });
});
