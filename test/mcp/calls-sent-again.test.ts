/**
 * A call sent again (a relay whose machine's server died before the answer reached it) does
 * nothing twice and is answered the same: every write tool, called once, then sent again over a
 * new connection of the same client (what the next server has), on the test backend.
 */
import { readFileSync } from 'node:fs';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { ownProcess } from '../../src/features/sessions/client-sessions.js';
import { Connection } from '../../src/features/sessions/connection.js';
import type { Tool } from '../../src/features/tool-context.js';
import { WAITED_MS } from '../../src/integrations/relay-address.js';
import { select } from '../../src/mcp/registry.js';
import { callTool } from '../../src/mcp/server.js';
import { FORGOTTEN_TOGETHER } from '../../src/store/call-records-store.js';
import { connectInMemory, testApp } from '../helpers/app.js';
import { gitRepo } from '../helpers/temp.js';

const apps: App[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

/** A connection of one client (one relay: its process, its client session), as a server has it. */
function connectionOf(app: App, cwd: string, client = 'client-1'): Connection {
  return new Connection(app, app.sessions, {
    cwd,
    client: () => 'test-client',
    server: ownProcess(),
    identity: () => ({ sessionId: client, process: null }),
    recordsCalls: true,
  });
}

/** Rows per table (what a call sent again must not add to), but the records of calls themselves. */
async function rowCounts(app: App): Promise<Record<string, number>> {
  const tables =
    app.store.dialect === 'sqlite'
      ? await app.store.sql.all<{ name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
        )
      : await app.store.sql.all<{ name: string }>(
          "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
        );
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    if (name === 'call_records') continue;
    const row = await app.store.sql.get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM "${name}"`);
    counts[name] = Number(row?.n ?? 0);
  }
  return counts;
}

/** The tool's own answer: what the envelope adds (notifications, next steps) aside. */
function answerOf(result: CallToolResult): Record<string, unknown> {
  const {
    notifications: _n,
    next_steps: _s,
    ...own
  } = (result.structuredContent ?? {}) as Record<string, unknown>;
  return own;
}

describe('a write sent again after its answer was lost', () => {
  it('every write tool: done once, answered the same', async () => {
    const app = await testApp();
    apps.push(app);
    const repo = gitRepo({ 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'b\n' });
    const tools = new Map(
      (await select(['collab', 'human', 'review'])).tools.map((t) => [t.name, t as Tool] as const),
    );
    const first = connectionOf(app, repo);
    // Another session of the project, for what is sent to one.
    const other = connectionOf(app, repo, 'client-2');
    await callTool(app, other, tools.get('collab_session_start')!, { name: 'other', project_root: repo });
    let id = 0;
    /** Calls `name` on the first connection, then the same request on a new one, marked as sent again. */
    const twice = async (name: string, args: Record<string, unknown>, grows: Record<string, number> = {}) => {
      id += 1;
      const tool = tools.get(name)!;
      const once = await first.recorded(id, false, () => callTool(app, first, tool, args));
      expect(once.isError, JSON.stringify(once.structuredContent)).toBeFalsy();
      const before = await rowCounts(app);
      for (const [table, n] of Object.entries(grows)) before[table]! += n;
      const next = connectionOf(app, repo);
      const again = await next.recorded(id, true, () => callTool(app, next, tool, args));
      expect(answerOf(again), name).toEqual(answerOf(once));
      expect(await rowCounts(app), name).toEqual(before);
      return answerOf(once);
    };
    await twice('collab_session_start', { name: 'me', project_root: repo });
    const claim = await twice('collab_claim', { files: ['src/a.ts'], intent: 'change a' });
    // The log tells of the claim once as made and once as answered from its record.
    const logged = readFileSync(app.paths.log, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"claim.create"'))
      .map((l) => JSON.parse(l) as { answered_from_record?: boolean });
    expect(logged.map((l) => l.answered_from_record ?? false)).toEqual([false, true]);
    await twice('collab_release', { claim_id: claim.claim_id, status: 'completed' });
    await twice('collab_message_send', { content: 'hello, everyone' });
    await twice('collab_message_send', { to_session_id: 'other', content: 'hello, other' });
    await twice('collab_decision_add', {
      category: 'api',
      title: 'One shape',
      description: 'Every answer has one shape.',
    });
    const asked = await twice('ask_human', { question: 'Ship it?', wait_seconds: 0 });
    await twice('cancel_question', { question_id: asked.question_id });
    await twice('create_project', { id: 'calls', name: 'Calls' });
    await twice('submit_work', {
      projectId: 'calls',
      type: 'code',
      phase: 'review',
      title: 'The records',
      content: 'call_records keep what each write did',
    });
    // The session ended, the next server's connection starts the client's next one on first use,
    // as the client's next call would have: the end itself is not done again.
    await twice('collab_session_end', {}, { sessions: 1, events: 1 });
  });

  it('a wait that handed over news, sent again: answered with the same news at once, not waited out', async () => {
    const app = await testApp();
    apps.push(app);
    const repo = gitRepo();
    const tools = new Map((await select(['collab'])).tools.map((t) => [t.name, t as Tool] as const));
    const first = connectionOf(app, repo);
    const other = connectionOf(app, repo, 'client-2');
    await callTool(app, first, tools.get('collab_session_start')!, { name: 'me', project_root: repo });
    await callTool(app, other, tools.get('collab_session_start')!, { name: 'other', project_root: repo });
    const me = (await first.current()).id;
    await callTool(app, other, tools.get('collab_message_send')!, {
      to_session_id: me,
      content: 'a.ts is yours',
    });
    const wait = tools.get('collab_wait')!;
    const args = { wait_seconds: 20 };
    const once = await first.recorded(7, false, () => callTool(app, first, wait, args));
    const told = once.structuredContent as { outcome: string; messages: Array<{ content: string }> };
    expect(told.outcome).toBe('news');
    expect(told.messages.map((m) => m.content)).toEqual(['a.ts is yours']);
    // The answer lost with its server: the message is read by now, yet the call sent again is
    // answered with it, as the first answer was, rather than waiting 20 s for news to come.
    const next = connectionOf(app, repo);
    const again = await next.recorded(7, true, () => callTool(app, next, wait, args));
    const retold = again.structuredContent as typeof told & { notifications: unknown[] };
    expect(retold.outcome).toBe('news');
    expect(retold.messages).toEqual(told.messages);
    expect(retold.notifications).toEqual((once.structuredContent as typeof retold).notifications);
    // A wait that found nothing the first time, sent again, still waits (here a short while).
    const quiet = await first.recorded(8, false, () => callTool(app, first, wait, { wait_seconds: 1 }));
    expect((quiet.structuredContent as typeof told).outcome).toBe('timed_out');
    const quietAgain = await next.recorded(8, true, () => callTool(app, next, wait, { wait_seconds: 1 }));
    expect((quietAgain.structuredContent as typeof told).outcome).toBe('timed_out');
  });

  it("a call's records are kept until its answer is on its way, then forgotten with a write of the client's once enough wait", async () => {
    const app = await testApp();
    apps.push(app);
    const repo = gitRepo();
    const tools = new Map((await select(['collab'])).tools.map((t) => [t.name, t as Tool] as const));
    const c = connectionOf(app, repo);
    const calls = async () =>
      (await app.store.sql.all<{ call: string }>('SELECT DISTINCT call FROM call_records'))
        .map((r) => Number(r.call.split(':').at(-1)))
        .sort((a, b) => a - b);
    await c.recorded(1, false, () =>
      callTool(app, c, tools.get('collab_session_start')!, { name: 'me', project_root: repo }),
    );
    // Calls 2…: claims, and a read that wrote as it read (expired claims released): all recorded.
    let id = 1;
    const claim = () =>
      c.recorded(++id, false, () =>
        callTool(app, c, tools.get('collab_claim')!, { files: [`f${id}.ts`], intent: `claim ${id}` }),
      );
    await claim();
    await c.recorded(++id, false, () => callTool(app, c, tools.get('collab_claims_list')!, {}));
    expect(await calls()).toEqual([1, 2, 3]);
    // Answered: kept until FORGOTTEN_TOGETHER answered calls wait, then gone with the next write.
    for (let answered = 1; answered <= id; answered++) c.answered(answered);
    while (id < FORGOTTEN_TOGETHER) {
      await claim();
      c.answered(id);
    }
    expect((await calls()).length).toBe(FORGOTTEN_TOGETHER);
    await claim();
    expect(await calls()).toEqual([id]);
  });

  it('a call cut between two of its writes: sent again, the first is answered from its record, the second done once', async () => {
    const app = await testApp();
    apps.push(app);
    const repo = gitRepo();
    const tools = new Map((await select(['collab'])).tools.map((t) => [t.name, t as Tool] as const));
    const first = connectionOf(app, repo);
    await callTool(app, first, tools.get('collab_session_start')!, { name: 'me', project_root: repo });
    const session = (await first.current()).id;
    const { store } = app;
    // Two writes of one call, the process gone between them (the second never runs).
    const claimOnce = () =>
      store.write(async () => {
        const now = app.now();
        await store.sql.run(
          'INSERT INTO decisions (id, project_id, session_id, session_name, category, title, description, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
          [
            `d-${now}-${Math.random()}`,
            (await first.current()).project_id,
            session,
            'me',
            'api',
            't',
            'd',
            now,
          ],
        );
        return now;
      });
    const second = () => store.write(async () => store.sql.run("UPDATE decisions SET title = title || '+'"));
    const cut = await first.recorded(99, false, async () => {
      const at = await claimOnce();
      return at;
    });
    const again = await connectionOf(app, repo).recorded(99, true, async () => {
      const at = await claimOnce();
      await second();
      return at;
    });
    expect(again).toBe(cut);
    const rows = await store.sql.all<{ title: string }>('SELECT title FROM decisions');
    expect(rows).toEqual([{ title: 't+' }]);
  });

  it('a wait sent again is asked for what is left of its time: of the seconds it gave, or of its default', async () => {
    const app = await testApp();
    apps.push(app);
    const c = await connectInMemory(app, gitRepo(), 'waiter');
    const waited = async (args: Record<string, unknown>, waitedMs: number) => {
      const result = await c.client.callTool({
        name: 'collab_wait',
        arguments: args,
        _meta: { 'session-collab/again': true, [WAITED_MS]: waitedMs },
      });
      const out = result.structuredContent as { outcome: string; waited_ms: number };
      expect(out.outcome).toBe('timed_out');
      return out.waited_ms;
    };
    // The default (45 s), 44 s of it waited before the server died: a second is left, and the answer
    // says how long the call waited in all, as it would have had the server not died.
    const byDefault = await waited({}, 44_000);
    expect(byDefault).toBeGreaterThanOrEqual(44_900);
    expect(byDefault).toBeLessThan(54_000);
    // 30 s asked, 28.5 s of it waited: 2 s left (a second over at most, never under).
    const given = await waited({ wait_seconds: 30 }, 28_500);
    expect(given).toBeGreaterThanOrEqual(29_900);
    expect(given).toBeLessThan(38_500);
    // Waited past it all: a last look of a second (collab_wait takes no wait of 0).
    const past = await waited({ wait_seconds: 5 }, 60_000);
    expect(past).toBeLessThan(70_000);
  });
});
