import { execFile, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { droppingFirstAnswer } from '../helpers/dropping-proxy.js';
import { dashboardLogin, type HubProcess, stoppedAfterEach } from '../helpers/hub.js';
import { freshPgDatabase, pgAvailable } from '../helpers/pg.js';
import { CLI } from '../helpers/stdio.js';
import { git, gitRepo, tempDir } from '../helpers/temp.js';

const CLAIMER = fileURLToPath(new URL('../fixtures/http-claimer.mjs', import.meta.url));

/**
 * Team mode: hub replicas, each its own process with its own home folder, on one PostgreSQL
 * database. They must behave as one hub to every client.
 */
let available = false;
beforeAll(async () => {
  available = await pgAvailable('test/e2e/team.test.ts');
});

const tracked = stoppedAfterEach();
const client = tracked.client;

function replica(url: string, home = tempDir('collab-replica-')): Promise<HubProcess> {
  return tracked.hub({ home, env: { SESSION_COLLAB_DATABASE_URL: url } });
}

async function readEvents(
  hub: HubProcess,
  cookie: string,
  until: (events: Array<{ id: number; data: string }>) => boolean,
  options: { after?: number; ms?: number; opened?: () => Promise<void> } = {},
) {
  const controller = new AbortController();
  const response = await fetch(`${hub.url}/events`, {
    headers: { cookie, ...(options.after !== undefined ? { 'last-event-id': String(options.after) } : {}) },
    signal: controller.signal,
  });
  const reader = response.body!.getReader();
  const events: Array<{ id: number; data: string }> = [];
  let text = '';
  const limit = setTimeout(() => controller.abort(), options.ms ?? 10_000);
  let opened = false;
  try {
    while (!until(events)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
      const blocks = text.split('\n\n');
      text = blocks.pop()!;
      for (const block of blocks) {
        if (!opened && block.includes('event: hello')) {
          opened = true;
          await options.opened?.();
        }
        const id = /^id: (\d+)$/m.exec(block);
        const data = /^data: (.*)$/m.exec(block);
        if (id && data && block.includes('event: change')) events.push({ id: Number(id[1]), data: data[1]! });
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  } finally {
    clearTimeout(limit);
    controller.abort();
  }
  return events;
}

async function pgQuery<T extends pg.QueryResultRow>(url: string, text: string, params: unknown[] = []) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(text, params)).rows;
  } finally {
    await c.end();
  }
}

describe('two hub replicas on one PostgreSQL', () => {
  it('16 clients split across two replicas race exclusive claims for 25 rounds: one winner each round', async (ctx) => {
    if (!available) return ctx.skip();
    const url = await freshPgDatabase();
    const [a, b] = await Promise.all([replica(url), replica(url)]);
    const repo = gitRepo({ 'src/a.ts': 'a\n' });
    const agents = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        client({ mcp: (i % 2 === 0 ? a : b).mcp, project: repo, name: `agent-${i}` }),
      ),
    );
    // Each opens its session on its replica.
    await Promise.all(agents.map((c) => c.call('collab_session_list', {})));
    const winners: number[] = [];
    for (let round = 0; round < 25; round++) {
      const outcomes = await Promise.all(
        agents.map((c) =>
          c
            .call('collab_claim', {
              files: [`src/round-${round}.ts`],
              intent: `round ${round}`,
              exclusive: true,
            })
            .then(
              () => 'won',
              (error: Error) => (/CLAIM_CONFLICT/.test(error.message) ? 'refused' : error.message),
            ),
        ),
      );
      expect(outcomes.filter((o) => o !== 'won' && o !== 'refused')).toEqual([]);
      winners.push(outcomes.filter((o) => o === 'won').length);
    }
    expect(winners).toEqual(Array(25).fill(1));
    const rows = await pgQuery<{ pattern: string; n: number }>(
      url,
      "SELECT pattern, count(*)::int AS n FROM claim_files WHERE active = 1 AND pattern LIKE 'src/round-%' GROUP BY pattern",
    );
    expect(rows).toHaveLength(25);
    expect(rows.every((r) => r.n === 1)).toBe(true);
  }, 90_000);

  it('4 projects racing at once across two replicas: one winner per project each round, and a reader after the last event id misses none', async (ctx) => {
    if (!available) return ctx.skip();
    const url = await freshPgDatabase();
    const [a, b] = await Promise.all([replica(url), replica(url)]);
    const repos = Array.from({ length: 4 }, (_, p) => gitRepo({ [`src/p${p}.ts`]: `${p}\n` }));
    const agents = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        client({ mcp: (i % 2 === 0 ? a : b).mcp, project: repos[i % 4]!, name: `agent-${i}` }),
      ),
    );
    await Promise.all(agents.map((c) => c.call('collab_session_list', {})));
    // A reader as the replicas' listeners read: after the last id it has seen, over and over.
    const reader = new pg.Client({ connectionString: url });
    await reader.connect();
    const seen: number[] = [];
    let reading = true;
    const readLoop = (async () => {
      while (reading) {
        const last = seen.at(-1) ?? 0;
        const { rows } = await reader.query<{ id: string }>(
          'SELECT id FROM events WHERE id > $1 ORDER BY id',
          [last],
        );
        for (const r of rows) seen.push(Number(r.id));
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const winners: number[][] = [];
    for (let round = 0; round < 15; round++) {
      const outcomes = await Promise.all(
        agents.map((c) =>
          c
            .call('collab_claim', {
              files: [`src/round-${round}.ts`],
              intent: `round ${round}`,
              exclusive: true,
            })
            .then(
              () => 'won',
              (error: Error) => (/CLAIM_CONFLICT/.test(error.message) ? 'refused' : error.message),
            ),
        ),
      );
      expect(outcomes.filter((o) => o !== 'won' && o !== 'refused')).toEqual([]);
      winners.push([0, 1, 2, 3].map((p) => outcomes.filter((o, i) => i % 4 === p && o === 'won').length));
    }
    reading = false;
    await readLoop;
    const { rows: tail } = await reader.query<{ id: string }>(
      'SELECT id FROM events WHERE id > $1 ORDER BY id',
      [seen.at(-1) ?? 0],
    );
    for (const r of tail) seen.push(Number(r.id));
    const { rows: all } = await reader.query<{ id: string }>('SELECT id FROM events ORDER BY id');
    await reader.end();
    expect(winners).toEqual(Array(15).fill([1, 1, 1, 1]));
    expect(all.every((r) => Number(r.id) > 0)).toBe(true);
    expect(seen).toEqual(all.map((r) => Number(r.id)));
  });

  it('8 agents, each its own process, split across two replicas, claim the same 40 files: one owner per file', async (ctx) => {
    if (!available) return ctx.skip();
    const url = await freshPgDatabase();
    const [a, b] = await Promise.all([replica(url), replica(url)]);
    const repo = gitRepo({ 'src/a.ts': 'a\n' });
    const files = Array.from({ length: 40 }, (_, i) => `src/shared-${i}.ts`);
    // Each file at the same moment in every process, once they have all started.
    const start = Date.now() + 3_000;
    const outcomes = await Promise.all(
      Array.from(
        { length: 8 },
        (_, i) =>
          new Promise<{ won: string[]; refused: number; errors: string[] }>((resolve, reject) => {
            execFile(
              process.execPath,
              [CLAIMER, (i % 2 === 0 ? a : b).mcp, repo, `agent-${i}`, String(start), '100', ...files],
              { timeout: 25_000 },
              (error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout))),
            );
          }),
      ),
    );
    expect(outcomes.flatMap((o) => o.errors)).toEqual([]);
    const owners = outcomes.flatMap((o) => o.won);
    expect([...owners].sort()).toEqual([...files].sort());
    expect(outcomes.reduce((n, o) => n + o.refused, 0)).toBe(8 * 40 - 40);
    const rows = await pgQuery<{ n: number }>(
      url,
      "SELECT count(*)::int AS n FROM claim_files WHERE active = 1 AND pattern LIKE 'src/shared-%'",
    );
    expect(rows[0]!.n).toBe(40);
  });

  it('a token created on one machine takes effect at once on every replica', async (ctx) => {
    if (!available) return ctx.skip();
    const url = await freshPgDatabase();
    const [a, b] = await Promise.all([replica(url), replica(url)]);
    const initializeOn = (h: HubProcess) =>
      fetch(h.mcp, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 't', version: '1' },
          },
        }),
      });
    expect([(await initializeOn(a)).status, (await initializeOn(b)).status]).toEqual([200, 200]);
    const created = spawnSync(process.execPath, [CLI, 'token', 'create', 'agent-1'], {
      env: {
        ...process.env,
        SESSION_COLLAB_HOME: tempDir('collab-admin-'),
        SESSION_COLLAB_DATABASE_URL: url,
      },
      encoding: 'utf8',
    });
    expect(created.status, created.stderr).toBe(0);
    expect([(await initializeOn(a)).status, (await initializeOn(b)).status]).toEqual([401, 401]);
  });

  it('a claim made on replica A reaches a dashboard stream held by replica B within a second', async (ctx) => {
    if (!available) return ctx.skip();
    const url = await freshPgDatabase();
    const [a, b] = await Promise.all([replica(url), replica(url)]);
    const repo = gitRepo({ 'src/a.ts': 'a\n' });
    const { cookie } = await dashboardLogin(b);
    const agent = await client({ mcp: a.mcp, project: repo, name: 'on-a' });
    let sentAt = 0;
    const events = await readEvents(b, cookie, (es) => es.some((e) => e.data.includes('across replicas')), {
      opened: async () => {
        sentAt = Date.now();
        await agent.call('collab_claim', { files: ['src/a.ts'], intent: 'across replicas' });
      },
    });
    const seenAt = Date.now();
    expect(events.some((e) => e.data.includes('across replicas'))).toBe(true);
    // The claim's own call is part of this; a second is the promise.
    expect(seenAt - sentAt).toBeLessThan(2_000);
  });

  it('a listener whose connection is killed reconnects and backfills: no event is missed', async (ctx) => {
    if (!available) return ctx.skip();
    const url = await freshPgDatabase();
    const [a, b] = await Promise.all([replica(url), replica(url)]);
    const repo = gitRepo({ 'src/a.ts': 'a\n' });
    const { cookie } = await dashboardLogin(b);
    const agent = await client({ mcp: a.mcp, project: repo, name: 'writer' });
    await agent.call('collab_session_list', {});
    const before = (
      await pgQuery<{ max: number }>(url, 'SELECT COALESCE(max(id), 0)::int AS max FROM events')
    )[0]!.max;
    const events = await readEvents(b, cookie, (es) => es.some((e) => e.data.includes('message 19')), {
      after: before,
      opened: async () => {
        // Every listening connection (each replica's) is cut, then written to at once.
        const killed = await pgQuery<{ ok: boolean }>(
          url,
          "SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'",
        );
        expect(killed.length).toBeGreaterThanOrEqual(2);
        for (let i = 0; i < 20; i++) await agent.call('collab_message_send', { content: `message ${i}` });
      },
    });
    const all = await pgQuery<{ id: number }>(
      url,
      'SELECT id::int AS id FROM events WHERE id > $1 ORDER BY id',
      [before],
    );
    const seen = events.map((e) => e.id);
    expect(seen).toEqual(all.map((r) => r.id).slice(0, seen.length));
    expect(seen.length).toBeGreaterThanOrEqual(20);
  });

  it('a replica SIGKILLed mid-run: its clients go on with the other, nothing lost or written twice', async (ctx) => {
    if (!available) return ctx.skip();
    const url = await freshPgDatabase();
    const [a, b] = await Promise.all([replica(url), replica(url)]);
    const repo = gitRepo({ 'src/a.ts': 'a\n' });
    const writer = await client({ mcp: a.mcp, project: repo, name: 'writer' });
    const sessionId = writer.transport.sessionId!;
    const sent: string[] = [];
    let failed = 0;
    const writing = (async () => {
      for (let i = 0; i < 200 && failed === 0; i++) {
        try {
          // A call the kill cuts off is never answered: the client gives up on it after a while.
          const result = await Promise.race([
            writer.client.callTool({ name: 'collab_message_send', arguments: { content: `before-${i}` } }),
            new Promise<never>((_, reject) =>
              setTimeout(() => reject(new Error('no answer')), 3_000).unref(),
            ),
          ]);
          if (result.isError) throw new Error(JSON.stringify(result.structuredContent));
          sent.push(`before-${i}`);
        } catch {
          failed += 1;
        }
      }
    })();
    // Mid-run: once some calls were answered, however loaded the machine.
    const deadline = Date.now() + 20_000;
    while (sent.length < 3 && failed === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    await a.stop('SIGKILL');
    await writing;
    // The kill came mid-run: calls were answered before it, and one was cut off by it.
    expect(sent.length).toBeGreaterThan(0);
    expect(failed).toBe(1);
    // The client takes its session to the other replica, by its Mcp-Session-Id.
    const moved = await client({ mcp: b.mcp, project: repo, name: 'writer', sessionId });
    for (let i = 0; i < 10; i++) {
      await moved.call('collab_message_send', { content: `after-${i}` });
      sent.push(`after-${i}`);
    }
    const rows = await pgQuery<{ content: string; from_session_id: string }>(
      url,
      'SELECT content, from_session_id FROM messages ORDER BY rowid',
    );
    const contents = rows.map((r) => r.content);
    // Every answered call's row is there once; a call cut off by the kill is there at most once.
    for (const c of sent) expect(contents.filter((x) => x === c)).toHaveLength(1);
    expect(new Set(contents).size).toBe(contents.length);
    expect(contents.length - sent.length).toBeLessThanOrEqual(1);
    // Before and after the kill, one session wrote them.
    expect(new Set(rows.map((r) => r.from_session_id)).size).toBe(1);
  });

  it("a hook on a replica's machine is answered by that replica, and falls back to the database without it", async (ctx) => {
    if (!available) return ctx.skip();
    const url = await freshPgDatabase();
    const home = tempDir('collab-replica-');
    const [a, b] = await Promise.all([replica(url, home), replica(url)]);
    const repo = gitRepo({ 'src/a.ts': 'a\n' });
    const holder = await client({ mcp: b.mcp, project: repo, name: 'holder' });
    await holder.call('collab_claim', { files: ['src/a.ts'], intent: 'refactoring a', exclusive: true });
    const edit = JSON.stringify({
      session_id: 'editor-1',
      transcript_path: '/dev/null',
      cwd: repo,
      hook_event_name: 'PreToolUse',
      tool_name: 'Edit',
      tool_input: { file_path: join(repo, 'src/a.ts'), old_string: 'a', new_string: 'b' },
      tool_use_id: 'toolu_1',
    });
    const hook = (databaseUrl: string) =>
      spawnSync(process.execPath, [CLI, 'hook', 'pre-tool-use'], {
        input: edit,
        cwd: repo,
        env: { ...process.env, SESSION_COLLAB_HOME: home, SESSION_COLLAB_DATABASE_URL: databaseUrl },
        encoding: 'utf8',
      });
    // A database this process cannot reach: only the replica on this machine can have answered.
    const unreachable = 'postgres://nobody@127.0.0.1:1/none';
    const viaHub = hook(unreachable);
    expect(viaHub.stdout).toContain('"permissionDecision":"deny"');
    expect(viaHub.stdout).toContain('refactoring a');
    // Without the replica, the hook opens the team database itself and decides the same.
    await a.stop();
    const direct = hook(url);
    expect(direct.stdout).toContain('"permissionDecision":"deny"');
    // With neither, it cannot check, and says so (it asks by default) rather than let the edit through.
    const neither = hook(unreachable);
    expect(neither.stdout).toContain('could not check');
  });

  it("a replica delivers a turn-end's news and its response is lost on the way: the hook runs its ask as the same call on the database and says that news", async (ctx) => {
    if (!available) return ctx.skip();
    const url = await freshPgDatabase();
    const home = tempDir('collab-replica-');
    const hub = await replica(url, home);
    const repo = gitRepo({ 'src/a.ts': 'a\n' });
    // Run apart (not spawnSync): the proxy below answers from this process meanwhile.
    const hook = (event: string, input: Record<string, unknown>) =>
      new Promise<{ stdout: string }>((resolve, reject) => {
        const child = execFile(
          process.execPath,
          [CLI, 'hook', event],
          { cwd: repo, env: { ...process.env, SESSION_COLLAB_HOME: home, SESSION_COLLAB_DATABASE_URL: url } },
          (error, stdout) => (error ? reject(error) : resolve({ stdout })),
        );
        child.stdin!.end(
          JSON.stringify({ session_id: 'B-1', transcript_path: '/dev/null', cwd: repo, ...input }),
        );
      });
    const started = await hook('session-start', { hook_event_name: 'SessionStart', source: 'startup' });
    const me = /session_id ([0-9a-f-]{36})/.exec(started.stdout)![1]!;
    const sender = await client({ mcp: hub.mcp, project: repo, name: 'sender' });
    await sender.call('collab_message_send', { to_session_id: me, content: 'the schema changed' });
    // The hook reaches the replica over HTTP only (the relay socket gone: a server of another
    // version, say), through a proxy that drops the first response.
    const link = readdirSync(home).find((f) => /^server-.*\.sock$/.test(f));
    if (link) rmSync(join(home, link));
    const proxy = await droppingFirstAnswer(0, () =>
      createConnection({ port: Number(new URL(hub.url).port), host: '127.0.0.1' }),
    );
    const hubFile = join(home, 'hub.json');
    const written = JSON.parse(readFileSync(hubFile, 'utf8')) as { url: string };
    writeFileSync(hubFile, JSON.stringify({ ...written, url: `http://127.0.0.1:${proxy.port}` }));
    try {
      const back = await hook('turn-end', { hook_event_name: 'Stop', stop_hook_active: false });
      expect(proxy.asks()).toBe(1);
      await proxy.dropped;
      expect(JSON.parse(back.stdout)).toEqual({
        decision: 'block',
        reason: expect.stringContaining('> the schema changed'),
      });
    } finally {
      await proxy.close();
    }
    // Delivered once, by the replica; the hook answered from its record.
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      expect((await db.query('SELECT via FROM message_reads')).rows).toEqual([{ via: 'turn_end' }]);
    } finally {
      await db.end();
    }
  });

  it('two machines, two clones of one repository at different paths: a claim on one blocks an edit and a commit on the other', async (ctx) => {
    if (!available) return ctx.skip();
    const url = await freshPgDatabase();
    // Each "machine" has its own home folder, its own replica and its own clone, at its own path.
    const homes = [tempDir('collab-alice-'), tempDir('collab-bob-')];
    const [a, b] = await Promise.all(homes.map((home) => replica(url, home)));
    const upstream = gitRepo({ 'src/api.ts': 'export const api = 1;\n', 'src/util.ts': 'export {};\n' });
    const clones = ['git@github.com:acme/api.git', 'https://github.com/acme/api'].map((remote) => {
      const dir = join(tempDir('collab-machine-'), 'work', 'api');
      git(tempDir(), 'clone', '-q', upstream, dir);
      git(dir, 'remote', 'set-url', 'origin', remote);
      return dir;
    });
    const alice = await client({ mcp: a!.mcp, project: clones[0]!, name: 'alice' });
    await alice.call('collab_claim', { files: ['src/api.ts'], intent: 'reshaping the API', exclusive: true });
    const bob = await client({ mcp: b!.mcp, project: clones[1]!, name: 'bob' });
    expect(
      (await bob.call<{ safe: boolean }>('collab_check', { files: [join(clones[1]!, 'src/api.ts')] })).safe,
    ).toBe(false);
    expect(
      (await bob.fail('collab_claim', { files: ['src/api.ts'], intent: 'mine', exclusive: true })).code,
    ).toBe('CLAIM_CONFLICT');
    // Bob's client edits the file in his clone; his machine's replica answers his hook.
    const edit = spawnSync(process.execPath, [CLI, 'hook', 'pre-tool-use'], {
      input: JSON.stringify({
        session_id: 'bob-editor',
        transcript_path: '/dev/null',
        cwd: clones[1],
        hook_event_name: 'PreToolUse',
        tool_name: 'Edit',
        tool_input: { file_path: join(clones[1]!, 'src/api.ts'), old_string: '1', new_string: '2' },
        tool_use_id: 'toolu_1',
      }),
      cwd: clones[1],
      env: {
        ...process.env,
        SESSION_COLLAB_HOME: homes[1],
        SESSION_COLLAB_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      },
      encoding: 'utf8',
    });
    expect(edit.stdout).toContain('"permissionDecision":"deny"');
    expect(edit.stdout).toContain('reshaping the API');
    const projects = await pgQuery<{ root: string; name: string }>(url, 'SELECT root, name FROM projects');
    expect(projects).toEqual([{ root: 'git:github.com/acme/api', name: 'github.com/acme/api' }]);
    const sessions = await pgQuery<{ worktree: string }>(
      url,
      'SELECT worktree FROM sessions ORDER BY worktree',
    );
    // Alice's, Bob's and the session of Bob's editing client: each in its own copy.
    expect([...new Set(sessions.map((s) => s.worktree))].sort()).toEqual([...clones].sort());

    // Bob commits in his clone, his pre-commit guard reading the team database from his machine.
    const onBob = (command: string, ...args: string[]) =>
      spawnSync(command, args, {
        cwd: clones[1],
        env: {
          ...process.env,
          SESSION_COLLAB_HOME: homes[1],
          SESSION_COLLAB_DATABASE_URL: url,
          GIT_AUTHOR_NAME: 't',
          GIT_AUTHOR_EMAIL: 't@t',
          GIT_COMMITTER_NAME: 't',
          GIT_COMMITTER_EMAIL: 't@t',
        },
        encoding: 'utf8',
      });
    const installed = onBob(process.execPath, CLI, 'guard', 'install');
    expect(installed.status, installed.stderr).toBe(0);
    writeFileSync(join(clones[1]!, 'src/api.ts'), 'export const api = 2;\n');
    git(clones[1]!, 'add', 'src/api.ts');
    const refused = onBob('git', 'commit', '-qm', 'api 2');
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('src/api.ts');
    expect(refused.stderr).toContain('alice');
    expect(refused.stderr).toContain('The commit was refused');
    expect(git(clones[1]!, 'log', '--format=%s')).not.toContain('api 2');
    // A file nobody holds goes through.
    git(clones[1]!, 'reset', '-q', 'src/api.ts');
    writeFileSync(join(clones[1]!, 'src/util.ts'), 'export const util = 1;\n');
    git(clones[1]!, 'add', 'src/util.ts');
    const committed = onBob('git', 'commit', '-qm', 'util');
    expect(committed.status, committed.stderr).toBe(0);
    expect(committed.stderr).not.toContain('could not check');
    expect(git(clones[1]!, 'log', '-1', '--format=%s').trim()).toBe('util');

    // `status` shows each session's machine and copy. Both "machines" here are one host: Alice's
    // session is moved to another host's name, as a replica on her laptop would have recorded it.
    await pgQuery(url, "UPDATE sessions SET host = 'alice-laptop' WHERE name LIKE 'alice%'");
    const status = onBob(process.execPath, CLI, 'status', '--json');
    expect(status.status, status.stderr).toBe(0);
    const { projects: shown } = JSON.parse(status.stdout) as {
      projects: Array<{ label: string; sessions: Array<{ name: string; host: string; worktree: string }> }>;
    };
    expect(shown).toHaveLength(1);
    // Session names carry a suffix of their client's: by the start of each.
    const where = (name: string) =>
      shown[0]!.sessions.filter((s) => s.name.startsWith(name)).map((s) => [s.host, s.worktree]);
    expect(where('alice')).toEqual([['alice-laptop', clones[0]]]);
    expect(where('bob')).toEqual([[hostname(), clones[1]]]);
    // The text says the other machine's name before its path, and this machine's path alone.
    const text = onBob(process.execPath, CLI, 'status').stdout;
    expect(text.match(/github\.com\/acme\/api/g)).toHaveLength(1);
    expect(text).toContain(`alice-laptop:${clones[0]}`);
    expect(text).toContain(clones[1]);
    expect(text).not.toContain(`${hostname()}:${clones[1]}`);
  });
});
