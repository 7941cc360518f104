/**
 * A delegated CLI never outlives the server that started it: a `serve` that ends (its client gone,
 * SIGTERM, SIGINT: the relay waits while the machine's server ends its session's runs) or a hub
 * that stops ends its runs' whole process groups and records them cancelled; a server killed
 * outright (SIGKILL) cannot, so the next server to start ends what it left. Real `serve` and `hub`
 * processes, the fake claude CLI and the processes it starts.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { stoppedAfterEach } from '../helpers/hub.js';
import { openSqlite } from '../helpers/sqlite.js';
import { connectStdio, serverPid, waitForExit } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

const FAKES = fileURLToPath(new URL('../fixtures/agent-clis', import.meta.url));
type Run = { execution_id: string; status: string; error?: string; prompt?: string };
type Connected = Awaited<ReturnType<typeof connectStdio>>;
const open: Connected[] = [];
/** Processes a test leaves behind when it fails: never outlive the file. */
const started: number[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => {})));
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
});
const { hub, client } = stoppedAfterEach();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function setup(config: Record<string, unknown> = {}) {
  const home = tempDir('collab-home-');
  writeFileSync(join(home, 'config.json'), JSON.stringify(config));
  const state = tempDir('fake-agent-');
  const repo = gitRepo();
  const env = { PATH: `${FAKES}:${process.env.PATH}`, FAKE_AGENT_STATE: state };
  /** A client, its `serve` a relay (`inProcess`: a server of its own). */
  const connect = async (inProcess = false) => {
    const c = await connectStdio({
      cwd: repo,
      home,
      args: ['--toolsets', 'collab,agent', ...(inProcess ? ['--in-process'] : [])],
      clientSessionId: 'runs-end-client',
      env,
    });
    open.push(c);
    return c;
  };
  /** The fake CLI's pid and the pid of the process it started, once both run. */
  const processes = async (): Promise<{ cli: number; child: number }> => {
    for (let i = 0; i < 200; i++) {
      const files = readdirSync(state);
      const cli = files.find((f) => f.startsWith('cli-'));
      const child = files.find((f) => f.startsWith('child-'));
      if (cli && child) {
        const pids = {
          cli: Number(readFileSync(join(state, cli), 'utf8')),
          child: Number(readFileSync(join(state, child), 'utf8')),
        };
        started.push(pids.cli, pids.child);
        return pids;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the fake CLI did not start its child');
  };
  return { home, repo, state, env, connect, processes };
}

/** The project's newest run as a new server sees it (the session that ran it may have ended). */
async function newestRun(c: Connected): Promise<Run> {
  const history = await c.call<{ executions: Run[] }>('get_execution_history', {
    limit: 1,
    all_sessions: true,
  });
  return history.executions[0]!;
}

async function gone(pids: number[], ms = 6_000): Promise<number[]> {
  const deadline = Date.now() + ms;
  while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return pids.filter(alive);
}

describe('a server that ends ends the agent CLIs it runs', () => {
  for (const how of ['client gone', 'SIGTERM', 'SIGINT'] as const)
    it(`serve ending (${how}): the CLI's whole group is ended and the run recorded cancelled, with why`, async () => {
      const { connect, processes } = setup();
      const a = await connect();
      const job = await a.call<Run>('execute_claude', { prompt: 'sleep 60 on a long task', wait_seconds: 1 });
      expect(job.status).toBe('running');
      const { cli, child } = await processes();
      if (how === 'client gone') await a.close();
      else process.kill(a.pid, how);
      await waitForExit(a.pid);
      // Nothing is left when the server is gone: it waited for the group to end.
      expect(await gone([cli, child], 500)).toEqual([]);
      const b = await connect();
      expect(await newestRun(b)).toMatchObject({
        prompt: 'sleep 60 on a long task',
        status: 'cancelled',
        error:
          how === 'client gone'
            ? expect.stringMatching(
                /^cancelled: its server stopped \((client disconnected|connection closed)\)$/,
              )
            : `cancelled: its server stopped (${how})`,
      });
    }, 60_000);

  it('what ignores SIGTERM is killed, and what left the group holding the output pipe ends too: serve still exits', async () => {
    const { connect, processes, state } = setup();
    const a = await connect();
    await a.call<Run>('execute_claude', { prompt: 'sleep 60 stubborn', wait_seconds: 1 });
    const { cli, child } = await processes();
    const pidOf = (prefix: string) => {
      const file = readdirSync(state).find((f) => f.startsWith(prefix));
      return file ? Number(readFileSync(join(state, file), 'utf8')) : null;
    };
    for (let i = 0; i < 100 && (pidOf('deaf-') === null || pidOf('escaped-') === null); i++)
      await new Promise((r) => setTimeout(r, 50));
    const deaf = pidOf('deaf-')!;
    const escaped = pidOf('escaped-')!;
    started.push(deaf, escaped);
    process.kill(a.pid, 'SIGTERM');
    // Within the grace (2 s), SIGKILL, and the wait for the pipe's holder: never a hang.
    await waitForExit(a.pid, 8_000);
    expect(await gone([cli, child, deaf, escaped], 1_000)).toEqual([]);
    const b = await connect();
    expect(await newestRun(b)).toMatchObject({
      status: 'cancelled',
      error: 'cancelled: its server stopped (SIGTERM)',
    });
  }, 60_000);

  it('runs still queued (no slot free, or behind their conversation) end at once, before they start', async () => {
    const { connect, processes } = setup({ agents: { max_parallel: 1 } });
    const a = await connect();
    await a.call<Run>('execute_claude', { prompt: 'sleep 60 holds the slot', wait_seconds: 1 });
    const waiting = await a.call<Run>('execute_claude', {
      prompt: 'no slot',
      conversation: 'other',
      wait_seconds: 0,
    });
    const behind = await a.call<Run>('execute_claude', { prompt: 'behind it', wait_seconds: 0 });
    expect([waiting.status, behind.status]).toEqual(['queued', 'queued']);
    await processes();
    process.kill(a.pid, 'SIGTERM');
    await waitForExit(a.pid, 8_000);
    const b = await connect();
    const all = await b.call<{ executions: Array<Run & { prompt: string }> }>('get_execution_history', {
      limit: 10,
    });
    const of = (prompt: string) => all.executions.find((e) => e.prompt === prompt);
    expect(of('no slot')).toMatchObject({
      status: 'cancelled',
      error: 'cancelled: its server stopped (SIGTERM) before it started',
    });
    expect(of('behind it')).toMatchObject({
      status: 'cancelled',
      error: 'cancelled: its server stopped (SIGTERM) before it started',
    });
    expect(of('sleep 60 holds the slot')).toMatchObject({ status: 'cancelled' });
  }, 60_000);

  it('a relay killed outright (SIGKILL): the machine server ends its session’s runs at once', async () => {
    const { connect, processes } = setup();
    const a = await connect();
    await a.call<Run>('execute_claude', { prompt: 'sleep 60 orphaned', wait_seconds: 1 });
    const { cli, child } = await processes();
    process.kill(a.pid, 'SIGKILL');
    await waitForExit(a.pid);
    expect(await gone([cli, child])).toEqual([]);
    const b = await connect();
    expect(await newestRun(b)).toMatchObject({
      status: 'cancelled',
      error: 'cancelled: its server stopped (connection lost)',
    });
  }, 60_000);

  it('the machine server killed outright (SIGKILL): its CLI runs on until the next server starts and ends it', async () => {
    const { connect, processes, home } = setup();
    const a = await connect();
    await a.call<Run>('execute_claude', { prompt: 'sleep 60 unwatched', wait_seconds: 1 });
    const { cli, child } = await processes();
    const server = serverPid(home)!;
    process.kill(server, 'SIGKILL');
    await waitForExit(server);
    // The premise: nobody ended them.
    expect([cli, child].filter(alive)).toEqual([cli, child]);
    // The relay starts the next server.
    const b = await connect();
    // The next server ends them at its start, without being asked anything.
    expect(await gone([cli, child])).toEqual([]);
    expect(await newestRun(b)).toMatchObject({
      status: 'cancelled',
      error: expect.stringMatching(
        /^its server \(pid \d+\) stopped without ending it; the claude CLI and what it started were ended by the next server$/,
      ),
    });
  }, 60_000);

  it('a group that is not the run’s (its id reused by another process) is left alone', async () => {
    const { connect, processes, home } = setup();
    // A server of its own, killed: nothing starts another until this test has changed the record.
    const a = await connect(true);
    const job = await a.call<Run>('execute_claude', { prompt: 'sleep 60 then be replaced', wait_seconds: 1 });
    const { cli, child } = await processes();
    process.kill(a.pid, 'SIGKILL');
    await waitForExit(a.pid);
    // The run's own processes end (as if long ago), and another process group stands where the
    // run's was recorded: the id was given to someone else's group, which has no run's mark.
    process.kill(-cli, 'SIGKILL');
    await gone([cli, child]);
    const other = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
    started.push(other.pid!);
    const db = openSqlite(join(home, 'registry.db'));
    db.prepare('UPDATE agent_runs SET cli_pgid = ? WHERE id = ?').run(other.pid, job.execution_id);
    db.close();
    const b = await connect();
    expect(await newestRun(b)).toMatchObject({ status: 'lost', error: 'the server running it stopped' });
    expect(alive(other.pid!)).toBe(true);
  }, 60_000);

  it('the hub stopping (SIGTERM) ends the runs of all its clients', async () => {
    const { home, repo, env, processes } = setup();
    const h = await hub({ home, env });
    const c = await client({ mcp: h.mcp, project: repo });
    const job = await c.call<Run>('execute_claude', { prompt: 'sleep 60 in the hub', wait_seconds: 1 });
    expect(job.status).toBe('running');
    const { cli, child } = await processes();
    await h.stop('SIGTERM');
    expect(await gone([cli, child], 500)).toEqual([]);
    const db = openSqlite(join(home, 'registry.db'), { readonly: true });
    const row = db.prepare('SELECT status, error FROM agent_runs WHERE id = ?').get(job.execution_id);
    db.close();
    expect(row).toEqual({ status: 'cancelled', error: 'cancelled: its server stopped (SIGTERM)' });
  }, 60_000);
});
