/**
 * At a turn's end, news that asks for action sends the agent back with it, in each client's own
 * wire format (Claude Code and Codex `Stop`, Gemini CLI `AfterAgent`, Cursor `stop`), each item
 * once and at most `turn_end_continuations` times in a row; with nothing new the turn ends. A claim
 * the session was stopped by, once released, is such news. An idle Claude Code session's wake hook
 * (`asyncRewake`) is answered by the machine's server when news comes, and ends quietly when the
 * session acts again. Real hook processes under fake client processes; the news sent over a real
 * relay.
 */
import { readdirSync, readlinkSync, renameSync } from 'node:fs';
import { createConnection } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { droppingFirstAnswer } from '../helpers/dropping-proxy.js';
import { closeHookClients, twoHookClients } from '../helpers/hook-clients.js';
import { hookFixture } from '../helpers/hook-fixtures.js';
import { openSqlite } from '../helpers/sqlite.js';
import { connectStdio, type hookClient, serverPid, waitFor, waitForExit } from '../helpers/stdio.js';

type Closable = { close: () => Promise<unknown> };
const open: Closable[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => {})));
  await closeHookClients();
});

const parse = (stdout: string) => (stdout.trim() === '' ? null : JSON.parse(stdout));

/** Two hook clients, and a third session (over a real relay) that sends the news. */
async function withMessenger(config: Record<string, unknown> = {}) {
  const setup = await twoHookClients(config);
  const messenger = await connectStdio({ cwd: setup.repo, home: setup.home, name: 'messenger' });
  open.push(messenger);
  await messenger.call('collab_session_start', { name: 'messenger', project_root: setup.repo });
  const tell = (to: string, content: string) =>
    messenger.call('collab_message_send', { to_session_id: to, content });
  return { ...setup, messenger, tell };
}

/** The collab session id of the client session `clientId` (its SessionStart answer names it). */
async function started(
  client: Awaited<ReturnType<typeof hookClient>>,
  fixture: string,
  repo: string,
  id: string,
) {
  const out = parse((await client.hook('session-start', hookFixture(fixture, repo, id))).stdout);
  const text: string = out.hookSpecificOutput?.additionalContext ?? out.additional_context;
  return /session_id ([0-9a-f-]{36})/.exec(text)![1]!;
}

describe('the turn-end hook', () => {
  it('Claude Code: a message sends the agent back once; nothing new ends the turn; at most 3 in a row', async () => {
    const { repo, b, tell } = await withMessenger();
    const bId = await started(b, 'claude-code/session-start', repo, 'B-1');
    const stop = (active = false) =>
      b.hook('turn-end', { ...hookFixture('claude-code/stop', repo, 'B-1'), stop_hook_active: active });

    // Nothing new: the turn ends (no answer at all).
    const quiet = await stop();
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).toBe('');

    await tell(bId, 'Please also rename logout while you are there.');
    const back = parse((await stop()).stdout);
    expect(Object.keys(back).sort()).toEqual(['decision', 'reason']);
    expect(back.decision).toBe('block');
    expect(back.reason).toContain('no person typed it');
    expect(back.reason).toContain('> Please also rename logout while you are there.');
    expect(back.reason).toContain('Message from "messenger"');
    // Once: the turn that goes on ends with nothing new.
    expect((await stop(true)).stdout).toBe('');

    // A session that keeps being written to goes on 3 times in a row, then its turn ends all the
    // same; the news waits for its next turn.
    const answers: Array<string | null> = [];
    for (let i = 0; i < 4; i++) {
      await tell(bId, `note ${i}`);
      answers.push(parse((await stop(i > 0)).stdout)?.reason ?? null);
    }
    expect(answers.map((a) => (a === null ? null : /note \d/.exec(a)![0]))).toEqual([
      'note 0',
      'note 1',
      'note 2',
      null,
    ]);
    // A new turn (the person typed): the news that waited is delivered at its end.
    expect(parse((await stop(false)).stdout).reason).toContain('note 3');
  }, 60_000);

  it("each client's own wire format: Codex blocks, Gemini CLI denies with a new prompt, Cursor follows up", async () => {
    const { repo, a, b, tell } = await withMessenger();
    const codexId = await started(a, 'claude-code/session-start', repo, 'X-1');
    await tell(codexId, 'codex, look at auth.py');
    const codex = parse((await a.hook('turn-end', hookFixture('codex/stop', repo, 'X-1'))).stdout);
    expect(codex).toEqual({ decision: 'block', reason: expect.stringContaining('> codex, look at auth.py') });

    const geminiClient = b;
    const geminiId = await started(geminiClient, 'claude-code/session-start', repo, 'G-1');
    await tell(geminiId, 'gemini, look at app.tsx');
    const after = parse(
      (await geminiClient.hook('turn-end', hookFixture('gemini-cli/after-agent', repo, 'G-1'))).stdout,
    );
    // No stopReason: Gemini CLI would read it instead of the reason.
    expect(after).toEqual({ decision: 'deny', reason: expect.stringContaining('> gemini, look at app.tsx') });
  }, 60_000);

  it('Cursor: the news is its next message (followup_message); loop_count at the limit ends the turn', async () => {
    const { repo, b, tell } = await withMessenger();
    const id = await started(b, 'cursor/session-start', repo, 'C-1');
    const stop = (loop: number) =>
      b.hook('stop', { ...hookFixture('cursor/stop', repo, 'C-1'), loop_count: loop });
    expect(parse((await stop(0)).stdout)).toEqual({});
    await tell(id, 'cursor, the API changed');
    expect(parse((await stop(0)).stdout)).toEqual({
      followup_message: expect.stringContaining('> cursor, the API changed'),
    });
    await tell(id, 'and again');
    expect(parse((await stop(3)).stdout)).toEqual({});
    expect(parse((await stop(0)).stdout).followup_message).toContain('> and again');
  }, 60_000);

  it('a claim the session was stopped by, released, sends it back saying the file is free', async () => {
    const { repo, a, b } = await twoHookClients();
    await a.hook('post-tool-use', hookFixture('claude-code/post-tool-use-write', repo, 'A-1'));
    const denied = parse(
      (await b.hook('pre-tool-use', hookFixture('claude-code/pre-tool-use-edit', repo, 'B-1'))).stdout,
    );
    expect(denied.hookSpecificOutput.permissionDecision).toBe('deny');
    const stop = () => b.hook('turn-end', hookFixture('claude-code/stop', repo, 'B-1'));
    // Still held: nothing to go on with.
    expect((await stop()).stdout).toBe('');
    // A's session ends: its claim goes.
    await a.hook('session-end', hookFixture('claude-code/session-end', repo, 'A-1'));
    const back = parse((await stop()).stdout);
    expect(back.decision).toBe('block');
    expect(back.reason).toContain('src/api/auth.py, which you were stopped from editing, is free');
    // Once.
    expect((await stop()).stdout).toBe('');
  }, 60_000);

  it("the machine's server delivers the news and its answer never reaches the hook: the hook runs its ask as the same call and says that news", async () => {
    const { home, repo, b, tell } = await withMessenger();
    const id = await started(b, 'claude-code/session-start', repo, 'B-1');
    await tell(id, 'the schema changed');
    // Between the hook and the server (its socket moved aside, the link unchanged): the first
    // answer the server writes is dropped and the hook's connection ends with nothing, as when the
    // server is killed between its write's commit and its answer.
    const link = join(home, readdirSync(home).find((f) => /^server-.*\.sock$/.test(f))!);
    const own = resolve(dirname(link), readlinkSync(link));
    renameSync(own, `${own}.moved`);
    const proxy = await droppingFirstAnswer(own, () => createConnection(`${own}.moved`));
    try {
      // The hook's first step asks the server (dist/hook.cjs); unanswered, the whole hook
      // (dist/hot.cjs, minified apart from the server's dist/main.cjs) runs the ask itself.
      const back = parse((await b.hook('turn-end', hookFixture('claude-code/stop', repo, 'B-1'))).stdout);
      expect(proxy.asks()).toBe(1);
      await proxy.dropped;
      expect(back.decision).toBe('block');
      expect(back.reason).toContain('> the schema changed');
    } finally {
      await proxy.close();
      renameSync(`${own}.moved`, own);
    }
    // Delivered once, by the server; the hook answered from its record.
    const db = openSqlite(join(home, 'registry.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT via FROM message_reads').all()).toEqual([{ via: 'turn_end' }]);
    } finally {
      db.close();
    }
  }, 60_000);

  it('turn_end_continuations 0: never sent back', async () => {
    const { repo, b, tell } = await withMessenger({ turn_end_continuations: 0 });
    const id = await started(b, 'claude-code/session-start', repo, 'B-1');
    await tell(id, 'hello');
    expect((await b.hook('turn-end', hookFixture('claude-code/stop', repo, 'B-1'))).stdout).toBe('');
  }, 60_000);
});

describe('delivery receipts', () => {
  it('the sender sees when and how each message reached the agent, and when it next acted', async () => {
    const { home, repo, a, b, tell, messenger } = await withMessenger();
    const bId = await started(b, 'claude-code/session-start', repo, 'B-1');
    const aId = await started(a, 'claude-code/session-start', repo, 'A-1');
    type Sent = {
      messages: Array<{
        content: string;
        receipts: Array<{
          session: string;
          delivered_at: string | null;
          delivered_via: string | null;
          acted_at: string | null;
        }>;
      }>;
    };
    const sent = async (content: string) =>
      (await messenger.call<Sent>('collab_message_list', { box: 'sent' })).messages.find(
        (m) => m.content === content,
      )!;

    // Not delivered yet: its recipient, with nothing.
    await tell(bId, 'at turn end');
    expect((await sent('at turn end')).receipts).toEqual([
      {
        session_id: bId,
        session: expect.any(String),
        delivered_at: null,
        delivered_via: null,
        acted_at: null,
      },
    ]);
    // Delivered at B's turn end; B then acts (a tool call its hooks see): acted.
    await b.hook('turn-end', hookFixture('claude-code/stop', repo, 'B-1'));
    const turnEnd = (await sent('at turn end')).receipts[0]!;
    expect(turnEnd).toMatchObject({ delivered_via: 'turn_end', acted_at: null });
    expect(turnEnd.delivered_at).not.toBeNull();
    await new Promise((r) => setTimeout(r, 5));
    await b.hook('post-tool-use', hookFixture('claude-code/post-tool-use-read', repo, 'B-1'));
    expect((await sent('at turn end')).receipts[0]!.acted_at).not.toBeNull();

    // With a prompt, and after a tool call.
    await tell(aId, 'with the prompt');
    await a.hook('user-prompt-submit', hookFixture('claude-code/user-prompt-submit', repo, 'A-1'));
    expect((await sent('with the prompt')).receipts[0]).toMatchObject({ delivered_via: 'prompt' });
    await tell(aId, 'after a tool');
    await a.hook('post-tool-use', hookFixture('claude-code/post-tool-use-read', repo, 'A-1'));
    expect((await sent('after a tool')).receipts[0]).toMatchObject({ delivered_via: 'tool_response' });

    // An agent with no hooks (its MCP server only): a tool response only announces a message (its
    // notification, a preview); the message is delivered when the agent reads it.
    const reader = await connectStdio({ cwd: repo, home, name: 'reader' });
    open.push(reader);
    const { session_id: readerId } = await reader.call<{ session_id: string }>('collab_session_start', {
      name: 'reader',
      project_root: repo,
    });
    await tell(readerId, 'read me');
    await reader.call('collab_check', { files: ['README.md'] });
    expect((await sent('read me')).receipts[0]).toMatchObject({ delivered_at: null });
    await reader.call('collab_message_list', {});
    expect((await sent('read me')).receipts[0]).toMatchObject({ delivered_via: 'list', acted_at: null });
    await reader.call('collab_check', { files: ['README.md'] });
    expect((await sent('read me')).receipts[0]!.acted_at).not.toBeNull();

    // A broadcast: one receipt per session it reached, as each is delivered it.
    await messenger.call('collab_message_send', { content: 'to everyone' });
    await a.hook('turn-end', hookFixture('claude-code/stop', repo, 'A-1'));
    expect((await sent('to everyone')).receipts.map((r) => r.delivered_via)).toEqual(['turn_end']);
    await b.hook('user-prompt-submit', hookFixture('claude-code/user-prompt-submit', repo, 'B-1'));
    expect((await sent('to everyone')).receipts.map((r) => r.delivered_via).sort()).toEqual([
      'prompt',
      'turn_end',
    ]);
  }, 60_000);
});

describe('the wake hook (Claude Code asyncRewake)', () => {
  it('an idle session is woken by a message within 2 s (exit 2, the news on stderr); acting again ends the wait quietly', async () => {
    const { repo, b, tell, messenger } = await withMessenger();
    const id = await started(b, 'claude-code/session-start', repo, 'B-1');
    const stopInput = hookFixture('claude-code/stop', repo, 'B-1');
    // The turn ends with nothing new: idle. The wake hook starts beside the turn-end hook.
    expect((await b.hook('turn-end', stopInput)).stdout).toBe('');
    const waking = b.hook('wake', stopInput);
    await new Promise((r) => setTimeout(r, 1_000));
    const sent = Date.now();
    await tell(id, 'wake up: the schema changed');
    const woke = await waking;
    expect(woke.code).toBe(2);
    expect(Date.now() - sent).toBeLessThan(2_000);
    expect(woke.stderr).toContain('> wake up: the schema changed');
    expect(woke.stdout).toBe('');
    const { messages } = await messenger.call<{
      messages: Array<{ receipts: Array<{ delivered_via: string }> }>;
    }>('collab_message_list', { box: 'sent' });
    expect(messages[0]!.receipts[0]!.delivered_via).toBe('wake');
    // Delivered once: the next turn's end has nothing.
    expect((await b.hook('turn-end', { ...stopInput, stop_hook_active: true })).stdout).toBe('');

    // Idle again; the person types: the wait ends with nothing to say, and the news goes with the prompt.
    const again = b.hook('wake', stopInput);
    await new Promise((r) => setTimeout(r, 500));
    await b.hook('user-prompt-submit', hookFixture('claude-code/user-prompt-submit', repo, 'B-1'));
    const quiet = await again;
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
  }, 60_000);

  it('a newer wake of the same session replaces the older one', async () => {
    const { repo, b, tell } = await withMessenger();
    const id = await started(b, 'claude-code/session-start', repo, 'B-1');
    const stopInput = hookFixture('claude-code/stop', repo, 'B-1');
    await b.hook('turn-end', stopInput);
    const older = b.hook('wake', stopInput);
    await new Promise((r) => setTimeout(r, 500));
    const newer = b.hook('wake', stopInput);
    expect((await older).code).toBe(0);
    await tell(id, 'one wake only');
    const woke = await newer;
    expect(woke.code).toBe(2);
    expect(woke.stderr).toContain('> one wake only');
  }, 60_000);

  it('a wake hook that went away delivers nothing; a wake for a client session nobody started starts none', async () => {
    const { home, repo, b, tell, messenger } = await withMessenger();
    const id = await started(b, 'claude-code/session-start', repo, 'B-1');
    const stopInput = hookFixture('claude-code/stop', repo, 'B-1');
    await b.hook('turn-end', stopInput);
    // A wake held on the machine server's socket, whose hook then ends its side.
    const link = readdirSync(home).find((f) => /^server-.*\.sock$/.test(f))!;
    const socket = createConnection(join(home, link));
    await new Promise((r) => socket.once('connect', r));
    socket.write(
      `${JSON.stringify({ hook: 1, event: 'wake', request: { input: JSON.stringify(stopInput), cwd: repo, identity: { sessionId: 'B-1', pid: null, start: null } } })}\n`,
    );
    await new Promise((r) => setTimeout(r, 500));
    socket.end();
    await new Promise((r) => setTimeout(r, 300));
    await tell(id, 'after the hook went away');
    await new Promise((r) => setTimeout(r, 1_000));
    socket.destroy();
    type Sent = { messages: Array<{ receipts: Array<{ delivered_at: string | null }> }> };
    const sent = await messenger.call<Sent>('collab_message_list', { box: 'sent' });
    expect(sent.messages[0]!.receipts[0]!.delivered_at).toBeNull();
    // Its next turn's end hears it.
    expect(parse((await b.hook('turn-end', stopInput)).stdout).reason).toContain(
      '> after the hook went away',
    );

    // A wake for a client session no hook started: nothing to wait for, and no session made.
    type Listed = { sessions: unknown[] };
    const before = (await messenger.call<Listed>('collab_session_list', { include_inactive: true })).sessions
      .length;
    const none = await b.hook('wake', hookFixture('claude-code/stop', repo, 'NOBODY-1'));
    expect(none.code).toBe(0);
    expect(
      (await messenger.call<Listed>('collab_session_list', { include_inactive: true })).sessions,
    ).toHaveLength(before);
  }, 60_000);

  it("the machine's server stops at once on SIGTERM while a wake hook waits on it, and the hook asks the next one", async () => {
    const { home, repo, b, tell } = await withMessenger();
    const id = await started(b, 'claude-code/session-start', repo, 'B-1');
    const stopInput = hookFixture('claude-code/stop', repo, 'B-1');
    await b.hook('turn-end', stopInput);
    const waking = b.hook('wake', stopInput);
    // Killed once the server watches the session for its hook (a hook that never reached a server
    // has nothing to ask again: it ends with no news, and a loaded host can take a second to start it).
    const db = openSqlite(join(home, 'registry.db'), { readonly: true });
    await waitFor(
      () =>
        (
          db.prepare('SELECT wake_watch_until FROM sessions WHERE id = ?').get(id) as {
            wake_watch_until: number | null;
          }
        ).wake_watch_until !== null,
      15_000,
      'the server to watch the session',
    );
    db.close();
    const pid = serverPid(home)!;
    const stopped = Date.now();
    process.kill(pid, 'SIGTERM');
    await waitForExit(pid, 5_000);
    expect(Date.now() - stopped).toBeLessThan(5_000);
    // The hook was given no answer: it waits on the next server (the messenger's relay starts
    // one), which wakes it when news comes.
    await waitFor(() => {
      const next = serverPid(home);
      return next !== null && next !== pid;
    }, 15_000);
    await new Promise((r) => setTimeout(r, 1_500));
    await tell(id, 'after the restart');
    const woke = await waking;
    expect(woke.code).toBe(2);
    expect(woke.stderr).toContain('> after the restart');
  }, 60_000);
});
