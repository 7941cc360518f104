import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectInMemory, testApp } from '../helpers/app.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

type Claim = {
  claim_id: string;
  status: string;
  files: string[];
  conflicts: Array<Record<string, unknown>>;
  warning?: string;
};
type Check = {
  safe: boolean;
  message?: string;
  conflicts: Array<Record<string, string>>;
  stale: Array<Record<string, string>>;
  warning?: string;
};

/** Two sessions (A and B) of one project, each on its own MCP connection to one database. */
async function twoSessions(options: { now?: () => number } = {}) {
  const app = await testApp(options);
  const repo = gitRepo({ 'src/api/auth.py': 'x\n', 'src/ui/app.tsx': 'y\n' });
  const a = await connectInMemory(app, repo, 'client-a');
  const b = await connectInMemory(app, repo, 'client-b');
  const sa = await a.call<{ session_id: string }>('collab_session_start', { name: 'A', project_root: repo });
  const sb = await b.call<{ session_id: string; message: string }>('collab_session_start', {
    name: 'B',
    project_root: repo,
  });
  return { app, repo, a, b, idA: sa.session_id, idB: sb.session_id, startB: sb };
}

describe('tools/list', () => {
  it('is what a real client lists', async () => {
    const app = await testApp();
    const c = await connectInMemory(app, gitRepo(), 'test-client', ['collab']);
    const { tools } = await c.client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'collab_session_start',
      'collab_session_end',
      'collab_session_list',
      'collab_session_heartbeat',
      'collab_claim',
      'collab_check',
      'collab_release',
      'collab_claims_list',
      'collab_message_send',
      'collab_message_list',
      'collab_decision_add',
      'collab_decision_list',
      'collab_wait',
      'collab_land',
      'collab_land_status',
    ]);
    expect(tools.find((t) => t.name === 'collab_check')?.annotations?.readOnlyHint).toBe(true);
    expect(tools.find((t) => t.name === 'collab_session_end')?.annotations?.destructiveHint).toBe(true);
    // Landing pushes to the repository's remote: it reaches outside, as the protocol's default says.
    expect(tools.find((t) => t.name === 'collab_land')?.annotations?.openWorldHint).toBeUndefined();
  });
});

describe('toolsets', () => {
  it("one table: the default toolsets are config.json's default, instructions follow what is served", async () => {
    const { DEFAULT_CONFIG } = await import('../../src/app/config.js');
    const { DEFAULT_TOOLSETS } = await import('../../src/mcp/toolsets.js');
    const { select } = await import('../../src/mcp/registry.js');
    expect(DEFAULT_CONFIG.toolsets).toEqual(DEFAULT_TOOLSETS);
    const collab = await select(['collab']);
    expect(collab.instructions).toContain('collab_claim');
    expect(collab.instructions).not.toContain('submit_work');
    const both = await select(['review', 'collab']);
    expect(both.toolsets.map((t) => t.id)).toEqual(['collab', 'review']);
    expect(both.instructions).toContain('submit_review');
    await expect(select(['collab', 'nope'])).rejects.toThrow(/Unknown toolset "nope"/);
  });

  it('--read-only serves only the tools that change nothing, and a real client sees that', async () => {
    const { select } = await import('../../src/mcp/registry.js');
    const ro = await select(['collab', 'realm', 'review'], { readOnly: true });
    expect(ro.tools.length).toBeGreaterThan(0);
    // What changes nothing others see: reads, and reading one's own messages (which marks them read).
    expect(ro.tools.every((t) => t.kind === 'read' || t.marksOwnRead === true)).toBe(true);
    expect(ro.tools.map((t) => t.name)).toContain('collab_check');
    expect(ro.tools.map((t) => t.name)).toContain('collab_message_list');
    expect(ro.tools.map((t) => t.name)).not.toContain('collab_claim');
    // Opening a work item for review changes its status for its worker: not served.
    expect(ro.tools.map((t) => t.name)).not.toContain('get_work_detail');
    // Over real stdio, as a client spawns it.
    const { connectStdio } = await import('../helpers/stdio.js');
    const served = await connectStdio({
      cwd: gitRepo(),
      home: tempDir('collab-home-'),
      args: ['--read-only'],
    });
    try {
      const { tools } = await served.client.listTools();
      expect(tools.map((t) => t.name)).toEqual([
        'collab_session_list',
        'collab_check',
        'collab_claims_list',
        'collab_message_list',
        'collab_decision_list',
        'collab_wait',
        'collab_land_status',
      ]);
      // Annotations stay honest: reading messages marks them read.
      expect(tools.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.name)).toEqual([
        'collab_message_list',
        'collab_wait',
      ]);
      expect(served.client.getInstructions()).toContain('Read-only');
    } finally {
      await served.close();
    }
  });
});

describe('sessions', () => {
  it('a project_root that is relative, or longer than a path may be, is refused with a short answer', async () => {
    const app = await testApp();
    const c = await connectInMemory(app, gitRepo());
    const relative = await c.fail('collab_session_start', { project_root: '../..' });
    expect(relative.code).toBe('INVALID_INPUT');
    expect(relative.message).toContain('absolute path');
    const long = await c.fail('collab_session_start', { project_root: `/${'a'.repeat(100_000)}` });
    expect(long.code).toBe('INVALID_INPUT');
    expect(long.message).toContain('limits.path_input_chars');
    expect(long.message.length).toBeLessThan(500);
    const missing = await c.fail('collab_session_start', { project_root: `/nowhere/${'b'.repeat(3_000)}\n` });
    expect(missing.message).toMatch(/^project_root: Folder "\/nowhere\/b+…" does not exist\.$/);
  });

  it('a session not found names a few live ones and counts the rest; a start does too', async () => {
    const app = await testApp();
    const repo = gitRepo();
    const clients = [];
    for (let i = 0; i < 14; i++) {
      const c = await connectInMemory(app, repo, `c${i}`);
      await c.call('collab_session_start', { name: `s${i}`, project_root: repo });
      clients.push(c);
    }
    const last = await connectInMemory(app, repo, 'last');
    const started = await last.call<{ message: string }>('collab_session_start', {
      name: 'last',
      project_root: repo,
    });
    expect(started.message).toContain('14 other active sessions');
    expect(started.message).toContain('and 4 more');
    const missing = await last.fail('collab_message_send', { to_session_id: 'nobody', content: 'x' });
    expect(missing.code).toBe('SESSION_NOT_FOUND');
    expect(missing.hint).toContain('and 5 more. See collab_session_list.');
    expect(missing.hint.match(/"s\d+"/g)).toHaveLength(10);
  });

  it('start counts the other active sessions; list shows claims and heartbeats', async () => {
    const { a, b, idA, idB, startB } = await twoSessions();
    expect(startB.message).toContain('1 other active session');
    expect(startB.message).toContain('"A"');
    await a.call('collab_claim', { files: ['src/api/*'], intent: 'refactor login to JWT' });
    const { sessions } = await b.call<{
      sessions: Array<{ id: string; active_claims: number; status: string; last_heartbeat: string }>;
    }>('collab_session_list');
    expect(sessions.map((s) => s.id).sort()).toEqual([idA, idB].sort());
    expect(sessions.find((s) => s.id === idA)?.active_claims).toBe(1);
    expect(sessions.every((s) => s.status === 'active' && !Number.isNaN(Date.parse(s.last_heartbeat)))).toBe(
      true,
    );
  });

  it('a tool called before collab_session_start starts a session in the working folder', async () => {
    const app = await testApp();
    const repo = gitRepo();
    const c = await connectInMemory(app, repo, 'claude-code');
    const claim = await c.call<Claim>('collab_claim', { files: ['README.md'], intent: 'docs' });
    expect(claim.status).toBe('created');
    const { sessions } = await c.call<{ sessions: Array<{ name: string; client: string }> }>(
      'collab_session_list',
    );
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.client).toBe('claude-code');
    expect(sessions[0]!.name).toMatch(/^claude-code-/);
  });

  it('heartbeat records the time; end releases claims and ends the session', async () => {
    let clock = Date.parse('2026-01-01T10:00:00Z');
    const { a, b, idA } = await twoSessions({ now: () => clock });
    clock += 60_000;
    const hb = await a.call<{ last_heartbeat: string }>('collab_session_heartbeat', { session_id: idA });
    expect(hb.last_heartbeat).toBe('2026-01-01T10:01:00.000Z');
    const claim = await a.call<Claim>('collab_claim', { files: ['src/api/auth.py'], intent: 'x' });
    const end = await a.call<{ released_claims: number }>('collab_session_end', {
      session_id: idA,
      release_claims: 'abandon',
    });
    expect(end.released_claims).toBe(1);
    const { claims } = await b.call<{ claims: Array<{ claim_id: string; status: string }> }>(
      'collab_claims_list',
      { status: 'all' },
    );
    expect(claims.find((c) => c.claim_id === claim.claim_id)?.status).toBe('abandoned');
    const list = await b.call<{ sessions: Array<{ id: string; status: string }> }>('collab_session_list', {
      include_inactive: true,
    });
    expect(list.sessions.find((s) => s.id === idA)?.status).toBe('ended');
    const active = await b.call<{ sessions: Array<{ id: string }> }>('collab_session_list');
    expect(active.sessions.map((s) => s.id)).not.toContain(idA);
  });

  it('worktrees of one repository are one project; paths are relative to each worktree', async () => {
    const app = await testApp();
    const repo = gitRepo({ 'src/a.ts': '1\n' });
    const wt = join(tempDir(), 'wt');
    const { git } = await import('../helpers/temp.js');
    git(repo, 'worktree', 'add', '-q', '-b', 'feature', wt);
    const a = await connectInMemory(app, repo);
    const b = await connectInMemory(app, wt);
    await a.call('collab_claim', { files: [join(repo, 'src/a.ts')], intent: 'edit in main worktree' });
    const check = await b.call<Check>('collab_check', { files: [join(wt, 'src/a.ts')] });
    expect(check.safe).toBe(false);
    expect(check.conflicts[0]!.file).toBe('src/a.ts');
    const { sessions } = await b.call<{ sessions: Array<{ branch: string }> }>('collab_session_list');
    expect(sessions.map((s) => s.branch).sort()).toEqual(['feature', 'main']);
  });

  it('claims never conflict across projects', async () => {
    const app = await testApp();
    const a = await connectInMemory(app, gitRepo({ 'x.ts': '' }));
    const b = await connectInMemory(app, gitRepo({ 'x.ts': '' }));
    await a.call('collab_claim', { files: ['x.ts'], intent: 'a' });
    expect((await b.call<Check>('collab_check', { files: ['x.ts'] })).safe).toBe(true);
  });
});

describe('claims and check', () => {
  it("claims listed by a heavy glob: past the page's glob budget the page ends, and its cursor goes on to the end", async () => {
    const app = await testApp({ config: { limits: { glob_steps_per_request: 100_000 } } });
    const repo = gitRepo();
    const a = await connectInMemory(app, repo, 'client-a');
    const b = await connectInMemory(app, repo, 'client-b');
    const heavy = (i: number, end: string) => `n50/e1/${'*a'.repeat(30)}*${end}${i}`;
    for (let i = 0; i < 6; i++)
      await a.call('collab_claim', { files: [heavy(i, 'b')], intent: `claim ${i}` });
    await a.call('collab_claim', { files: ['src/plain.ts'], intent: 'plain' });
    // Each heavy pair costs more than this budget: a page judges one claim.
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await b.call<{
        claims: Array<{ claim_id: string; files: string[] }>;
        next_cursor: string | null;
      }>('collab_claims_list', { path_filter: heavy(99, 'c'), status: 'all', ...(cursor ? { cursor } : {}) });
      seen.push(...page.claims.map((c) => c.files[0]!));
      cursor = page.next_cursor ?? undefined;
      pages++;
    } while (cursor && pages < 20);
    expect(cursor).toBeUndefined();
    expect(pages).toBeGreaterThan(3);
    // Every heavy claim once (each counted as meeting, since none could be told apart), the plain one never.
    expect(seen.sort()).toEqual(Array.from({ length: 6 }, (_, i) => heavy(i, 'b')).sort());
    await testApp(); // the next app takes the defaults again
  });

  it('many heavy globs checked against as many held: the glob work is bounded, and past it they count as meeting', async () => {
    const { a, b } = await twoSessions();
    // Thirty stars each, ten folders: every pair in a folder takes ~15,000 states to tell apart.
    const heavy = (i: number, end: string) => `n50/e${i % 10}/${'*a'.repeat(30)}*${end}${i}`;
    await a.call('collab_claim', {
      files: Array.from({ length: 500 }, (_, i) => heavy(i, 'b')),
      intent: 'many',
    });
    // 25,000 such pairs would hold the server for minutes; the request's budget ends it.
    const check = await b.call<Check>('collab_check', {
      files: Array.from({ length: 500 }, (_, i) => heavy(i, 'c')),
    });
    expect(check.safe).toBe(false);
    expect(check.conflicts.length).toBeGreaterThan(0);
    // The next request has a budget of its own.
    expect((await b.call<Check>('collab_check', { files: ['src/ui/app.tsx'] })).safe).toBe(true);
  });

  it('reports overlap with a witness path, the holder and the intent', async () => {
    const { a, b, idA } = await twoSessions();
    const mine = await a.call<Claim>('collab_claim', {
      files: ['src/api/*'],
      intent: 'refactor login to JWT',
      scope: 'large',
    });
    const theirs = await b.call<Claim>('collab_claim', { files: ['src/**/*.py'], intent: 'type hints' });
    expect(theirs.status).toBe('created_with_conflicts');
    expect(theirs.conflicts).toEqual([
      {
        claim_id: mine.claim_id,
        session: 'A',
        session_id: idA,
        files: ['src/api/*'],
        intent: 'refactor login to JWT',
        overlap: ['src/api/auth.py'], // a real tracked file where the two globs meet
        exclusive: false,
      },
    ]);
    expect(theirs.warning).toContain('held by "A"');
    const check = await b.call<Check>('collab_check', { files: ['src/api/auth.py', 'src/ui/app.tsx'] });
    expect(check.safe).toBe(false);
    expect(check.conflicts).toHaveLength(1);
    expect(check.conflicts[0]).toMatchObject({
      file: 'src/api/auth.py',
      session: 'A',
      session_id: idA,
      intent: 'refactor login to JWT',
      scope: 'large',
    });
    expect(check.warning).toContain('"A"');
    // One's own claims never make a check unsafe (B's `src/**/*.py` does not cover a .ts file).
    expect((await a.call<Check>('collab_check', { files: ['src/api/routes.ts'] })).safe).toBe(true);
    expect((await a.call<Check>('collab_check', { files: ['src/api/auth.py'] })).conflicts[0]!.session).toBe(
      'B',
    );
  });

  it('normalises paths: absolute, ./, backslashes, trailing slash, existing directory', async () => {
    const { a, b, repo } = await twoSessions();
    mkdirSync(join(repo, 'lib/deep'), { recursive: true });
    const c1 = await a.call<Claim>('collab_claim', {
      files: [join(repo, 'src', 'api', 'auth.py'), '.\\src\\ui//app.tsx', 'docs/', 'lib'],
      intent: 'x',
    });
    expect(c1.files).toEqual(['src/api/auth.py', 'src/ui/app.tsx', 'docs/**', 'lib/**']);
    expect((await b.call<Check>('collab_check', { files: ['lib/deep/file.ts'] })).safe).toBe(false);
    expect((await b.call<Check>('collab_check', { files: ['docs'] })).safe).toBe(false);
  });

  it('exclusive claims refuse overlaps and write nothing', async () => {
    const { a, b } = await twoSessions();
    await a.call('collab_claim', { files: ['src/api/auth.py'], intent: 'a' });
    const err = await b.fail('collab_claim', {
      files: ['src/api/*', 'src/other.ts'],
      intent: 'b',
      exclusive: true,
    });
    expect(err.code).toBe('CLAIM_CONFLICT');
    expect(err.message).toContain('src/api/auth.py');
    expect(err.hint).toMatch(/message/i);
    const { claims } = await b.call<{ claims: unknown[] }>('collab_claims_list', { status: 'all' });
    expect(claims).toHaveLength(1);
  });

  it('an exclusive claim also refuses later overlapping claims', async () => {
    const { a, b } = await twoSessions();
    await a.call('collab_claim', { files: ['src/api/*'], intent: 'a', exclusive: true });
    expect((await b.fail('collab_claim', { files: ['src/api/auth.py'], intent: 'b' })).code).toBe(
      'CLAIM_CONFLICT',
    );
    expect(
      (await b.call<Claim>('collab_claim', { files: ['src/ui/*'], intent: 'b', exclusive: true })).status,
    ).toBe('created');
  });

  it('claims made or released between working out the overlaps and taking the write lock count as they are then', async () => {
    const { app, repo, a, idA, idB } = await twoSessions();
    const c = await connectInMemory(app, repo, 'client-c');
    const { session_id: idC } = await c.call<{ session_id: string }>('collab_session_start', {
      name: 'C',
      project_root: repo,
    });
    const held = await a.call<Claim>('collab_claim', { files: ['src/api/auth.py'], intent: 'a' });
    // Another process's write lands after the overlaps were worked out, just before the lock.
    const write = app.store.write.bind(app.store);
    const beforeNextWrite = (other: () => Promise<unknown>) => {
      app.store.write = async <T>(fn: () => Promise<T>): Promise<T> => {
        app.store.write = write;
        await other();
        return write(fn);
      };
    };
    const claimB = async (files: string[], exclusive: boolean) =>
      app.claims.claim({
        session: await app.sessions.get(idB),
        files,
        intent: 'b',
        scope: 'small',
        exclusive,
        ttlSeconds: undefined,
      });
    // A's claim, found before the lock, is released meanwhile: it no longer counts.
    beforeNextWrite(async () =>
      app.claims.release(await app.sessions.get(idA), held.claim_id, 'completed', undefined),
    );
    expect((await claimB(['src/api/*'], true)).conflicts).toEqual([]);
    // C's exclusive claim made meanwhile over the same files refuses this one.
    beforeNextWrite(async () =>
      app.claims.claim({
        session: await app.sessions.get(idC),
        files: ['src/ui/app.tsx'],
        intent: 'c',
        scope: 'small',
        exclusive: true,
        ttlSeconds: undefined,
      }),
    );
    await expect(claimB(['src/ui/*'], false)).rejects.toThrow(/src\/ui\/app\.tsx held by "C" \(intent "c"\)/);
  });

  it('an expired claim stops blocking and is marked expired', async () => {
    let clock = Date.parse('2026-01-01T10:00:00Z');
    const { a, b } = await twoSessions({ now: () => clock });
    const c = await a.call<Claim & { expires_at: string }>('collab_claim', {
      files: ['src/api/auth.py'],
      intent: 'quick fix',
      ttl_seconds: 60,
    });
    expect(c.expires_at).toBe('2026-01-01T10:01:00.000Z');
    expect((await b.call<Check>('collab_check', { files: ['src/api/auth.py'] })).safe).toBe(false);
    clock += 61_000;
    expect((await b.call<Check>('collab_check', { files: ['src/api/auth.py'] })).safe).toBe(true);
    const { claims } = await b.call<{ claims: Array<{ status: string }> }>('collab_claims_list', {
      status: 'expired',
    });
    expect(claims).toHaveLength(1);
    expect(
      (await b.call<Claim>('collab_claim', { files: ['src/api/auth.py'], intent: 'b', exclusive: true }))
        .status,
    ).toBe('created');
  });

  it('claims of an inactive session are listed as stale and do not block', async () => {
    let clock = Date.parse('2026-01-01T10:00:00Z');
    const { a, b, idA } = await twoSessions({ now: () => clock });
    await a.call('collab_claim', { files: ['src/api/*'], intent: 'a' });
    clock += 31 * 60_000; // A stays silent past the 30 min threshold; B calls on.
    const check = await b.call<Check>('collab_check', { files: ['src/api/auth.py'] });
    expect(check.safe).toBe(true);
    expect(check.conflicts).toEqual([]);
    expect(check.stale).toHaveLength(1);
    expect(check.stale[0]).toMatchObject({ session_id: idA, session_status: 'inactive' });
    expect(check.message).toContain('1 stale claim');
  });

  it('release: only the owner, only once, with a summary', async () => {
    const { a, b } = await twoSessions();
    const c = await a.call<Claim>('collab_claim', { files: ['src/api/*'], intent: 'a' });
    const notOwner = await b.fail('collab_release', { claim_id: c.claim_id, status: 'completed' });
    expect(notOwner.code).toBe('NOT_OWNER');
    expect(notOwner.message).toContain('"A"');
    const done = await a.call<{ status: string; files: string[] }>('collab_release', {
      claim_id: c.claim_id,
      status: 'completed',
      summary: 'JWT in place',
    });
    expect(done).toMatchObject({ status: 'completed', files: ['src/api/*'] });
    expect((await b.call<Check>('collab_check', { files: ['src/api/auth.py'] })).safe).toBe(true);
    expect((await a.fail('collab_release', { claim_id: c.claim_id, status: 'completed' })).code).toBe(
      'CLAIM_NOT_ACTIVE',
    );
    expect((await a.fail('collab_release', { claim_id: 'nope', status: 'completed' })).code).toBe(
      'CLAIM_NOT_FOUND',
    );
    const { claims } = await b.call<{ claims: Array<{ summary: string; status: string }> }>(
      'collab_claims_list',
      { status: 'completed' },
    );
    expect(claims[0]).toMatchObject({ summary: 'JWT in place', status: 'completed' });
  });

  it('claims_list filters by session, status and overlapping path', async () => {
    const { a, b, idA } = await twoSessions();
    await a.call('collab_claim', { files: ['src/api/*'], intent: 'api' });
    await b.call('collab_claim', { files: ['src/ui/**'], intent: 'ui' });
    const all = await a.call<{ claims: Array<{ intent: string }> }>('collab_claims_list');
    expect(all.claims.map((c) => c.intent).sort()).toEqual(['api', 'ui']);
    const mine = await b.call<{ claims: Array<{ intent: string }> }>('collab_claims_list', {
      session_id: idA,
    });
    expect(mine.claims.map((c) => c.intent)).toEqual(['api']);
    const filtered = await b.call<{ claims: Array<{ intent: string }> }>('collab_claims_list', {
      path_filter: 'src/ui/components/*.tsx',
    });
    expect(filtered.claims.map((c) => c.intent)).toEqual(['ui']);
    const none = await b.call<{ claims: unknown[] }>('collab_claims_list', { path_filter: 'docs/**' });
    expect(none.claims).toEqual([]);
  });
});

describe('ids by their start', () => {
  it('every id a tool takes may be given by its first characters', async () => {
    const { a, b, idA, idB } = await twoSessions();
    const c = await a.call<Claim>('collab_claim', { files: ['src/api/*'], intent: 'api' });
    const mine = await b.call<{ claims: Array<{ claim_id: string }> }>('collab_claims_list', {
      session_id: idA.slice(0, 6),
    });
    expect(mine.claims.map((x) => x.claim_id)).toEqual([c.claim_id]);
    const sent = await b.call<{ message_id: string; to_session_id: string }>('collab_message_send', {
      to_session_id: idA.slice(0, 8),
      content: 'are you done with the api?',
    });
    expect(sent.to_session_id).toBe(idA);
    const reply = await a.call<{ message_id: string }>('collab_message_send', {
      to_session_id: 'B',
      content: 'yes',
      reply_to: sent.message_id.slice(0, 8),
    });
    const inbox = await b.call<{ messages: Array<{ id: string; reply_to: string | null }> }>(
      'collab_message_list',
    );
    expect(inbox.messages.find((m) => m.id === reply.message_id)?.reply_to).toBe(sent.message_id);
    const done = await a.call<{ claim_id: string }>('collab_release', {
      claim_id: c.claim_id.slice(0, 8).toUpperCase(),
      status: 'completed',
    });
    expect(done.claim_id).toBe(c.claim_id);
    expect(
      (await b.call<{ session_id: string }>('collab_session_heartbeat', { session_id: idB.slice(0, 5) }))
        .session_id,
    ).toBe(idB);
  });

  it('a start shared by two ids is ID_AMBIGUOUS listing both, and changes nothing', async () => {
    const { app, a } = await twoSessions();
    const c = await a.call<Claim>('collab_claim', { files: ['src/api/*'], intent: 'api' });
    // Another claim whose id shares the first 9 characters and differs at the 10th.
    const twin = `${c.claim_id.slice(0, 9)}${c.claim_id[9] === 'f' ? 'e' : 'f'}fff-ffff-ffff-ffffffffffff`;
    await app.store.sql.run(
      'INSERT INTO claims (id, session_id, project_id, intent, scope, created_at, updated_at) SELECT ?, session_id, project_id, intent, scope, created_at, updated_at FROM claims WHERE id = ?',
      [twin, c.claim_id],
    );
    const err = await a.fail('collab_release', { claim_id: c.claim_id.slice(0, 8), status: 'completed' });
    expect(err.code).toBe('ID_AMBIGUOUS');
    expect(err.message).toContain(c.claim_id);
    expect(err.message).toContain(twin);
    expect(err.hint).toContain('more of the id');
    const still = await a.call<{ claims: Array<{ claim_id: string }> }>('collab_claims_list');
    expect(still.claims.map((x) => x.claim_id).sort()).toEqual([c.claim_id, twin].sort());
    // Enough of it names one.
    const done = await a.call<{ claim_id: string }>('collab_release', {
      claim_id: c.claim_id.slice(0, 10),
      status: 'completed',
    });
    expect(done.claim_id).toBe(c.claim_id);
  });

  it("a start is looked up in the caller's project only; a whole id reaches as far as before", async () => {
    const { app, a, idA } = await twoSessions();
    const otherRepo = gitRepo();
    const elsewhere = await connectInMemory(app, otherRepo, 'client-c');
    const other = await elsewhere.call<{ session_id: string }>('collab_session_start', {
      name: 'C',
      project_root: otherRepo,
    });
    const theirs = await elsewhere.call<Claim>('collab_claim', { files: ['x.ts'], intent: 'theirs' });
    const unknown = await a.fail('collab_message_send', {
      to_session_id: other.session_id.slice(0, 8),
      content: 'hello',
    });
    expect(unknown.code).toBe('SESSION_NOT_FOUND');
    expect(
      (await a.fail('collab_release', { claim_id: theirs.claim_id.slice(0, 8), status: 'completed' })).code,
    ).toBe('CLAIM_NOT_FOUND');
    expect((await a.fail('collab_release', { claim_id: theirs.claim_id, status: 'completed' })).code).toBe(
      'NOT_OWNER',
    );
    // From the other project, this one's session is out of reach by its start too.
    expect(
      (await elsewhere.fail('collab_message_send', { to_session_id: idA.slice(0, 8), content: 'x' })).code,
    ).toBe('SESSION_NOT_FOUND');
  });

  it('a session named like the start of another session’s id is ambiguous, not a silent pick', async () => {
    const { app, repo, a, idB } = await twoSessions();
    const impostor = await connectInMemory(app, repo, 'client-c');
    await impostor.call('collab_session_start', { name: idB.slice(0, 8), project_root: repo });
    const err = await a.fail('collab_message_send', { to_session_id: idB.slice(0, 8), content: 'for B' });
    expect(err.code).toBe('SESSION_AMBIGUOUS');
    expect(err.message).toContain(idB);
    expect(
      (
        await a.call<{ to_session_id: string }>('collab_message_send', {
          to_session_id: idB,
          content: 'for B',
        })
      ).to_session_id,
    ).toBe(idB);
  });

  it('too short, or not made of id characters, is looked up as given', async () => {
    const { a } = await twoSessions();
    const c = await a.call<Claim>('collab_claim', { files: ['src/api/*'], intent: 'api' });
    for (const claim_id of [
      c.claim_id.slice(0, 3),
      `${c.claim_id.slice(0, 4)}%`,
      `${c.claim_id.slice(0, 4)}'`,
      '____',
    ])
      expect((await a.fail('collab_release', { claim_id, status: 'completed' })).code).toBe(
        'CLAIM_NOT_FOUND',
      );
  });

  it("review ids count from past their fixed head; a project's id is a name, taken whole", async () => {
    const app = await testApp();
    const repo = gitRepo();
    const w = await connectInMemory(app, repo, 'worker', ['collab', 'review']);
    await w.call('collab_session_start', { name: 'W', project_root: repo });
    const item = await w.call<{ id: string }>('submit_work', {
      type: 'design',
      phase: 'planning',
      title: 'Cache design',
      content: 'An LRU cache\n',
    });
    expect(item.id).toMatch(/^work_[0-9a-f]{8}$/);
    const detail = await w.call<{ id: string }>('get_work_detail', { workItemId: item.id.slice(0, 9) });
    expect(detail.id).toBe(item.id);
    // "work" and "work_abc" carry fewer than 4 characters of the random part: not a start.
    for (const workItemId of ['work', 'work_', item.id.slice(0, 8)])
      expect((await w.fail('get_work_detail', { workItemId })).code).toBe('WORK_NOT_FOUND');
    await w.call('create_project', { id: 'Alpha', name: 'Alpha' });
    await w.call('create_project', { id: 'alpha-staging', name: 'Alpha staging' });
    expect((await w.fail('get_project', { projectId: 'Alph' })).code).toBe('PROJECT_NOT_FOUND');
    expect((await w.call<{ id: string }>('get_project', { projectId: 'Alpha' })).id).toBe('Alpha');
  });

  it('every tool input that names a generated id declares the right kind', async () => {
    const { allTools } = await import('../../src/mcp/registry.js');
    const { idKindOf } = await import('../../src/features/fields.js');
    // What each field name holds; null: taken as given (a project's id may be a name; a recipient is
    // looked up by id, name or start; the agent CLI's own conversation id is not ours).
    const expected: Record<string, string | null> = {
      session_id: 'session',
      from_session_id: 'session',
      claim_id: 'claim',
      reply_to: 'message',
      question_id: 'question',
      question_ids: 'question',
      execution_id: 'run',
      workItemId: 'work_item',
      reviewId: 'review',
      suggestionId: 'suggestion',
      projectId: null,
      to_session_id: null,
    };
    const wrong: string[] = [];
    for (const tool of await allTools())
      for (const [name, field] of Object.entries(tool.input.shape)) {
        if (!/(_id|Id|_ids|Ids|reply_to)$/.test(name)) continue;
        const want = tool.name === 'set_current_session' ? null : expected[name];
        const got = idKindOf(field as never) ?? null;
        if (want === undefined || got !== want) wrong.push(`${tool.name}.${name}: ${got} (want ${want})`);
      }
    expect(wrong).toEqual([]);
  });
});

describe('claims from git', () => {
  it("from_git claims the worktree's staged, unstaged and untracked changes", async () => {
    const { a, b, repo } = await twoSessions();
    const { writeFileSync } = await import('node:fs');
    const { git } = await import('../helpers/temp.js');
    writeFileSync(join(repo, 'src/api/auth.py'), 'changed\n');
    writeFileSync(join(repo, 'src/ui/app.tsx'), 'staged\n');
    git(repo, 'add', 'src/ui/app.tsx');
    writeFileSync(join(repo, 'NEW.md'), 'untracked\n');
    const claim = await a.call<Claim>('collab_claim', { from_git: true, intent: 'finish the login work' });
    expect([...claim.files].sort()).toEqual(['NEW.md', 'src/api/auth.py', 'src/ui/app.tsx']);
    const both = await a.call<Claim>('collab_claim', {
      from_git: true,
      files: ['docs/**'],
      intent: 'and docs',
    });
    expect(both.files).toContain('docs/**');
    const { claims } = await b.call<{ claims: Array<{ source: string; files: string[] }> }>(
      'collab_claims_list',
    );
    expect(claims.map((c) => c.source)).toEqual(['git', 'git']);
    expect((await b.call<Check>('collab_check', { files: ['NEW.md'] })).safe).toBe(false);
  });

  it('from_git with nothing changed, or outside git, is a clear error', async () => {
    const { a } = await twoSessions();
    const err = await a.fail('collab_claim', { from_git: true, intent: 'x' });
    expect(err).toMatchObject({ code: 'INVALID_INPUT' });
    expect(err.message).toContain('no uncommitted changes');
    const app = await testApp();
    const plain = await connectInMemory(app, tempDir());
    expect((await plain.fail('collab_claim', { from_git: true, intent: 'x' })).message).toContain(
      'cannot read the changes',
    );
    expect((await plain.fail('collab_claim', { intent: 'x' })).message).toContain('files');
  });
});

describe('messages and decisions', () => {
  it('direct and broadcast messages with per-recipient read state and replies', async () => {
    const app = await testApp();
    const repo = gitRepo();
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((n) => connectInMemory(app, repo, n)));
    const ids: string[] = [];
    for (const [conn, name] of [
      [a!, 'A'],
      [b!, 'B'],
      [c!, 'C'],
    ] as const) {
      ids.push(
        (await conn.call<{ session_id: string }>('collab_session_start', { name, project_root: repo }))
          .session_id,
      );
    }
    const direct = await b!.call<{ message_id: string; recipients: number }>('collab_message_send', {
      to_session_id: ids[0],
      content: 'auth.py line 50 has a bug',
    });
    const broadcast = await b!.call<{ recipients: number; to_session_id: null }>('collab_message_send', {
      content: 'running migrations now',
    });
    expect(broadcast).toMatchObject({ recipients: 2, to_session_id: null });

    type Msgs = {
      messages: Array<{
        id: string;
        from: string;
        content: string;
        broadcast: boolean;
        read: boolean;
        reply_to: string | null;
      }>;
    };
    const inboxA = await a!.call<Msgs>('collab_message_list');
    expect(inboxA.messages.map((m) => [m.from, m.content, m.broadcast])).toEqual([
      ['B', 'auth.py line 50 has a bug', false],
      ['B', 'running migrations now', true],
    ]);
    // What it just read is not announced again in the same answer.
    expect((inboxA as { notifications?: unknown[] }).notifications).toBeUndefined();
    expect((await a!.call<Msgs>('collab_message_list')).messages).toEqual([]);
    // C has read nothing yet: the broadcast is still unread for C, and C never sees the direct one.
    const peek = await c!.call<Msgs>('collab_message_list', { mark_as_read: false });
    expect(peek.messages.map((m) => m.content)).toEqual(['running migrations now']);
    expect((await c!.call<Msgs>('collab_message_list')).messages).toHaveLength(1);
    // The sender does not receive its own broadcast.
    expect((await b!.call<Msgs>('collab_message_list')).messages).toEqual([]);
    // A reply without a recipient goes back to the sender, threaded.
    const reply = await a!.call<{ to_session_id: string }>('collab_message_send', {
      content: 'will fix',
      reply_to: direct.message_id,
    });
    expect(reply.to_session_id).toBe(ids[1]);
    const inboxB = await b!.call<Msgs>('collab_message_list');
    expect(inboxB.messages[0]).toMatchObject({ content: 'will fix', reply_to: direct.message_id });
    const history = await a!.call<Msgs>('collab_message_list', { unread_only: false });
    expect(history.messages.every((m) => m.read)).toBe(true);
    expect((await a!.fail('collab_message_send', { content: 'x', reply_to: 'nope' })).code).toBe(
      'MESSAGE_NOT_FOUND',
    );
    expect((await a!.fail('collab_message_send', { content: 'x', to_session_id: 'nope' })).code).toBe(
      'SESSION_NOT_FOUND',
    );
  });

  it('decisions: add, list by category, full-text search ranked', async () => {
    const { a, b } = await twoSessions();
    await a.call('collab_decision_add', {
      category: 'api',
      title: 'JWT for auth',
      description: 'Sessions move to JWT tokens signed with RS256.',
    });
    await a.call('collab_decision_add', {
      category: 'naming',
      title: 'snake_case columns',
      description: 'Database columns use snake_case.',
    });
    await b.call('collab_decision_add', {
      category: 'database',
      title: 'Token table',
      description: 'Refresh tokens live in their own table; JWT ids are stored.',
    });
    type Ds = { decisions: Array<{ title: string; category: string; session: string }> };
    const all = await b.call<Ds>('collab_decision_list');
    expect(all.decisions.map((d) => d.title)).toEqual(['Token table', 'snake_case columns', 'JWT for auth']);
    expect(
      (await b.call<Ds>('collab_decision_list', { category: 'naming' })).decisions.map((d) => d.title),
    ).toEqual(['snake_case columns']);
    const found = await b.call<Ds>('collab_decision_list', { query: 'jwt' });
    expect(found.decisions.map((d) => d.title)).toEqual(['JWT for auth', 'Token table']);
    expect((await b.call<Ds>('collab_decision_list', { query: 'tok' })).decisions).toHaveLength(2);
    expect((await b.call<Ds>('collab_decision_list', { query: 'AND OR "(' })).decisions).toEqual([]);
    expect((await b.fail('collab_decision_list', { query: '"()' })).code).toBe('INVALID_INPUT');
    expect((await b.call<Ds>('collab_decision_list', { limit: 1 })).decisions).toHaveLength(1);
  });
});

describe('errors', () => {
  it('bad input is INVALID_INPUT naming the field, with a hint', async () => {
    const { a, repo } = await twoSessions();
    const missing = await a.fail('collab_claim', { intent: 'x' });
    expect(missing).toMatchObject({ code: 'INVALID_INPUT' });
    expect(missing.message).toContain('files');
    expect(missing.hint.length).toBeGreaterThan(0);
    expect((await a.fail('collab_claim', { files: ['a'], intent: 'x', scope: 'huge' })).message).toContain(
      'scope',
    );
    expect((await a.fail('collab_check', { files: ['a'], fils: [] })).message).toContain('"fils"');
    expect((await a.fail('collab_check', { files: ['../outside.ts'] })).message).toContain('escapes');
    expect((await a.fail('collab_check', { files: ['/etc/passwd'] })).message).toContain(
      'outside the project',
    );
    expect((await a.fail('collab_claim', { files: ['x'], intent: '   ' })).code).toBe('INVALID_INPUT');
    expect((await a.fail('collab_session_start', { project_root: join(repo, 'missing') })).code).toBe(
      'INVALID_INPUT',
    );
  });

  it('a size past a limit names the limit and its config key; config.json moves it, and nothing is written', async () => {
    const { a } = await twoSessions();
    const long = await a.fail('collab_claim', { files: ['a.ts'], intent: 'x'.repeat(2001) });
    expect(long).toMatchObject({ code: 'INVALID_INPUT' });
    expect(long.message).toContain('intent: 2001 characters (at most 2000, limits.intent_chars)');
    const deep = await a.fail('collab_check', { files: [Array(200).fill('d').join('/')] });
    expect(deep.message).toContain('has 200 segments (at most 128, limits.path_segments)');
    expect((await a.call<{ claims: unknown[] }>('collab_claims_list')).claims).toEqual([]);

    const app = await testApp({ config: { limits: { intent_chars: 100, path_segments: 16 } } });
    const c = await connectInMemory(app, gitRepo());
    expect((await c.fail('collab_claim', { files: ['a.ts'], intent: 'x'.repeat(101) })).message).toContain(
      'at most 100, limits.intent_chars',
    );
    expect((await c.fail('collab_check', { files: [Array(17).fill('d').join('/')] })).message).toContain(
      'at most 16, limits.path_segments',
    );
    await c.call('collab_claim', { files: ['a.ts'], intent: 'x'.repeat(100) });
    await testApp(); // the next app takes the defaults again
  });

  it('unknown or ended sessions', async () => {
    const { a, b, idB } = await twoSessions();
    expect((await a.fail('collab_claim', { session_id: 'nope', files: ['x'], intent: 'x' })).code).toBe(
      'SESSION_NOT_FOUND',
    );
    await b.call('collab_session_end', {});
    const inactive = await a.fail('collab_claim', { session_id: idB, files: ['x'], intent: 'x' });
    expect(inactive.code).toBe('SESSION_INACTIVE');
    expect(inactive.hint).toContain('collab_session_start');
    expect((await a.fail('collab_session_end', { session_id: idB })).code).toBe('SESSION_INACTIVE');
  });

  it('a database failure is DB_ERROR and does not crash the server', async () => {
    const { app, a } = await twoSessions();
    await app.store.sql.close();
    const err = await a.fail('collab_claims_list');
    expect(err.code).toBe('DB_ERROR');
    expect(err.hint).toContain('doctor');
    // The connection still answers.
    expect((await a.client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('error results carry text for the model as well', async () => {
    const { a } = await twoSessions();
    const result = await a.client.callTool({
      name: 'collab_release',
      arguments: { claim_id: 'nope', status: 'completed' },
    });
    expect(result.isError).toBe(true);
    expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(/^CLAIM_NOT_FOUND: .*\nHint: /);
  });
});
