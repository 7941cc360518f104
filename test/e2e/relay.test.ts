/**
 * One warm server per machine: what clients spawn (`serve`) is a relay to it. Real relays, each
 * under its own client process or several from this one, one real server per home; the server
 * SIGKILLed under load, relays racing to start it, a hub started by hand taking it over, and a home
 * where it cannot run.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bareServe,
  CLI,
  connectStdio,
  runCli,
  serverPid,
  stopServer,
  waitForExit,
} from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

type Closable = { close: () => Promise<unknown> };
const open: Closable[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => {})));
});

async function client(options: Parameters<typeof connectStdio>[0]) {
  const c = await connectStdio(options);
  open.push(c);
  return c;
}

/** The machine servers (`hub --machine`) running for `home`, by their environment. */
function serversOf(home: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (!(cmdline.includes('hub') && cmdline.includes('--machine'))) continue;
      const env = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (env.includes(`SESSION_COLLAB_HOME=${home}`)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

async function until<T>(
  what: string,
  get: () => T | Promise<T>,
  ok: (v: T) => boolean,
  ms = 10_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await get();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(process.platform !== 'linux')('serve is a relay to the machine server', () => {
  it('clients, each with its own relay, share one server; a relay whose client exits ends its session', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo({ 'src/a.ts': 'a\n', 'src/b.ts': 'b\n', 'src/c.ts': 'c\n' });
    const clients = await Promise.all(['a', 'b', 'c'].map((name) => client({ cwd: repo, home, name })));
    const server = serverPid(home);
    expect(server).not.toBeNull();
    expect(serversOf(home)).toEqual([server]);
    // Each relay is its client's own process, and its session lives by it.
    expect(new Set(clients.map((c) => c.pid)).size).toBe(3);
    expect(clients.map((c) => c.pid)).not.toContain(server);
    await Promise.all(
      clients.map((c, i) =>
        c.call('collab_claim', { files: [`src/${'abc'[i]}.ts`], intent: 'mine', exclusive: true }),
      ),
    );
    expect(
      (await clients[1]!.fail('collab_claim', { files: ['src/a.ts'], intent: 'x', exclusive: true })).code,
    ).toBe('CLAIM_CONFLICT');
    // The first client goes: its session ends and its claim is released, as a stdio server's did.
    await clients[0]!.close();
    await until(
      'the first session to end',
      async () => (await clients[1]!.call<{ safe: boolean }>('collab_check', { files: ['src/a.ts'] })).safe,
      (safe) => safe,
    );
    const status = JSON.parse((await runCli(home, ['status', '--json'], repo)).stdout) as {
      projects: Array<{ sessions: Array<{ name: string }> }>;
    };
    expect(status.projects.flatMap((p) => p.sessions.map((s) => s.name[0])).sort()).toEqual(['b', 'c']);
    expect(serverPid(home)).toBe(server);
  });

  it('relays racing to start the server: exactly one runs, every relay answers', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    // Eight at once from this process, as an orchestrator starts its agents.
    const relays = Array.from({ length: 8 }, () => bareServe(repo, home));
    const answers = await Promise.all(relays.map((r) => r.call('collab_session_list')));
    for (const answer of answers) expect(answer).toContain('"result"');
    // Any extra server a race started sees another answer and exits.
    const servers = await until(
      'one server',
      () => serversOf(home),
      (pids) => pids.length === 1,
      5_000,
    );
    expect(servers).toEqual([serverPid(home)]);
    for (const r of relays) r.child.stdin.end();
    await Promise.all(relays.map((r) => r.exit));
  });

  it('the server SIGKILLed under load: every client carries on in its session, its calls in flight answered', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const clients = await Promise.all(
      ['w1', 'w2', 'w3', 'w4'].map((name) => client({ cwd: repo, home, name })),
    );
    const ids = await Promise.all(
      clients.map(async (c, i) => {
        const started = await c.call<{ session_id: string }>('collab_session_start', {
          name: `w${i + 1}`,
          project_root: repo,
        });
        return started.session_id;
      }),
    );
    const first = serverPid(home)!;
    let stop = false;
    const failures: string[] = [];
    const work = clients.map(async (c, i) => {
      let done = 0;
      while (!stop) {
        const file = `src/w${i}-${done % 5}.ts`;
        try {
          const claim = await c.call<{ claim_id: string }>('collab_claim', { files: [file], intent: 'load' });
          await c.call('collab_check', { files: [file] });
          await c.call('collab_release', { claim_id: claim.claim_id, status: 'completed' });
          done += 1;
        } catch (error) {
          failures.push((error as Error).message);
        }
      }
      return done;
    });
    await new Promise((r) => setTimeout(r, 800));
    process.kill(first, 'SIGKILL');
    await waitForExit(first);
    // A new server is running and every client has done work through it.
    const second = await until(
      'a new server',
      () => serverPid(home),
      (pid) => pid !== null && pid !== first,
    );
    const before = await Promise.all(
      clients.map((c) => c.call<{ sessions: unknown[] }>('collab_session_list')),
    );
    expect(before).toHaveLength(4);
    await new Promise((r) => setTimeout(r, 500));
    stop = true;
    const counts = await Promise.all(work);
    for (const n of counts) expect(n, failures.join('\n')).toBeGreaterThan(0);
    // The calls in flight when the server died were asked of the next one: none failed.
    expect(failures).toEqual([]);
    // Each client is still the session it was.
    for (const [i, c] of clients.entries()) {
      const again = await c.call<{ session_id: string; resumed: boolean }>('collab_session_start', {
        name: `w${i + 1}`,
        project_root: repo,
      });
      expect(again.session_id).toBe(ids[i]);
    }
    expect(serversOf(home)).toEqual([second]);
  });

  it('a wait in flight when the server dies is asked of the next one for what is left of its time, and answered', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const c = await client({ cwd: repo, home, name: 'asker', args: ['--toolsets', 'collab,human'] });
    const asked = await c.call<{ question_id: string; status: string }>('ask_human', {
      question: 'Deploy to staging?',
      wait_seconds: 0,
    });
    expect(asked.status).toBe('pending');
    const started = Date.now();
    const waiting = c.call<{ questions: Array<{ question_id: string; status: string; answer?: string }> }>(
      'check_answers',
      { question_ids: [asked.question_id], wait_seconds: 30 },
    );
    await new Promise((r) => setTimeout(r, 700));
    const first = serverPid(home)!;
    process.kill(first, 'SIGKILL');
    await waitForExit(first);
    await until(
      'a new server',
      () => serverPid(home),
      (pid) => pid !== null && pid !== first,
    );
    // Answered while the wait is with the new server: the client gets the answer, not an error.
    expect((await runCli(home, ['answer', asked.question_id, 'yes, go'])).code).toBe(0);
    const answered = await waiting;
    expect(answered.questions).toEqual([
      expect.objectContaining({ question_id: asked.question_id, status: 'answered', answer: 'yes, go' }),
    ]);
    expect(Date.now() - started).toBeLessThan(30_000);
    // Left unanswered, a wait asked again ends at its first deadline, not a whole wait later: asked
    // again for what is left of its 8 s (a second at least), it ends by the later of its deadline
    // and a second after the next server is there; asked for all 8 s again, it would end 8 s after
    // that. Killed 6 s in, the two lie at least 6 s apart whatever the restart costs this host.
    const other = await c.call<{ question_id: string }>('ask_human', {
      question: 'And prod?',
      wait_seconds: 0,
    });
    const at = Date.now();
    const second = c.call<{ questions: Array<{ status: string }> }>('check_answers', {
      question_ids: [other.question_id],
      wait_seconds: 8,
    });
    await new Promise((r) => setTimeout(r, 6_000));
    const next = serverPid(home)!;
    process.kill(next, 'SIGKILL');
    await waitForExit(next);
    await until(
      'a third server',
      () => serverPid(home),
      (pid) => pid !== null && pid !== next,
    );
    const back = Date.now() - at;
    expect((await second).questions).toEqual([expect.objectContaining({ status: 'pending' })]);
    const took = Date.now() - at;
    expect(took).toBeGreaterThanOrEqual(6_500);
    expect(took).toBeLessThan(Math.max(8_000, back + 1_000) + 3_000);
  }, 60_000);

  it('a server that keeps dying: the relay stops starting it, serves in its own process and says why', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const c = await client({ cwd: repo, home, name: 'steady' });
    await c.call('collab_claim', { files: ['src/a.ts'], intent: 'before the loop' });
    // Three deaths in a row, each of the server the relay had just attached to.
    let last = serverPid(home)!;
    for (let death = 1; death <= 3; death++) {
      process.kill(last, 'SIGKILL');
      await waitForExit(last);
      if (death < 3) {
        await c.call('collab_session_list'); // the relay attaches again, starting a new server
        last = (await until(
          'a new server',
          () => serverPid(home),
          (pid) => pid !== null && pid !== last,
        ))!;
      }
    }
    // Served in its own process from now on, in the same session, with the claim it made.
    const listed = await c.call<{ claims: Array<{ files: string[] }> }>('collab_claims_list');
    expect(listed.claims.flatMap((x) => x.files)).toEqual(['src/a.ts']);
    expect(serverPid(home)).toBeNull();
    const failure = JSON.parse(readFileSync(join(home, 'server-failed.json'), 'utf8')) as { reason: string };
    expect(failure.reason).toMatch(/went away 3 times in \d+ s \(a crash loop/);
    const doctor = await runCli(home, ['doctor', '--json'], repo);
    const check = (
      JSON.parse(doctor.stdout) as { checks: Array<{ name: string; ok: boolean; detail: string }> }
    ).checks.find((x) => x.name === 'machine server');
    expect(check).toMatchObject({ ok: false });
    expect(check?.detail).toContain('crash loop');
  }, 60_000);

  it('an install changed under a relay, then its server gone: the client is served in its own process at once, and nothing failed', async () => {
    // An install of its own (the bundles copied, the dependencies shared), changed as an upgrade does.
    const install = tempDir('collab-install-');
    cpSync(join(CLI, '..'), join(install, 'dist'), { recursive: true });
    cpSync(join(CLI, '..', '..', 'package.json'), join(install, 'package.json'));
    symlinkSync(join(CLI, '..', '..', 'node_modules'), join(install, 'node_modules'));
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const relay = bareServe(repo, home, [process.execPath], { cli: join(install, 'dist', 'cli.cjs') });
    open.push({ close: async () => relay.child.kill() });
    expect(await relay.call('collab_claim', { files: ['src/a.ts'], intent: 'before the upgrade' })).toContain(
      'claim_id',
    );
    const server = serverPid(home)!;
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(install, 'dist', 'main.cjs'), later, later);
    process.kill(server, 'SIGKILL');
    await waitForExit(server);
    const listed = await relay.call('collab_claims_list');
    // Answered in the same session, without waiting out a server of the other build (it waited
    // 15 s for one, and recorded the server as failing).
    expect(listed).toContain('src/a.ts');
    expect(relay.output().err).toContain('the install changed since this client started');
    expect(existsSync(join(home, 'server-failed.json'))).toBe(false);
  }, 60_000);

  it('a hub started by hand takes the relays over; when it stops, they start a server again', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const a = await client({ cwd: repo, home, name: 'a' });
    const started = await a.call<{ session_id: string }>('collab_session_start', {
      name: 'a',
      project_root: repo,
    });
    const machine = serverPid(home)!;
    const { spawn } = await import('node:child_process');
    const { CLI } = await import('../helpers/stdio.js');
    const hub = spawn(process.execPath, [CLI, 'hub', '--listen', '127.0.0.1:0', '--json'], {
      env: { ...process.env, SESSION_COLLAB_HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      hub.stdout.on('data', (d) => {
        out += d;
      });
      await until(
        'the hub to listen',
        () => out,
        (o) => o.includes('"url"'),
      );
      await waitForExit(machine);
      const again = await until(
        'the client to be served by the hub',
        () =>
          a
            .call<{ session_id: string }>('collab_session_start', { name: 'a', project_root: repo })
            .catch(() => null),
        (r) => r !== null,
      );
      expect(again!.session_id).toBe(started.session_id);
      expect(serverPid(home)).toBe(hub.pid);
    } finally {
      hub.kill('SIGTERM');
      await new Promise((r) => hub.once('exit', r));
    }
    // The hub gone, the relay starts a server of its own again.
    const after = await until(
      'a server again',
      () =>
        a
          .call<{ session_id: string }>('collab_session_start', { name: 'a', project_root: repo })
          .catch(() => null),
      (r) => r !== null,
    );
    expect(after!.session_id).toBe(started.session_id);
    expect(serversOf(home)).toHaveLength(1);
  });

  it('progress and cancellation pass through the relay both ways', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const relay = bareServe(repo, home, [process.execPath], { args: ['--toolsets', 'collab,human'] });
    expect(await relay.call('collab_session_list')).toContain('"result"');
    const send = (m: unknown) => relay.child.stdin.write(`${JSON.stringify(m)}\n`);
    // A wait of 4 s that reports progress every 3 s; cancelled after its first progress.
    send({
      jsonrpc: '2.0',
      id: 900,
      method: 'tools/call',
      params: {
        name: 'ask_human',
        arguments: { question: 'Cancel me?', wait_seconds: 4 },
        _meta: { progressToken: 'p-900' },
      },
    });
    const lines = () => relay.output().out.split('\n').filter(Boolean);
    await until('a progress notification', lines, (all) => all.some((l) => l.includes('"p-900"')));
    send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 900, reason: 'test' } });
    // Uncancelled, the call would answer (pending) at 4 s; cancelled, the server never answers it.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(lines().filter((l) => /"id":900[,}]/.test(l))).toEqual([]);
    // The connection goes on.
    expect(await relay.call('collab_session_list')).toContain('"result"');
    relay.child.stdin.end();
    expect(await relay.exit).toBe(0);
  });

  it('a hostile connection on the socket: another relay’s pid refused, an oversized message ends only its own session, garbage fills no log', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const victim = await client({ cwd: repo, home, name: 'victim' });
    await victim.call('collab_claim', { files: ['v.ts'], intent: 'mine', exclusive: true });
    const { readlinkSync, statSync } = await import('node:fs');
    const { createConnection } = await import('node:net');
    const link = readFileSync(join(home, 'logs', 'collab.log'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"relay.listening"'))
      .map((l) => (JSON.parse(l) as { path: string }).path)[0]!;
    expect(readlinkSync(link)).toContain('.sock.');
    /** A raw connection: what it is answered until the server closes it (or `ms` pass). */
    const talk = (lines: string[], ms = 5_000) =>
      new Promise<{ got: string; closed: boolean }>((resolve) => {
        const socket = createConnection(link);
        let got = '';
        const done = (closed: boolean) => {
          clearTimeout(timer);
          socket.destroy();
          resolve({ got, closed });
        };
        const timer = setTimeout(() => done(false), ms);
        socket.on('data', (d) => {
          got += d;
        });
        socket.on('close', () => done(true));
        socket.on('error', () => {});
        socket.once('connect', () => {
          for (const line of lines) socket.write(`${line}\n`);
        });
      });
    const hello = (pid: number) =>
      JSON.stringify({
        relay: 1,
        pid,
        cwd: repo,
        client_session_id: null,
        name: 'x',
        toolsets: null,
        read_only: false,
        env: {},
      });
    const server = serverPid(home);
    // The victim's relay pid, claimed by another connection: refused, nothing taken over.
    const taken = await talk([hello(victim.pid)]);
    expect(JSON.parse(taken.got.split('\n')[0]!)).toMatchObject({ ok: false, retry: true });
    // A pid no process has, a relative folder: refused.
    expect(JSON.parse((await talk([hello(2 ** 22 + 7)])).got.split('\n')[0]!)).toMatchObject({ ok: false });
    const relative = JSON.stringify({ relay: 1, pid: process.pid, cwd: 'rel/dir', toolsets: null, env: {} });
    expect(JSON.parse((await talk([relative])).got.split('\n')[0]!)).toMatchObject({ ok: false });
    // After a hello of its own (this process), 30,000 lines that are no JSON-RPC, then a message over
    // 10 MiB: its connection is closed, the log stays small, the victim is untouched.
    const logSize = () => statSync(join(home, 'logs', 'collab.log')).size;
    const before = logSize();
    const init = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'h', version: '1' } },
    });
    const flood = await talk(
      [hello(process.pid), init, ...Array.from({ length: 30_000 }, () => '{}'), `"${'€'.repeat(4_000_000)}"`],
      15_000,
    );
    expect(flood.closed).toBe(true);
    // The server lived through it all (the same process, nothing written to its standard error).
    expect(serverPid(home)).toBe(server);
    expect(
      existsSync(join(home, 'logs', 'server-stderr.log'))
        ? readFileSync(join(home, 'logs', 'server-stderr.log'), 'utf8')
        : '',
    ).toBe('');
    expect(logSize() - before).toBeLessThan(200_000);
    const held = await victim.call<{ claims: Array<{ files: string[] }> }>('collab_claims_list');
    expect(held.claims.map((c) => c.files)).toEqual([['v.ts']]);
  });

  it('a home where the server cannot run: the relay serves in-process, and doctor says why', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    // Every socket path of this home is taken by a folder: no server can listen there.
    mkdirSync(home, { recursive: true });
    const probe = bareServe(repo, home);
    // The first relay finds out (the server it starts exits), then serves in its own process.
    const answer = await probe.call('collab_claim', { files: ['src/x.ts'], intent: 'works anyway' });
    expect(answer).toContain('"result"');
    probe.child.stdin.end();
    await probe.exit;
    await stopServer(home);
    // Where the server listened (its log says), a folder now.
    const listening = readFileSync(join(home, 'logs', 'collab.log'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"relay.listening"'))
      .map((l) => (JSON.parse(l) as { path: string }).path);
    expect(listening).toHaveLength(1);
    mkdirSync(listening[0]!);
    const relay = bareServe(repo, home);
    expect(await relay.call('collab_claim', { files: ['src/y.ts'], intent: 'in-process' })).toContain(
      '"result"',
    );
    expect(serversOf(home)).toEqual([]);
    const doctor = JSON.parse((await runCli(home, ['doctor', '--json'], repo)).stdout) as {
      checks: Array<{ name: string; ok: boolean; detail: string }>;
    };
    const check = doctor.checks.find((c) => c.name === 'machine server')!;
    expect(check.ok).toBe(false);
    expect(check.detail).toMatch(/could not start it/);
    relay.child.stdin.end();
    expect(await relay.exit).toBe(0);
  });
});
