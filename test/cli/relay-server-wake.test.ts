// A wake hook held on the machine's server (Claude Code's asyncRewake) when that server closes
// while it delivers the news: the news reaches the hook, or stays unread for the next server the
// hook asks. Never read and dropped, and the close never waits on the hook. In process, over the
// server's real socket.
import { createConnection } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { startRelayServer } from '../../src/cli/relay-server.js';
import { builtDefinitions } from '../../src/cli/serve.js';
import { answerHookRequest } from '../../src/features/enforcement/hook-requests.js';
import { testApp } from '../helpers/app.js';
import { hookFixture } from '../helpers/hook-fixtures.js';
import { pausePoint } from '../helpers/interleave.js';
import { gitRepo } from '../helpers/temp.js';

const apps: App[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

/**
 * B idle, its wake hook held on a relay server; a message for B; the server closed while the
 * delivery is held `before` it starts or `after` it committed. The hook keeps its side open, as a
 * hook stopped with its client would. What the hook heard, and how B's message was read.
 */
async function closedWhileDelivering(held: 'before' | 'after') {
  const app = await testApp({ backend: 'sqlite' });
  apps.push(app);
  const repo = gitRepo();
  const server = (await startRelayServer({
    app,
    built: builtDefinitions(),
    audit: () => null,
    takeOver: true,
    onReplaced: () => {},
  }))!;
  const request = (fixture: string, id: string) => ({
    input: JSON.stringify(hookFixture(fixture, repo, id)),
    cwd: repo,
    identity: { sessionId: id, pid: null, start: null },
  });
  const started = await answerHookRequest(
    app,
    'session-start',
    request('claude-code/session-start', 'B-1'),
    null,
  );
  const me = /session_id ([0-9a-f-]{36})/.exec(JSON.stringify(started))![1]!;
  await answerHookRequest(app, 'session-start', request('claude-code/session-start', 'C-1'), null);
  // B's turn ends with nothing new: idle, its wake hook held on the server's socket.
  await answerHookRequest(app, 'turn-end', request('claude-code/stop', 'B-1'), null);
  const socket = createConnection({ path: server.path, allowHalfOpen: true });
  let heard = '';
  socket.on('data', (chunk: Buffer) => {
    heard += chunk.toString();
  });
  // The server's side ends (the hook's stays open).
  const ended = new Promise((r) => socket.once('end', r));
  await new Promise((r) => socket.once('connect', r));
  socket.write(
    `${JSON.stringify({ hook: 1, event: 'wake', request: request('claude-code/stop', 'B-1') })}\n`,
  );
  const watched = async () =>
    (
      await app.store.sql.get<{ at: number | null }>(
        'SELECT wake_watch_until AS at FROM sessions WHERE id = ?',
        [me],
      )
    )?.at != null;
  for (let i = 0; i < 100 && !(await watched()); i++) await new Promise((r) => setTimeout(r, 50));
  expect(await watched()).toBe(true);

  const wakeNews = app.inbox.wakeNews.bind(app.inbox);
  const delivery = pausePoint();
  app.inbox.wakeNews = async (...args: Parameters<typeof wakeNews>) => {
    if (held === 'before') await delivery.pass();
    const news = await wakeNews(...args);
    if (held === 'after') await delivery.pass();
    return news;
  };
  const others = await app.store.sql.all<{ id: string }>('SELECT id FROM sessions WHERE id <> ?', [me]);
  const c = (await app.sessions.get(others[0]!.id))!;
  await app.messages.send(c, { to: me, content: 'the schema changed' });
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
