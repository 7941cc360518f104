/**
 * Projects named by their repository, on either backend: clones are one project; projects from
 * before (keyed by a clone's git folder) are merged into the repository's, every row of every
 * table that belongs to a project moved, in one transaction.
 */
import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { reidentifyProjects } from '../../src/features/sessions/project-identities.js';
import { mergeProject, recentMerges } from '../../src/store/project-merge.js';
import { connectInMemory, testApp } from '../helpers/app.js';
import { git, gitRepo, tempDir } from '../helpers/temp.js';

function cloneOf(upstream: string, remote: string): string {
  const dir = join(tempDir('collab-clone-'), 'api');
  git(tempDir(), 'clone', '-q', upstream, dir);
  git(dir, 'remote', 'set-url', 'origin', remote);
  return dir;
}

/** The tables with a project_id column, read from the schema. */
async function projectTables(app: App): Promise<string[]> {
  const tables =
    app.store.sql.dialect === 'sqlite'
      ? await app.store.sql.all<{ name: string }>(
          "SELECT m.name AS name FROM sqlite_master m, pragma_table_info(m.name) c WHERE m.type = 'table' AND c.name = 'project_id'",
        )
      : await app.store.sql.all<{ name: string }>(
          "SELECT table_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'project_id'",
        );
  return tables.map((t) => t.name).sort();
}

/** Rows of every table with a project_id, by project. */
async function rowsByProject(app: App): Promise<Record<string, Record<string, number>>> {
  const out: Record<string, Record<string, number>> = {};
  for (const name of await projectTables(app)) {
    for (const row of await app.store.sql.all<{ project_id: string; n: number | string }>(
      `SELECT project_id, count(*) AS n FROM ${name} WHERE project_id IS NOT NULL GROUP BY project_id`,
    )) {
      out[name] ??= {};
      out[name][row.project_id] = Number(row.n);
    }
  }
  return out;
}

/** Tables whose rows belong to a project through another row (no project_id of their own). */
const ROWS_BY_PARENT = ['reviews', 'suggestions', 'review_responses', 'changes_pending'];

async function rowsOf(app: App, tables: string[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of tables)
    out[table] = Number(
      (await app.store.sql.get<{ n: number | string }>(`SELECT count(*) AS n FROM ${table}`))!.n,
    );
  return out;
}

/**
 * Rows in every table that belongs to a project, made as the app makes them: two sessions of a
 * clone (a worker and a reviewer), their claims, decisions and messages, work submitted for review
 * (a work item, its events, the reviewer watching and notified, a review with a suggestion and the
 * answer to it), a question to a person, an agent CLI's run, the changes the worker made and what a
 * hook saw it do.
 */
async function everyKindOfRow(app: App, name: string, clone: string): Promise<void> {
  const toolsets = ['collab', 'realm', 'review', 'human'];
  const c = await connectInMemory(app, clone, name, toolsets);
  const { session_id } = await c.call<{ session_id: string }>('collab_session_start', {
    name,
    project_root: clone,
  });
  await c.call('collab_claim', { files: [`src/${name}.ts`, 'docs/**'], intent: `${name}'s work` });
  await c.call('collab_decision_add', { title: `${name} decided`, description: 'because' });
  await c.call('collab_message_send', { content: `hello from ${name}` });
  const reviewer = await connectInMemory(app, clone, `${name}-reviewer`, toolsets);
  await reviewer.call('collab_session_start', { name: `${name}-reviewer`, project_root: clone });
  const session = (await app.store.sessions.get(session_id))!;
  await reviewer.call('get_pending_reviews', { projectId: session.project_id });
  const item = await c.call<{ id: string }>('submit_work', {
    type: 'code',
    phase: 'development',
    title: `${name}'s change`,
    content: 'export const a = 1;\n',
  });
  const review = await reviewer.call<{ review_id: string; suggestions: Array<{ id: string }> }>(
    'submit_review',
    {
      workItemId: item.id,
      verdict: 'request_changes',
      summary: 'one thing',
      suggestions: [{ type: 'clarity', severity: 'minor', title: 'name it', explanation: 'a is vague' }],
    },
  );
  await c.call('respond_to_review', {
    workItemId: item.id,
    reviewId: review.review_id,
    response: 'will do',
    action: 'will_fix',
  });
  await c.call('ask_human', { question: `${name}: ship it?`, wait_seconds: 0 });
  await app.store.write(() =>
    app.store.agentRuns.insert({
      id: `run-${name}`,
      session_id,
      project_id: session.project_id,
      provider: 'claude',
      conversation: `conversation-${name}`,
      cwd: clone,
      prompt: 'look around',
      files: null,
      resumed_from: null,
      runner_pid: process.pid,
      runner_start: null,
      runner_host: app.host,
      created_at: app.now(),
    }),
  );
  writeFileSync(join(clone, 'src/api.ts'), `changed by ${name}\n`);
  expect(await app.changes.refresh(session)).toBe('recorded');
  await app.enforcement.recordEdits(session, [join(clone, 'src/api.ts')], clone);
  await app.enforcement.sighted(session, { command: 'npm test' }, clone);
  // A claim it was stopped by (another's: only the wait is the project's row).
  await app.store.write(() =>
    app.store.claimWaits.add(
      session.id,
      session.project_id,
      [{ claimId: `held-${name}`, file: 'src/held.ts' }],
      app.now(),
    ),
  );
  // A request to land its work, and what landed work met in its changes.
  await app.store.write(async () => {
    const id = `landing-${name}-${session.id}`;
    await app.store.landings.add({
      id,
      project_id: session.project_id,
      session_id: session.id,
      requester: name,
      host: app.host,
      worktree: clone,
      branch: 'main',
      head_commit: '0'.repeat(40),
      onto: 'main',
      commits: 1,
      requested_at: app.now(),
    });
    await app.store.landings.addMeetings([
      {
        id: `meeting-${id}`,
        landing_id: id,
        session_id: session.id,
        project_id: session.project_id,
        base_commit: '0'.repeat(40),
        level: 'textual',
        file: 'src/api.ts',
        detail: '{}',
        at: app.now(),
      },
    ]);
  });
}

describe('a project is a repository', () => {
  it('sessions in two clones are one project; an unrelated repository is another', async () => {
    const app = await testApp();
    const upstream = gitRepo({ 'src/api.ts': '1\n' });
    const alice = cloneOf(upstream, 'git@github.com:acme/api.git');
    const bob = cloneOf(upstream, 'https://github.com/acme/api');
    const a = await connectInMemory(app, alice, 'a');
    const b = await connectInMemory(app, bob, 'b');
    await a.call('collab_session_start', { name: 'alice', project_root: alice });
    await b.call('collab_session_start', { name: 'bob', project_root: bob });
    await a.call('collab_claim', { files: ['src/api.ts'], intent: 'reshape', exclusive: true });
    expect((await b.fail('collab_claim', { files: ['src/api.ts'], intent: 'x', exclusive: true })).code).toBe(
      'CLAIM_CONFLICT',
    );
    const other = gitRepo({ 'src/api.ts': '1\n' });
    const o = await connectInMemory(app, other, 'o');
    await o.call('collab_session_start', { name: 'other', project_root: other });
    await o.call('collab_claim', { files: ['src/api.ts'], intent: 'its own', exclusive: true });
    const projects = await app.store.projects.list();
    expect(projects).toHaveLength(2);
    // The unrelated one, with no remote, is named by its root commit, and called by its folder's name.
    expect(projects.find((p) => p.root.startsWith('root:'))?.name).toBe(basename(other));
    expect(projects.find((p) => p.root === 'git:github.com/acme/api')?.name).toBe('github.com/acme/api');
  });

  it('projects keyed by two clones’ git folders merge into the repository’s: every row moved, the merge recorded', async () => {
    const app = await testApp();
    const upstream = gitRepo({ 'src/api.ts': '1\n', 'src/b.ts': '2\n' });
    const alice = cloneOf(upstream, 'git@github.com:acme/api.git');
    // Bob's clone names another repository at first: its work lands in a project of its own.
    const bob = cloneOf(upstream, 'https://github.com/acme/elsewhere');
    for (const [name, clone] of [
      ['alice', alice],
      ['bob', bob],
    ] as const) {
      await everyKindOfRow(app, name, clone);
    }
    const ids = Object.fromEntries((await app.store.projects.list()).map((p) => [p.root, p.id]));
    // As before repositories were named: each project keyed by its clone's git folder.
    await app.store.write(async () => {
      const tx = app.store.sql;
      await tx.run('UPDATE projects SET root = ?, name = NULL WHERE id = ?', [
        join(alice, '.git'),
        ids['git:github.com/acme/api'],
      ]);
      await tx.run('UPDATE projects SET root = ?, name = NULL WHERE id = ?', [
        join(bob, '.git'),
        ids['git:github.com/acme/elsewhere'],
      ]);
    });
    git(bob, 'remote', 'set-url', 'origin', 'https://github.com/acme/api.git');
    const before = await rowsByProject(app);
    const others = await rowsOf(app, ROWS_BY_PARENT);
    for (const [table, n] of Object.entries(others)) expect(n, table).toBeGreaterThan(0);

    const done = await reidentifyProjects(app);
    expect(done).toHaveLength(2);
    expect(done.filter((d) => d.merged)).toHaveLength(1);
    const projects = await app.store.projects.list();
    expect(projects.map((p) => [p.root, p.name])).toEqual([
      ['git:github.com/acme/api', 'github.com/acme/api'],
    ]);
    // Every table of a project has rows of both projects before the merge (a table added later
    // without rows here fails this, so that the merge is shown to move it too).
    // Whichever is met first is renamed; the other is merged into it.
    const intoId = projects[0]!.id;
    const fromId = Object.values(ids).find((id) => id !== intoId)!;
    expect(Object.values(ids)).toContain(intoId);
    for (const table of await projectTables(app)) {
      expect(before[table]?.[fromId], `${table} of the project merged`).toBeGreaterThan(0);
      expect(before[table]?.[intoId], `${table} of the project kept`).toBeGreaterThan(0);
    }
    const after = await rowsByProject(app);
    // The merge reports what it moved: every row of the merged project, table by table.
    const merged = done.find((d) => d.merged)!;
    const fromRoot = fromId === ids['git:github.com/acme/api'] ? join(alice, '.git') : join(bob, '.git');
    expect(merged).toMatchObject({ project_id: intoId, from: fromRoot, key: 'git:github.com/acme/api' });
    expect(merged.merged).toEqual(Object.fromEntries(Object.entries(before).map(([t, p]) => [t, p[fromId]])));
    // Rows that belong to a project through another row (a review through its work item) stay.
    expect(await rowsOf(app, ROWS_BY_PARENT)).toEqual(others);
    for (const [table, byProject] of Object.entries(before)) {
      const total = Object.values(byProject).reduce((s, n) => s + n, 0);
      expect(after[table], table).toEqual({ [projects[0]!.id]: expect.any(Number) });
      // Triggers may add events for the rows moved; nothing else is added, nothing lost.
      if (table === 'events') expect(after[table]![projects[0]!.id]).toBeGreaterThanOrEqual(total);
      else expect(after[table]![projects[0]!.id], table).toBe(total);
    }
    const merges = await app.store.sql.all<{ from_root: string; into_root: string; host: string }>(
      'SELECT from_root, into_root, host FROM project_merges',
    );
    expect(merges).toHaveLength(1);
    expect(merges[0]).toMatchObject({
      from_root: fromRoot,
      into_root: 'git:github.com/acme/api',
      host: app.host,
    });
    expect((await recentMerges(app.store.sql, 10)).map((m) => JSON.parse(m.moved))).toEqual([merged.merged]);
    // The order of a claim's files is kept.
    const claims = await connectInMemory(app, bob, 'reader');
    await claims.call('collab_session_start', { name: 'reader', project_root: bob });
    const list = await claims.call<{ claims: Array<{ files: string[]; session_name: string }> }>(
      'collab_claims_list',
    );
    expect(list.claims.map((c) => c.files).sort()).toEqual([
      ['src/alice.ts', 'docs/**'],
      // What each worker's edit hook recorded.
      ['src/api.ts'],
      ['src/api.ts'],
      ['src/bob.ts', 'docs/**'],
    ]);
    // The review history moved with its project, and stays append-only otherwise.
    await expect(
      app.store.write(() => app.store.sql.run("UPDATE work_events SET content = 'rewritten'")),
    ).rejects.toThrow('append-only');
    await expect(app.store.write(() => app.store.sql.run('DELETE FROM work_events'))).rejects.toThrow(
      'append-only',
    );
    // A second pass finds nothing to do.
    expect(await reidentifyProjects(app)).toEqual([]);
  });

  it('a claim made while another project merges into its own meets the claims that came with it', async () => {
    const app = await testApp();
    const [mine, theirs] = [gitRepo({ 'src/x.ts': '1\n' }), gitRepo({ 'src/x.ts': '1\n' })];
    const alice = await connectInMemory(app, mine, 'alice');
    const bob = await connectInMemory(app, theirs, 'bob');
    await alice.call('collab_session_start', { name: 'alice', project_root: mine });
    await bob.call('collab_session_start', { name: 'bob', project_root: theirs });
    await bob.call('collab_claim', { files: ['src/x.ts'], intent: 'rewrite', exclusive: true });
    // Alice's project has a claim made after bob's: its rows come after his.
    await alice.call('collab_claim', { files: ['docs/notes.md'], intent: 'notes' });
    const into = (await app.sessions.get(alice.connection.currentId!))!;
    const from = (await app.sessions.get(bob.connection.currentId!))!;
    expect(into.project_id).not.toBe(from.project_id);
    // Bob's project is merged into alice's after her claim read its candidates (before the write
    // lock) and before it takes the lock: his claim keeps its place among the rows.
    const { store } = app;
    const mark = store.claimPatterns.mark.bind(store.claimPatterns);
    const write = store.write.bind(store);
    let armed = false;
    let merged = false;
    // On PostgreSQL once the claim has taken its mark; on SQLite (no mark) at its first write.
    store.claimPatterns.mark = async (projectId) => {
      armed ||= projectId === into.project_id && !merged;
      return mark(projectId);
    };
    store.write = (async (fn: never, scope: never) => {
      if (armed) {
        armed = false;
        merged = true;
        await write(() =>
          mergeProject(
            store.sql,
            { id: from.project_id, root: theirs },
            { id: into.project_id, root: mine },
            app.host,
            app.now(),
          ),
        );
      }
      return write(fn, scope);
    }) as typeof store.write;
    // On PostgreSQL the candidates are read before the lock (on SQLite inside it, where the merged
    // claims are read as any other).
    armed = store.sql.dialect === 'sqlite';
    const refused = await alice.fail('collab_claim', { files: ['src/*.ts'], intent: 'tidy' });
    expect(merged).toBe(true);
    expect(refused.code).toBe('CLAIM_CONFLICT');
    expect(refused.message).toContain('src/x.ts');
  });
});
