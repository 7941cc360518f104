// Hook asks of the machine's server when the server goes away in the middle of one. A wake hook
// held on it (Claude Code's asyncRewake) when it closes while it delivers the news: the news
// reaches the hook, or stays unread for the next server the hook asks; never read and dropped, and
// the close never waits on the hook. A server that dies once it delivered, before the hook heard:
// the next server answers the wake hook's second ask with that news, and a turn-end hook that runs
// its ask itself answers with the news the server delivered. In process, over the server's real
// socket.
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { CoreApp } from '../../src/app/core-app.js';
import { homeAt } from '../../src/app/home.js';
import { askServer, newHookCallId, waitForWake } from '../../src/cli/hook-server.js';
import { startRelayServer } from '../../src/cli/relay-server.js';
import { builtDefinitions } from '../../src/cli/serve.js';
import { answerHook } from '../../src/features/enforcement/hook-answers.js';
import { asHookCall, hookCaller, hookRecording } from '../../src/features/enforcement/hook-calls.js';
import { answerHookRequest, parseHookCall } from '../../src/features/enforcement/hook-requests.js';
import type { HookEvent } from '../../src/integrations/agent-hooks.js';
import { parseHookInput } from '../../src/integrations/agent-hooks.js';
import { testApp } from '../helpers/app.js';
import { droppingFirstAnswer } from '../helpers/dropping-proxy.js';
import { hookFixture } from '../helpers/hook-fixtures.js';
import { pausePoint } from '../helpers/interleave.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

const apps: App[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

/**
 * A relay server, and sessions B and C of one repository, B idle (its turn ended with nothing new).
 * `watched` says whether B's wake hook is held on the server.
 */
async function idleSession() {
  const app = await testApp({ backend: 'sqlite' });
  apps.push(app);
  const repo = gitRepo();
  const options = {
    app,
    built: builtDefinitions(),
    audit: () => null,
    takeOver: true,
    onReplaced: () => {},
  };
  const server = (await startRelayServer(options))!;
  const request = (fixture: string, id: string) => ({
    input: JSON.stringify(hookFixture(fixture, repo, id)),
    cwd: repo,
    identity: { sessionId: id, pid: null, start: null },
  });
  const start = async (id: string) =>
    /session_id ([0-9a-f-]{36})/.exec(
      JSON.stringify(
        await answerHookRequest(app, 'session-start', request('claude-code/session-start', id), null),
      ),
    )![1]!;
  const me = await start('B-1');
  const them = await start('C-1');
  await answerHookRequest(app, 'turn-end', request('claude-code/stop', 'B-1'), null);
  const watched = async () =>
    (
      await app.store.sql.get<{ at: number | null }>(
        'SELECT wake_watch_until AS at FROM sessions WHERE id = ?',
        [me],
      )
    )?.at != null;
  const held = async () => {
    for (let i = 0; i < 100 && !(await watched()); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await watched()).toBe(true);
  };
  const tell = async (content: string) =>
    app.messages.send((await app.sessions.get(them))!, { to: me, content });
  return {
    app,
    repo,
    options,
    server,
    me,
    request,
    wakeRequest: request('claude-code/stop', 'B-1'),
    held,
    tell,
  };
}

/**
 * B's wake hook held on the server; a message for B; the server closed while the delivery is held
 * `before` it starts or `after` it committed. The hook keeps its side open, as a hook stopped with
 * its client would. What the hook heard, and how B's message was read.
 */
async function closedWhileDelivering(held: 'before' | 'after') {
  const { app, server, me, wakeRequest, held: isHeld, tell } = await idleSession();
  const socket = createConnection({ path: server.path, allowHalfOpen: true });
  let heard = '';
  socket.on('data', (chunk: Buffer) => {
    heard += chunk.toString();
  });
  // The server's side ends (the hook's stays open).
  const ended = new Promise((r) => socket.once('end', r));
  await new Promise((r) => socket.once('connect', r));
  socket.write(`${JSON.stringify({ hook: 1, event: 'wake', request: wakeRequest })}\n`);
  await isHeld();

  const wakeNews = app.inbox.wakeNews.bind(app.inbox);
  const delivery = pausePoint();
  app.inbox.wakeNews = async (...args: Parameters<typeof wakeNews>) => {
    if (held === 'before') await delivery.pass();
    const news = await wakeNews(...args);
    if (held === 'after') await delivery.pass();
    return news;
  };
  await tell('the schema changed');
  await delivery.reached;
  // The server closes meanwhile (replaced, or stopping): its close ends, whatever the hook does.
  const closed = server.close();
  delivery.release();
  await closed;
  await ended;
  socket.destroy();
  const reads = await app.store.sql.all<{ via: string }>('SELECT via FROM message_reads');
  return { heard, reads, unread: (await app.messages.news((await app.sessions.get(me))!)).unread };
}

it('the server closes before a wake delivers: nothing is read, the hook hears nothing and asks the next', async () => {
  const { heard, reads, unread } = await closedWhileDelivering('before');
  expect(heard).toBe('');
  expect(reads).toEqual([]);
  expect(unread).toBe(1);
});

it('the server closes once a wake delivered: the hook is answered with the news, and the close does not wait for it', async () => {
  const { heard, reads } = await closedWhileDelivering('after');
  expect(JSON.parse(heard).wake).toContain('the schema changed');
  expect(reads).toEqual([{ via: 'wake' }]);
});

it('the server dies once a wake delivered, before the hook heard: the next server answers its second ask with that news', async () => {
  const session = await idleSession();
  const { app, options, wakeRequest, held, tell } = session;
  let server = session.server;
  const proxyPath = join(tempDir('collab-hook-'), 'proxy.sock');
  const proxy = await droppingFirstAnswer(proxyPath, () => createConnection(server.path));
  try {
    const woken = waitForWake(proxyPath, JSON.stringify(wakeRequest));
    await held();
    await tell('the schema changed');
    await proxy.dropped;
    // The dead server's successor.
    await server.close();
    server = (await startRelayServer(options))!;
    const news = await Promise.race([
      woken,
      new Promise<string>((r) => setTimeout(() => r('no answer within 10 s'), 10_000)),
    ]);
    expect(proxy.asks()).toBeGreaterThanOrEqual(2);
    expect(news).toContain('the schema changed');
    // Delivered once, by the first server: the second answered from its record.
    const reads = await app.store.sql.all<{ via: string }>('SELECT via FROM message_reads');
    expect(reads).toEqual([{ via: 'wake' }]);
  } finally {
    await proxy.close();
    await server.close();
  }
}, 30_000);

it('an ask whose call is not one is refused with why, and starts no wait', async () => {
  const { app, server, wakeRequest } = await idleSession();
  const asked = async (call: unknown) => {
    const socket = createConnection(server.path);
    let heard = '';
    socket.on('data', (chunk: Buffer) => {
      heard += chunk.toString();
    });
    socket.write(`${JSON.stringify({ hook: 1, event: 'wake', call, request: wakeRequest })}\n`);
    await new Promise((r) => socket.once('close', r));
    return JSON.parse(heard) as { error?: string };
  };
  try {
    expect((await asked({ id: 'short', again: false })).error).toMatch(/hook's call/);
    expect((await asked({ id: 'long enough id', again: 'yes' })).error).toMatch(/again/);
    expect((await asked({ id: 'x'.repeat(101), again: false })).error).toMatch(/hook's call/);
    expect(await app.store.sql.all('SELECT call FROM call_records')).toEqual([]);
  } finally {
    await server.close();
  }
});

/**
 * B at work, sent a message; B's `event` hook asks the server, which delivers it and dies before the hook
 * hears (its answer dropped); the hook runs the ask itself as the same call, as hook.ts does
 * (`actedAt`: when it began). What it answered, and the message's receipt.
 */
async function askLost(
  event: HookEvent,
  fixture: string,
  actedAt: (startedAt: number) => number | undefined,
) {
  const { app, repo, server, request, tell } = await idleSession();
  const proxyPath = join(tempDir('collab-hook-'), 'proxy.sock');
  const proxy = await droppingFirstAnswer(proxyPath, () => createConnection(server.path));
  // The hook process's own app, on the same database.
  const own = await CoreApp.open({ paths: homeAt(app.paths.home), config: app.config });
  try {
    // B's person typed: its agent works (not idle), with nothing delivered and not acted on.
    await answerHookRequest(
      app,
      'user-prompt-submit',
      request('claude-code/user-prompt-submit', 'B-1'),
      null,
    );
    await tell('the schema changed');
    const ask = request(fixture, 'B-1');
    const startedAt = Date.now();
    const id = newHookCallId();
    const reply = await askServer(proxyPath, event, JSON.stringify(ask), { id, again: false });
    await proxy.dropped;
    expect(reply).toEqual({ answer: null, lost: true });
    const input = parseHookInput(ask.input, repo, event);
    const answer = await asHookCall(hookRecording({ id, again: true }, hookCaller(ask)), () =>
      answerHook(own, event, input, { sessionId: 'B-1', process: null }, actedAt(startedAt)),
    );
    const reads = await app.store.sql.all<{ via: string; acted: number | null }>(
      'SELECT via, acted_at AS acted FROM message_reads',
    );
    return { answer: JSON.stringify(answer), reads };
  } finally {
    await proxy.close();
    await own.close();
    await server.close();
  }
}

it("the server dies once a turn-end hook's ask delivered, before the hook heard: the hook runs the ask itself and answers with that news", async () => {
  const { answer, reads } = await askLost('turn-end', 'claude-code/stop', (at) => at);
  expect(answer).toContain('the schema changed');
  // Delivered once, by the server: the hook answered from its record.
  expect(reads).toEqual([{ via: 'turn_end', acted: null }]);
});

it('the same for a tool use: the news the server delivered is said, and not taken as acted on before the agent has it', async () => {
  const { answer, reads } = await askLost('post-tool-use', 'claude-code/post-tool-use-write', (at) => at);
  expect(answer).toContain('the schema changed');
  expect(reads).toEqual([{ via: 'tool_response', acted: null }]);
});

it('a wake asked again after its server closed is watched again by the next, and woken there', async () => {
  const session = await idleSession();
  const { app, options, me, wakeRequest, held, tell } = session;
  let server = session.server;
  const watchedUntil = async () =>
    (
      await app.store.sql.get<{ at: number | null }>(
        'SELECT wake_watch_until AS at FROM sessions WHERE id = ?',
        [me],
      )
    )?.at ?? null;
  const woken = waitForWake(server.path, JSON.stringify(wakeRequest));
  try {
    await held();
    // The server stops (replaced, say): the wait ends with nothing and the watch is cleared.
    await server.close();
    expect(await watchedUntil()).toBeNull();
    server = (await startRelayServer(options))!;
    // The hook asks the next one under the same call: watched again (its person is not told it
    // idles), not answered from the first wait's record of its watch.
    await held();
    await tell('the schema changed');
    expect(await woken).toContain('the schema changed');
  } finally {
    await server.close();
  }
}, 30_000);

it("a hook's call id is a random UUID from the system's random device: nobody can name another hook's ask", () => {
  const ids = Array.from({ length: 1000 }, newHookCallId);
  for (const id of ids)
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(new Set(ids).size).toBe(ids.length);
  // Each a valid call for the server.
  expect(parseHookCall({ id: ids[0], again: false })).toEqual({ id: ids[0], again: false });
});
