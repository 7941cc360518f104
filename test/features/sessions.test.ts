import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ownProcess } from '../../src/features/sessions/client-sessions.js';
import type { ClientIdentity } from '../../src/features/sessions/session-types.js';
import { connectInMemory, testApp } from '../helpers/app.js';
import { afterFirstWrite } from '../helpers/interleave.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

describe('sessions addressed by name', () => {
  it('a message goes to the one live session of that name; two of one name is an error listing both', async () => {
    const app = await testApp();
    const repo = gitRepo();
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((n) => connectInMemory(app, repo, n)));
    await a!.call('collab_session_start', { name: 'alice', project_root: repo });
    const idB = (
      await b!.call<{ session_id: string }>('collab_session_start', { name: 'bob', project_root: repo })
    ).session_id;
    const sent = await a!.call<{ to_session_id: string }>('collab_message_send', {
      to_session_id: 'bob',
      content: 'hi',
    });
    expect(sent.to_session_id).toBe(idB);

    const missing = await a!.fail('collab_message_send', { to_session_id: 'carol', content: 'hi' });
    expect(missing.code).toBe('SESSION_NOT_FOUND');
    expect(missing.hint).toContain('"bob"');

    const idC = (
      await c!.call<{ session_id: string }>('collab_session_start', { name: 'bob', project_root: repo })
    ).session_id;
    const ambiguous = await a!.fail('collab_message_send', { to_session_id: 'bob', content: 'hi' });
    expect(ambiguous.code).toBe('SESSION_AMBIGUOUS');
    expect(ambiguous.message).toContain(idB);
    expect(ambiguous.message).toContain(idC);
    // By id it still works.
    expect(
      (await a!.call<{ to_session_id: string }>('collab_message_send', { to_session_id: idC, content: 'hi' }))
        .to_session_id,
    ).toBe(idC);
  });
});

describe('status in a shared worktree', () => {
  it('never blames a session for an uncommitted change it did not make', async () => {
    const app = await testApp();
    const repo = gitRepo({ 'src/a.ts': 'a\n', 'src/b.ts': 'b\n' });
    const alice = await connectInMemory(app, repo, 'alice');
    const bob = await connectInMemory(app, repo, 'bob');
    await alice.call('collab_claim', { files: ['src/a.ts'], intent: 'alice edits a' });
    await bob.call('collab_claim', { files: ['src/b.ts'], intent: 'bob edits b' });
    writeFileSync(join(repo, 'src/a.ts'), 'changed by alice\n');
    const held = async (conn: typeof alice) =>
      app.claims.changedFilesHeldByOthers(await app.sessions.get(conn.connection.currentId!));
    expect(await held(bob)).toEqual([]);
    expect(await held(alice)).toEqual([]);
    // A session whose own claim covers the changed file is told who else holds it.
    await bob.call('collab_claim', { files: ['src/**'], intent: 'bob reformats everything' });
    expect((await held(bob)).map((c) => [c.file, c.session_id])).toEqual([
      ['src/a.ts', alice.connection.currentId],
    ]);
  });
});

describe('a session that comes back after going inactive', () => {
  it('yields only to what others claimed after it stopped counting, an edit claim that grew included', async () => {
    let now = 1_000_000;
    const app = await testApp({ now: () => now, config: { enforcement: 'warn' } });
    const repo = gitRepo({ 'src/a.ts': 'a\n', 'src/c.ts': 'c\n', 'src/z.ts': 'z\n' });
    const a = await connectInMemory(app, repo, 'a');
    const b = await connectInMemory(app, repo, 'b');
    await a.call('collab_claim', { files: ['src/a.ts'], intent: 'a', exclusive: true });
    await a.call('collab_claim', { files: ['src/c.ts'], intent: 'c', exclusive: true });
    const idA = a.connection.currentId!;
    const sessionB = await app.sessions.get(
      (await b.call<{ session_id: string }>('collab_session_start', { project_root: repo })).session_id,
    );
    await app.claims.recordEdits(sessionB, ['src/z.ts']); // B's edit claim, made early
    now += 1_000;
    // While A still counts, B's edit of a.ts is recorded anyway (the user let it through).
    await app.claims.recordEdits(sessionB, ['src/a.ts']);
    const minute = 60_000;
    now += 20 * minute;
    await app.sessions.touch(sessionB.id);
    now += 20 * minute; // A has been silent for 40 min: inactive since 30
    await app.sessions.touch(sessionB.id);
    await app.claims.recordEdits(sessionB, ['src/c.ts']); // the old edit claim grows over A's c.ts
    now += minute;
    await app.sessions.touch(idA);
    const mine = (
      await app.claims.list(await app.sessions.get(idA), { sessionId: idA, status: 'all', limit: 25 })
    ).items;
    expect(Object.fromEntries(mine.map((c) => [c.files[0], c.status]))).toEqual({
      'src/a.ts': 'active',
      'src/c.ts': 'abandoned',
    });
    const [note] = (await app.notifications.list(idA, 'pending', 'claim_taken_over', 10)).items;
    expect(note).toMatchObject({ files: ['src/c.ts'], released: ['src/c.ts'], session_id: sessionB.id });
  });
});

describe('answers stay bounded with 20,000 claims', () => {
  it('claims_list answers a page, a sweeping claim lists its first conflicts and counts the rest, the holder’s notification stays a summary', async () => {
    const app = await testApp();
    const repo = gitRepo();
    const holder = await connectInMemory(app, repo, 'holder');
    const sweeper = await connectInMemory(app, repo, 'sweeper');
    await holder.call('collab_claims_list');
    const session = await app.sessions.get(holder.connection.currentId!);
    // Written 500 rows a statement: what is measured is the answers, not 40,000 round trips.
    await app.store.write(async () => {
      for (let from = 0; from < 20_000; from += 500) {
        const ids = Array.from({ length: 500 }, (_, k) => from + k);
        const now = app.now();
        await app.store.sql.run(
          `INSERT INTO claims (id, session_id, project_id, intent, scope, exclusive, status, created_at, updated_at, expires_at, source)
           VALUES ${ids.map(() => "(?, ?, ?, ?, 'small', 0, 'active', ?, ?, NULL, 'tool')").join(', ')}`,
          ids.flatMap((i) => [`c${i}`, session.id, session.project_id, `work ${i}`, now, now]),
        );
        await app.store.sql.run(
          `INSERT INTO claim_files (claim_id, project_id, pattern, base, active, added_at)
           VALUES ${ids.map(() => '(?, ?, ?, ?, 1, ?)').join(', ')}`,
          ids.flatMap((i) => {
            const path = `pkg${i % 100}/src/file${i}.ts`;
            return [`c${i}`, session.project_id, path, path, now];
          }),
        );
      }
    });
    const list = await sweeper.client.callTool({ name: 'collab_claims_list', arguments: {} });
    expect((list.structuredContent as { claims: unknown[] }).claims).toHaveLength(25);
    expect(JSON.stringify(list).length).toBeLessThan(40_000);

    // Page after page, every claim once (they were all made in the same millisecond).
    type ClaimsPage = { claims: Array<{ claim_id: string }>; next_cursor: string | null };
    const seen = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page: ClaimsPage = await sweeper.call('collab_claims_list', { limit: 200, cursor });
      expect(page.claims.length).toBeLessThanOrEqual(200);
      for (const c of page.claims) seen.add(c.claim_id);
      cursor = page.next_cursor ?? undefined;
      pages++;
    } while (cursor);
    expect(seen.size).toBe(20_000);
    expect(pages).toBe(100);
    // A filter reads only until its page is full; its pages chain the same way.
    const filtered = await sweeper.call<ClaimsPage>('collab_claims_list', {
      path_filter: 'pkg7/**',
      limit: 150,
    });
    expect(filtered.claims).toHaveLength(150);
    const rest = await sweeper.call<ClaimsPage>('collab_claims_list', {
      path_filter: 'pkg7/**',
      limit: 150,
      cursor: filtered.next_cursor!,
    });
    expect(rest.claims).toHaveLength(50);
    expect(rest.next_cursor).toBeNull();
    expect(new Set([...filtered.claims, ...rest.claims].map((c) => c.claim_id)).size).toBe(200);
    const bad = await sweeper.client.callTool({
      name: 'collab_claims_list',
      arguments: { cursor: 'not-a-cursor' },
    });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.structuredContent)).toContain('INVALID_INPUT');

    const claim = await sweeper.client.callTool({
      name: 'collab_claim',
      arguments: { files: ['**/*.ts'], intent: 'reformat everything' },
    });
    const out = claim.structuredContent as { conflicts: unknown[]; warning: string };
    expect(out.conflicts).toHaveLength(20);
    expect(out.warning).toContain('and 19980 more claim(s)');
    expect(JSON.stringify(claim).length).toBeLessThan(40_000);

    const next = await holder.client.callTool({ name: 'collab_session_list', arguments: {} });
    const notes = (next.structuredContent as { notifications: Array<{ files: string[] }> }).notifications;
    expect(notes[0]!.files.length).toBeLessThanOrEqual(20);
    expect(JSON.stringify(next).length).toBeLessThan(20_000);
  });
});

describe('where two claims meet', () => {
  it('is a real tracked file when one matches both patterns, else an example marked as one', async () => {
    const app = await testApp();
    const repo = gitRepo({ 'src/api/login.ts': 'x\n', 'src/ui/app.tsx': 'y\n' });
    const a = await connectInMemory(app, repo, 'a');
    const b = await connectInMemory(app, repo, 'b');
    await a.call('collab_claim', { files: ['src/api/*'], intent: 'api' });
    const real = await b.call<{ conflicts: Array<{ overlap: string[] }> }>('collab_claim', {
      files: ['src/**/*.ts'],
      intent: 'types',
    });
    expect(real.conflicts[0]!.overlap).toEqual(['src/api/login.ts']);
    await a.call('collab_claim', { files: ['docs/*'], intent: 'docs' });
    const made = await b.call<{ conflicts: Array<{ overlap: string[] }> }>('collab_claim', {
      files: ['docs/**/*.md'],
      intent: 'markdown',
    });
    expect(made.conflicts[0]!.overlap[0]).toMatch(/^docs\/.+\.md \(example\)$/);
    const check = await b.call<{ conflicts: Array<{ file: string }> }>('collab_check', { files: ['src/**'] });
    expect(check.conflicts.map((c) => c.file)).toContain('src/api/login.ts');
  });
});

describe('a session taken over on another machine (team mode)', () => {
  it('is served from there on: its host, process and server are the new ones', async () => {
    const home = tempDir('collab-home-');
    const machineA = await testApp({ home });
    const machineB = await testApp({ home });
    // Two processes of one database on two machines.
    Object.assign(machineB, { host: 'machine-b' });
    const repo = gitRepo();
    const { session } = await machineA.sessions.start({ projectRoot: repo, name: 'moving' });
    expect(session.host).toBe(machineA.host);
    const server = ownProcess();
    const adopted = await machineB.sessions.adopt(session.id, server);
    expect(adopted).toMatchObject({ host: 'machine-b', pid: server.pid, server_pid: server.pid });
    // On machine A it is now judged by its heartbeat, not by a pid of A's: it stays active.
    const { items } = await machineA.sessions.list(null, true);
    expect(items.find((s) => s.id === session.id)?.status).toBe('active');
  });
});

describe('a client session that ends while its client goes on under a new id', () => {
  it('is ended before or after the SessionStart that takes it up, never between: the new id keeps a live session', async () => {
    const app = await testApp();
    const repo = gitRepo();
    const { worktree } = app.sessions.locate(repo);
    // This process stands for the client (Claude Code), alive throughout.
    const client = (sessionId: string): ClientIdentity => ({
      sessionId,
      process: { ...ownProcess(), ppid: process.ppid, comm: 'claude', cmdline: 'claude', exe: 'claude' },
    });
    const first = (await app.enforcement.sessionFor(client('first'), repo, 'claude-code')).session!;
    // The SessionStart hook of the id the client goes on under (after /compact: it continues the
    // session) runs in another process once the SessionEnd hook's first write has committed.
    const { store } = app;
    let taken: string | undefined;
    afterFirstWrite(store, async () => {
      taken = (await app.enforcement.sessionFor(client('next'), repo, 'claude-code', true)).session?.id;
    });
    await app.sessions.clients.endClientSession(client('first'), worktree, 'prompt_input_exit');
    expect(taken).toBeDefined();
    expect((await app.sessions.get(first.id)).status).toBe('ended');
    // The session the new id was given lives on (a new one: the old had ended before it came).
    expect((await app.sessions.get(taken!)).status).toBe('active');
    expect((await store.sessions.findByClientSession('next'))?.id).toBe(taken);
  });
});

describe('a connection that goes away while its client session is taken up again', () => {
  it('ends the session before or after the client comes back, never between: the client session keeps a live session', async () => {
    const app = await testApp();
    const repo = gitRepo();
    // The client (Claude Code) the session was bound to has exited (its start time is not this
    // process's); the same client session goes on in a new process (--resume), this one.
    const client = (start: string | null): ClientIdentity => ({
      sessionId: 'resumed',
      process: {
        ...ownProcess(),
        start,
        ppid: process.ppid,
        comm: 'claude',
        cmdline: 'claude',
        exe: 'claude',
      },
    });
    const first = (await app.enforcement.sessionFor(client('exited'), repo, 'claude-code')).session!;
    // The new process's SessionStart hook runs in another process once the leaving connection's
    // first write has committed.
    const { store } = app;
    let taken: string | undefined;
    afterFirstWrite(store, async () => {
      taken = (await app.enforcement.sessionFor(client(ownProcess().start), repo, 'claude-code')).session?.id;
    });
    await app.sessions.clients.leave(first.id, ownProcess(), 'the connection closed');
    expect(taken).toBeDefined();
    // Taken up after it ended, the client session was given a new one; before, it would be kept.
    expect((await app.sessions.get(taken!)).status).toBe('active');
    expect((await store.sessions.findByClientSession('resumed'))?.id).toBe(taken);
    await app.close();
  });
});
