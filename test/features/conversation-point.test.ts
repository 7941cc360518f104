/**
 * A CLI that cannot go back (codex, gemini) continues a conversation only from its latest point,
 * checked inside the write that sets the point: a run that reached a newer point after the caller's
 * read is seen, and the earlier point is refused. The run's write is made there on purpose, just
 * before the caller's write begins: the race, made certain.
 */
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { UNKNOWN_POINT } from '../../src/store/agent-runs-store.js';
import { connectInMemory, testApp } from '../helpers/app.js';
import { beforeNextWrite } from '../helpers/interleave.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

it('a point that stopped being the latest before the write is refused', async () => {
  const app = await testApp();
  const repo = gitRepo();
  const s = await connectInMemory(app, repo, 's');
  await s.call('collab_session_start', { name: 's', project_root: repo });
  const session = (await app.sessions.get(s.connection.currentId!))!;
  const { store } = app;
  const runs = store.agentRuns;
  const reach = (point: string) => () =>
    store.write(() => runs.setConversation(session.id, 'codex', 'main', point, UNKNOWN_POINT, app.now()));
  await reach('p1')();
  // The caller reads p1 as the latest; a run then reaches p2 before the caller's write.
  beforeNextWrite(store, reach('p2'));
  await expect(app.agents.setCurrent(session, 'codex', 'main', 'p1')).rejects.toMatchObject({
    code: 'INVALID_INPUT',
  });
  expect(await runs.conversation(session.id, 'codex', 'main')).toBe('p2');
  // The latest point is still set, and afresh always is.
  await app.agents.setCurrent(session, 'codex', 'main', 'p2');
  expect(await runs.conversation(session.id, 'codex', 'main')).toBe('p2');
  await app.agents.setCurrent(session, 'codex', 'main', null);
  expect(await runs.conversation(session.id, 'codex', 'main')).toBe(null);
});

it("a run's conversation point is written with its ending: a reset sent once the answer came is not undone", async () => {
  const fakes = fileURLToPath(new URL('../fixtures/agent-clis', import.meta.url));
  const saved = { PATH: process.env.PATH, FAKE_AGENT_STATE: process.env.FAKE_AGENT_STATE };
  process.env.PATH = `${fakes}:${process.env.PATH}`;
  process.env.FAKE_AGENT_STATE = tempDir('fake-agent-');
  try {
    const app = await testApp();
    const repo = gitRepo();
    const s = await connectInMemory(app, repo, 's', ['collab', 'agent']);
    await s.call('collab_session_start', { name: 's', project_root: repo });
    const session = (await app.sessions.get(s.connection.currentId!))!;
    const { store } = app;
    // The run's first ending, then (as the client would, having its answer) a reset.
    let ended = false;
    const finish = store.agentRuns.finish.bind(store.agentRuns);
    store.agentRuns.finish = async (...args) => {
      const first = await finish(...args);
      ended ||= first;
      return first;
    };
    const write = store.write.bind(store);
    let reset = false;
    store.write = (async (fn, scope) => {
      const result = await write(fn, scope);
      if (ended && !reset) {
        reset = true;
        await app.agents.setCurrent(session, 'claude', 'default', null);
      }
      return result;
    }) as typeof store.write;
    const run = await s.call<{ status: string; session_id: string }>('execute_claude', {
      prompt: 'my name is Taro',
      wait_seconds: 30,
    });
    expect(run.status).toBe('succeeded');
    expect(reset).toBe(true);
    expect(run.session_id).toBeTruthy();
    expect(await store.agentRuns.conversation(session.id, 'claude', 'default')).toBe(null);
  } finally {
    process.env.PATH = saved.PATH;
    if (saved.FAKE_AGENT_STATE === undefined) delete process.env.FAKE_AGENT_STATE;
    else process.env.FAKE_AGENT_STATE = saved.FAKE_AGENT_STATE;
  }
});
