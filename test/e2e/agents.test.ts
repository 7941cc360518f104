import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqlite } from '../helpers/sqlite.js';
import { connectStdio, waitForExit } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

const FAKES = fileURLToPath(new URL('../fixtures/agent-clis', import.meta.url));
type Connected = Awaited<ReturnType<typeof connectStdio>>;
type Run = {
  execution_id: string;
  status: string;
  result?: string;
  error?: string;
  session_id?: string;
  resumed_from?: string;
  cost_usd?: number;
};
const open: Connected[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => {})));
});

function setup(config: Record<string, unknown> = {}) {
  const home = tempDir('collab-home-');
  const state = tempDir('fake-agent-');
  if (Object.keys(config).length > 0) writeFileSync(join(home, 'config.json'), JSON.stringify(config));
  const repo = gitRepo();
  const env = { PATH: `${FAKES}:${process.env.PATH}`, FAKE_AGENT_STATE: state };
  const connect = async (clientSessionId = 'agent-client-1', extraEnv: Record<string, string> = {}) => {
    const c = await connectStdio({
      cwd: repo,
      home,
      args: ['--toolsets', 'collab,agent'],
      clientSessionId,
      env: { ...env, ...extraEnv },
    });
    open.push(c);
    return c;
  };
  return { home, state, repo, connect };
}

/**
 * Whether a process still runs. A zombie does not: it has ended, and waits only to be reaped by
 * whatever adopted it (on some machines a PID 1 that reaps late, or never).
 */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) [ZX] /s.test(stat);
  } catch {
    return true;
  }
}

describe('execute_claude: a conversation with another agent CLI', () => {
  it('continues across calls and a server restart, goes back to an earlier point, and is searchable', async () => {
    const { connect } = setup();
    let a = await connect();
    const first = await a.call<Run>('execute_claude', { prompt: 'my name is Taro' });
    expect(first).toMatchObject({ status: 'succeeded', result: 'I remember: my name is Taro' });
    const second = await a.call<Run>('execute_claude', { prompt: 'I like reading' });
    expect(second.result).toBe('I remember: my name is Taro | I like reading');
    expect(second.resumed_from).toBe(first.session_id);
    // claude reports the conversation's total cost; each run records its own part.
    expect(second.cost_usd).toBeCloseTo(0.01);
    expect((await a.call<{ session_id: string }>('get_current_session', {})).session_id).toBe(
      second.session_id,
    );

    await a.close();
    await waitForExit(a.pid);
    a = await connect(); // the same client session: the same conversation
    const third = await a.call<Run>('execute_claude', { prompt: 'what do you know?' });
    expect(third.result).toBe('I remember: my name is Taro | I like reading | what do you know?');

    // Back to just after the first call: the second never happened for this branch.
    await a.call('set_current_session', { session_id: first.session_id });
    const branch = await a.call<Run>('execute_claude', { prompt: 'I like swimming' });
    expect(branch.result).toBe('I remember: my name is Taro | I like swimming');

    await a.call('reset_session', {});
    expect((await a.call<Run>('execute_claude', { prompt: 'hello' })).result).toBe('I remember: hello');

    const history = await a.call<{ executions: Array<Run & { prompt: string }> }>(
      'get_execution_history',
      {},
    );
    expect(history.executions.map((e) => e.prompt)).toEqual([
      'hello',
      'I like swimming',
      'what do you know?',
      'I like reading',
      'my name is Taro',
    ]);
    const found = await a.call<{ executions: Array<{ prompt: string }> }>('get_execution_history', {
      query: 'reading',
    });
    expect(found.executions.map((e) => e.prompt)).toEqual(['what do you know?', 'I like reading']);
  }, 60_000);

  it('two conversations run at once; calls on one conversation wait their turn', async () => {
    const { connect } = setup();
    const a = await connect();
    const started = Date.now();
    const [x, y] = await Promise.all([
      a.call<Run>('execute_claude', { prompt: 'sleep 2 then x', conversation: 'x', wait_seconds: 30 }),
      a.call<Run>('execute_claude', { prompt: 'sleep 2 then y', conversation: 'y', wait_seconds: 30 }),
    ]);
    expect(Date.now() - started).toBeLessThan(3_800);
    expect([x.result, y.result]).toEqual(['I remember: sleep 2 then x', 'I remember: sleep 2 then y']);

    const queued = await Promise.all([
      a.call<Run>('execute_claude', { prompt: 'sleep 1 first', conversation: 'q', wait_seconds: 0 }),
      a.call<Run>('execute_claude', { prompt: 'second', conversation: 'q', wait_seconds: 0 }),
    ]);
    expect(queued[1]!.status).toBe('queued'); // behind the first, which is running
    const done = await Promise.all(
      queued.map((r) => a.call<Run>('execution_status', { execution_id: r.execution_id, wait_seconds: 30 })),
    );
    expect(done[1]!.result).toBe('I remember: sleep 1 first | second');
    expect(done[1]!.resumed_from).toBe(done[0]!.session_id);
  }, 60_000);

  it('a long run goes on as a job; cancelling kills its whole process tree; so does the timeout', async () => {
    // The budget leaves a loaded host seconds to start the CLI around its half-second of work.
    const { connect, state } = setup({ agents: { timeout_seconds: 5 } });
    const a = await connect();
    const job = await a.call<Run>('execute_claude', { prompt: 'sleep 0.5', wait_seconds: 0 });
    expect(['queued', 'running']).toContain(job.status);
    expect(
      await a.call<Run>('execution_status', { execution_id: job.execution_id, wait_seconds: 30 }),
    ).toMatchObject({
      status: 'succeeded',
    });

    const timed = await a.call<Run>('execute_claude', { prompt: 'sleep 20', wait_seconds: 30 });
    expect(timed.status).toBe('timed_out');
    const cancelMe = await a.call<Run>('execute_claude', { prompt: 'sleep 20 please', wait_seconds: 1 });
    expect(cancelMe.status).toBe('running');
    expect(await a.call<Run>('cancel_execution', { execution_id: cancelMe.execution_id })).toMatchObject({
      status: 'cancelled',
    });
    // Every child the fake CLI started is gone with it.
    const pids = readdirSync(state)
      .filter((f) => f.startsWith('child-'))
      .map((f) => Number(readFileSync(join(state, f), 'utf8')));
    expect(pids.length).toBeGreaterThanOrEqual(3);
    for (let i = 0; i < 50 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
    expect(pids.filter(alive)).toEqual([]);
  }, 60_000);

  it('retries once on an empty error result; a missing CLI says where it looked', async () => {
    const { connect } = setup();
    const a = await connect();
    expect(await a.call<Run>('execute_claude', { prompt: 'fail-empty-once' })).toMatchObject({
      status: 'succeeded',
      result: 'I remember: fail-empty-once',
    });
    // Files as context: the project's, read into the prompt; anything outside it is refused.
    const withReadme = await a.call<Run>('execute_claude_with_context', {
      prompt: 'summarise',
      file_paths: ['README.md'],
      conversation: 'files',
    });
    expect(withReadme.result).toContain('<file path="README.md">\n# repo\n\n</file>\n\nsummarise');
    expect(
      await a.fail('execute_claude_with_context', { prompt: 'x', file_paths: ['../../../../etc/passwd'] }),
    ).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('outside the project') });
    const missing = await connect('agent-client-2', { PATH: '/usr/bin:/bin', CLAUDE_PATH: '' });
    const run = await missing.call<Run>('execute_claude', { prompt: 'anyone?' });
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/The claude CLI was not found \(looked at: PATH \(claude\), .*\$CLAUDE_PATH/);
    expect(await missing.call('test_claude_cli', {})).toMatchObject({ found: false });
    expect(await a.call('test_claude_cli', {})).toMatchObject({
      found: true,
      version: '2.1.197 (Claude Code, fake)',
      permission: '--permission-mode acceptEdits',
    });
  }, 60_000);
});

describe('bounds and paging', () => {
  it('output past agents.output_chars is cut and says so; a cancelled call cancels its run; history pages', async () => {
    const { connect, state } = setup({ agents: { output_chars: 10_000 } });
    const a = await connect();
    const big = await a.call<Run & { output_truncated?: boolean }>('execute_claude', { prompt: 'big 25000' });
    expect(big).toMatchObject({ status: 'succeeded', output_truncated: true });
    expect(big.result).toHaveLength(10_000);

    // The client gives up on its call: the run it started ends, and whatever it started with it.
    const controller = new AbortController();
    const call = a.client
      .callTool(
        { name: 'execute_claude', arguments: { prompt: 'sleep 30 then stop', wait_seconds: 60 } },
        { signal: controller.signal },
      )
      .catch(() => null);
    const { readdirSync: list } = await import('node:fs');
    for (let i = 0; i < 100 && !list(state).some((f) => f.startsWith('child-')); i++)
      await new Promise((r) => setTimeout(r, 50));
    controller.abort();
    await call;
    let history = await a.call<{ executions: Array<Run & { prompt: string }>; next_cursor: string | null }>(
      'get_execution_history',
      { limit: 1 },
    );
    for (let i = 0; i < 50 && history.executions[0]?.status !== 'cancelled'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      history = await a.call('get_execution_history', { limit: 1 });
    }
    expect(history.executions[0]).toMatchObject({ prompt: 'sleep 30 then stop', status: 'cancelled' });
    const child = Number(readFileSync(join(state, list(state).find((f) => f.startsWith('child-'))!), 'utf8'));
    for (let i = 0; i < 50 && alive(child); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive(child)).toBe(false);
    // The next page holds the run before.
    const next = await a.call<{ executions: Array<{ prompt: string }>; next_cursor: string | null }>(
      'get_execution_history',
      { limit: 1, cursor: history.next_cursor },
    );
    expect(next.executions.map((e) => e.prompt)).toEqual(['big 25000']);
    expect(next.next_cursor).toBeNull();
  }, 60_000);
});

describe('continuing a conversation where it can be continued, and saying why not', () => {
  it('claude, which keeps sessions per folder, continues in the folder its conversation ran in; another is refused', async () => {
    const { connect, repo } = setup();
    const a = await connect();
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(repo, 'sub'));
    expect(await a.call<Run>('execute_claude', { prompt: 'a' })).toMatchObject({ status: 'succeeded' });
    const refused = await a.fail('execute_claude', { prompt: 'b', cwd: 'sub' });
    expect(refused).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('claude keeps a conversation'),
      hint: expect.stringContaining('Leave cwd out'),
    });
    // Prompt b is not lost: without cwd it continues the conversation where it ran.
    expect((await a.call<Run>('execute_claude', { prompt: 'b' })).result).toBe('I remember: a | b');
    // A conversation begun in sub continues there, also while its first call still runs.
    const first = await a.call<Run>('execute_claude', {
      prompt: 'sleep 1 in sub',
      cwd: 'sub',
      conversation: 's',
      wait_seconds: 0,
    });
    expect(await a.fail('execute_claude', { prompt: 'c', conversation: 's', cwd: '.' })).toMatchObject({
      code: 'INVALID_INPUT',
    });
    const next = await a.call<Run>('execute_claude', { prompt: 'c', conversation: 's', wait_seconds: 30 });
    expect(next.result).toBe('I remember: sleep 1 in sub | c');
    expect(next.resumed_from).toBe(
      (await a.call<Run>('execution_status', { execution_id: first.execution_id })).session_id,
    );
    // A new conversation name may run anywhere.
    expect((await a.call<Run>('execute_claude', { prompt: 'd', cwd: 'sub', conversation: 't' })).status).toBe(
      'succeeded',
    );
  }, 60_000);

  it("a failing CLI's own words reach the caller; a blank prompt is refused and nothing runs", async () => {
    const { connect } = setup();
    const a = await connect();
    const run = await a.call<Run>('execute_claude', { prompt: 'not logged in' });
    expect(run).toMatchObject({
      status: 'failed',
      error: 'claude reported an error: Not logged in · Please run /login',
    });
    // A point claude cannot find: its `errors` say so (claude 2.1's error_during_execution).
    await a.call('set_current_session', { session_id: 'no-such-point', conversation: 'lost' });
    expect(await a.call<Run>('execute_claude', { prompt: 'x', conversation: 'lost' })).toMatchObject({
      status: 'failed',
      error: 'No conversation found with session ID: no-such-point',
    });
    for (const prompt of ['', '   ', '\n\t '])
      expect(await a.fail('execute_claude', { prompt })).toMatchObject({
        code: 'INVALID_INPUT',
        message: expect.stringContaining('prompt'),
      });
    const history = await a.call<{ executions: Run[] }>('get_execution_history', { limit: 100 });
    expect(history.executions).toHaveLength(2);
  }, 60_000);

  it("a session id that is no CLI's is refused before it reaches a command line; nothing runs from it", async () => {
    const { connect, home } = setup();
    const a = await connect();
    for (const session_id of [
      '--dangerously-skip-permissions',
      '--settings={"hooks":1}',
      'a b',
      'abc\u0000def',
      '-x',
    ])
      expect(await a.fail('set_current_session', { session_id, conversation: 'c' })).toMatchObject({
        code: 'INVALID_INPUT',
        message: expect.stringContaining('no CLI session id'),
        hint: expect.stringContaining('get_execution_history'),
      });
    expect(await a.call('get_current_session', { conversation: 'c' })).toMatchObject({ session_id: null });
    // A point of the CLI's shape is taken, and goes on the command line as one word.
    await a.call('set_current_session', { session_id: 'abc-1.2:3_4', conversation: 'c' });
    expect(await a.call<Run>('execute_claude', { prompt: 'x', conversation: 'c' })).toMatchObject({
      status: 'failed',
      error: 'No conversation found with session ID: abc-1.2:3_4',
    });
    // One kept otherwise (an older version's store): the run fails saying why, and is not left running.
    const db = openSqlite(join(home, 'registry.db'));
    // The server may hold the write lock a moment: waited for, as its own writers wait.
    db.exec('PRAGMA busy_timeout = 10000');
    db.prepare("UPDATE agent_conversations SET current = '--version' WHERE conversation = 'c'").run();
    db.close();
    const failed = await a.call<Run>('execute_claude', { prompt: 'y', conversation: 'c', wait_seconds: 30 });
    expect(failed).toMatchObject({ status: 'failed', error: expect.stringContaining('no CLI session id') });
  }, 60_000);

  it('a run folder reached through a symlink out of the project is refused', async () => {
    const { connect, repo } = setup();
    const { symlinkSync, mkdirSync } = await import('node:fs');
    const outside = tempDir('outside-');
    symlinkSync(outside, join(repo, 'out'));
    mkdirSync(join(repo, 'in'));
    symlinkSync(join(repo, 'in'), join(repo, 'in-link'));
    const a = await connect();
    expect(await a.fail('execute_claude', { prompt: 'x', cwd: 'out' })).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('outside the project'),
    });
    // A link to a folder of the project is the project's.
    expect(
      await a.call<Run>('execute_claude', { prompt: 'y', cwd: 'in-link', conversation: 'l' }),
    ).toMatchObject({
      status: 'succeeded',
    });
    expect((await a.call<{ executions: Run[] }>('get_execution_history', {})).executions).toHaveLength(1);
  }, 60_000);

  it('a session has at most 20 runs queued or running; one ended makes room', async () => {
    const { connect } = setup({ agents: { max_parallel: 1 } });
    const a = await connect();
    const runs: Run[] = [];
    for (let i = 0; i < 20; i++)
      runs.push(
        await a.call<Run>('execute_claude', { prompt: 'sleep 30', conversation: `c${i}`, wait_seconds: 0 }),
      );
    expect(
      await a.fail('execute_claude', { prompt: 'one more', conversation: 'x', wait_seconds: 0 }),
    ).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('20 runs queued or running'),
      hint: expect.stringContaining('cancel_execution'),
    });
    await a.call('cancel_execution', { execution_id: runs[19]!.execution_id });
    expect(
      await a.call<Run>('execute_claude', { prompt: 'one more', conversation: 'x', wait_seconds: 0 }),
    ).toMatchObject({ status: 'queued' });
  }, 60_000);

  it('a session that ends ends the runs it started', async () => {
    const { connect, state } = setup();
    const a = await connect();
    const run = await a.call<Run>('execute_claude', { prompt: 'sleep 60', wait_seconds: 0 });
    const pidFile = async () => {
      for (let i = 0; i < 200; i++) {
        const file = readdirSync(state).find((f) => f.startsWith('cli-'));
        if (file) return Number(readFileSync(join(state, file), 'utf8'));
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('the CLI never started');
    };
    const pid = await pidFile();
    await a.call('collab_session_end', {});
    for (let i = 0; i < 200 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    expect(alive(pid)).toBe(false);
    expect(await a.call<Run>('execution_status', { execution_id: run.execution_id })).toMatchObject({
      status: 'cancelled',
      error: expect.stringContaining('its session ended'),
    });
  }, 60_000);

  it('a conversation that starts afresh says so and why; without a client session id a restart cannot continue by itself', async () => {
    const { connect } = setup();
    let a = await connect('');
    const first = await a.call<Run & { continued?: boolean; fresh_reason?: string }>('execute_claude', {
      prompt: 'remember 42',
    });
    expect(first).toMatchObject({
      continued: false,
      fresh_reason: 'the first call of this conversation in this session.',
    });
    const second = await a.call<Run & { continued?: boolean; fresh_reason?: string }>('execute_claude', {
      prompt: 'and 43',
    });
    expect(second.continued).toBe(true);
    expect(second.fresh_reason).toBeUndefined();
    const thread = await a.call<Run>('execute_claude', { provider: 'codex', prompt: 'port 8080' });
    await a.close();
    await waitForExit(a.pid);
    a = await connect('');
    const after = await a.call<Run & { continued?: boolean; fresh_reason?: string }>('execute_claude', {
      prompt: 'what do you know?',
    });
    expect(after).toMatchObject({
      status: 'succeeded',
      result: 'I remember: what do you know?',
      continued: false,
    });
    expect(after.fresh_reason).toContain('its client gave no session id');
    expect(after.fresh_reason).toContain(`session_id: "${second.session_id}"`);
    // What it suggests works.
    await a.call('set_current_session', { session_id: second.session_id });
    expect((await a.call<Run>('execute_claude', { prompt: 'now?' })).result).toBe(
      'I remember: remember 42 | and 43 | now?',
    );
    // codex continues only from a thread's latest point: the one the earlier session reached is it.
    await a.call('set_current_session', { provider: 'codex', session_id: thread.session_id });
    expect((await a.call<Run>('execute_claude', { provider: 'codex', prompt: 'host?' })).result).toBe(
      'I remember: port 8080 | host?',
    );
    await a.call('reset_session', {});
    expect(
      (await a.call<Run & { fresh_reason?: string }>('execute_claude', { prompt: 'over' })).fresh_reason,
    ).toBe('reset_session started this conversation over.');
  }, 60_000);

  it('clear_execution_history empties what get_execution_history lists; conversations still continue', async () => {
    const { connect } = setup();
    const a = await connect('clear-a');
    const b = await connect('clear-b');
    await a.call('execute_claude', { prompt: 'mine' });
    await a.call('execute_claude', { prompt: 'mine again' });
    await b.call('execute_claude', { prompt: 'theirs' });
    const going = await a.call<Run>('execute_claude', {
      prompt: 'sleep 3 still going',
      conversation: 'long',
      wait_seconds: 0,
    });
    // Both finished runs go, the one that made the conversation's current point too; 'long' runs on.
    expect(await a.call('clear_execution_history', {})).toEqual({ deleted: 2, kept_running: 1 });
    const text = await a.client.callTool({ name: 'clear_execution_history', arguments: {} });
    expect(JSON.stringify(text.content)).toContain('Kept 1 still queued or running');
    const mine = await a.call<{ executions: Array<{ prompt: string }> }>('get_execution_history', {});
    expect(mine.executions.map((e) => e.prompt)).toEqual(['sleep 3 still going']);
    const all = await a.call<{ executions: Array<{ prompt: string }> }>('get_execution_history', {
      all_sessions: true,
    });
    expect(all.executions.map((e) => e.prompt)).toEqual(['sleep 3 still going', 'theirs']);
    // Their words left the search with them; the other session's stay.
    const found = async (query: string) =>
      (
        await a.call<{ executions: Array<{ prompt: string }> }>('get_execution_history', {
          all_sessions: true,
          query,
        })
      ).executions.map((e) => e.prompt);
    expect(await found('mine')).toEqual([]);
    expect(await found('theirs')).toEqual(['theirs']);
    await a.call('execution_status', { execution_id: going.execution_id, wait_seconds: 30 });
    // The conversation still continues where it was after the clear (its folder and cost are kept
    // with its point), and the continued run costs only its own share of claude's running total.
    const on = await a.call<Run & { cost_usd: number | null }>('execute_claude', { prompt: 'and on' });
    expect(on.result).toBe('I remember: mine | mine again | and on');
    expect(on.cost_usd).toBeCloseTo(0.01);
    expect(await a.call('clear_execution_history', {})).toEqual({ deleted: 2, kept_running: 0 });
    expect((await a.call<{ executions: unknown[] }>('get_execution_history', {})).executions).toEqual([]);
    // Paging an emptied history returns nothing older.
    const paged = await a.call<{ executions: unknown[]; next_cursor?: string }>('get_execution_history', {
      limit: 1,
    });
    expect(paged).toMatchObject({ executions: [] });
    expect(paged.next_cursor ?? null).toBeNull();
    // And it still continues, twice cleared.
    expect((await a.call<Run>('execute_claude', { prompt: 'still' })).result).toBe(
      'I remember: mine | mine again | and on | still',
    );
  }, 60_000);
});

describe('codex and gemini as sub-workers', () => {
  it('codex continues its thread; an earlier point is refused, naming why', async () => {
    const { connect } = setup({ agents: { codex_sandbox: 'read-only' } });
    const a = await connect();
    const first = await a.call<Run>('execute_claude', { provider: 'codex', prompt: 'the port is 8080' });
    expect(first).toMatchObject({ status: 'succeeded', result: 'I remember: the port is 8080' });
    const second = await a.call<Run>('execute_claude', { provider: 'codex', prompt: 'and the host?' });
    expect(second.result).toBe('I remember: the port is 8080 | and the host?');
    expect(second.session_id).toBe(first.session_id); // one thread
    expect(await a.call('test_claude_cli', { provider: 'codex' })).toMatchObject({
      found: true,
      version: 'codex-cli 0.169.0 (fake)',
      permission: '--sandbox read-only',
    });
    expect(
      await a.fail('set_current_session', { provider: 'codex', session_id: 'an-earlier-point' }),
    ).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('append to one thread'),
    });
    // claude's conversation of the same name is its own.
    expect((await a.call<Run>('execute_claude', { prompt: 'hi' })).result).toBe('I remember: hi');
  }, 60_000);

  it('gemini continues its session in the folder it ran in; another folder is refused', async () => {
    const { connect, repo } = setup();
    const a = await connect();
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(repo, 'pkg'));
    const first = await a.call<Run>('execute_claude', { provider: 'gemini', prompt: 'use pnpm', cwd: 'pkg' });
    expect(first).toMatchObject({ status: 'succeeded', result: 'I remember: use pnpm' });
    const second = await a.call<Run>('execute_claude', { provider: 'gemini', prompt: 'which tool?' });
    expect(second).toMatchObject({ status: 'succeeded', result: 'I remember: use pnpm | which tool?' });
    expect(await a.fail('execute_claude', { provider: 'gemini', prompt: 'x', cwd: '.' })).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('the folder it ran in'),
    });
    const history = await a.call<{ executions: Array<{ provider: string }> }>('get_execution_history', {
      provider: 'gemini',
    });
    expect(history.executions).toHaveLength(2);
  }, 60_000);

  it('while a run goes on, progress says what the agent does', async () => {
    const { connect } = setup();
    const a = await connect();
    const progress: string[] = [];
    const result = await a.client.callTool(
      { name: 'execute_claude', arguments: { prompt: 'sleep 4 and read', wait_seconds: 30 } },
      { onprogress: (p) => progress.push(String(p.message)) },
    );
    expect((result.structuredContent as Run).status).toBe('succeeded');
    expect(progress[0]).toMatch(/^claude uses Read README\.md \(\d+ s\)$/);
  }, 60_000);
});
