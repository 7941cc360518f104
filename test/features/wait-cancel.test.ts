// A collab_wait cancelled by its client while it reads the news it found: the messages are left
// unread (the answer that would have carried them is never read), for the next call to hand over.
import { afterEach, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { ownProcess } from '../../src/features/sessions/client-sessions.js';
import { Connection } from '../../src/features/sessions/connection.js';
import type { Tool } from '../../src/features/tool-context.js';
import { select } from '../../src/mcp/registry.js';
import { callTool } from '../../src/mcp/server.js';
import { testApp } from '../helpers/app.js';
import { gitRepo } from '../helpers/temp.js';

const apps: App[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

it('a wait cancelled as it marks its news read: nothing is marked, the next wait hands it over', async () => {
  const app = await testApp();
  apps.push(app);
  const repo = gitRepo();
  const tools = new Map((await select(['collab'])).tools.map((t) => [t.name, t as Tool] as const));
  const connection = (client: string) =>
    new Connection(app, app.sessions, {
      cwd: repo,
      client: () => 'test-client',
      server: ownProcess(),
      identity: () => ({ sessionId: client, process: null }),
    });
  const mine = connection('client-1');
  const other = connection('client-2');
  await callTool(app, mine, tools.get('collab_session_start')!, { name: 'me', project_root: repo });
  await callTool(app, other, tools.get('collab_session_start')!, { name: 'other', project_root: repo });
  const me = (await mine.current()).id;
  await callTool(app, other, tools.get('collab_message_send')!, { to_session_id: me, content: 'schema v2' });

  // The client cancels just as the wait reads the message it found.
  const cancel = new AbortController();
  const list = app.messages.list.bind(app.messages);
  app.messages.list = (...args: Parameters<typeof list>) => {
    cancel.abort();
    return list(...args);
  };
  const wait = tools.get('collab_wait')!;
  const cancelled = await callTool(
    app,
    mine,
    wait,
    { wait_seconds: 5 },
    { signal: cancel.signal, waitedBefore: 0, progress() {}, elicit: null },
  );
  expect((cancelled.structuredContent as { outcome: string }).outcome).toBe('timed_out');
  expect((await app.messages.news(await mine.current())).unread).toBe(1);

  app.messages.list = list;
  const next = await callTool(app, mine, wait, { wait_seconds: 5 });
  const told = next.structuredContent as { outcome: string; messages: Array<{ content: string }> };
  expect(told.outcome).toBe('news');
  expect(told.messages.map((m) => m.content)).toEqual(['schema v2']);
});
