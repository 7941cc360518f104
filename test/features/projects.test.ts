/**
 * Projects named by their repository, on either backend: clones are one project; projects from
 * before (keyed by a clone's git folder) are merged into the repository's, every row of every
 * table that belongs to a project moved, in one transaction.
 */
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { reidentifyProjects } from '../../src/features/sessions/project-identities.js';
import { connectInMemory, testApp } from '../helpers/app.js';
import { git, gitRepo, tempDir } from '../helpers/temp.js';

function cloneOf(upstream: string, remote: string): string {
  const dir = join(tempDir('collab-clone-'), 'api');
  git(tempDir(), 'clone', '-q', upstream, dir);
  git(dir, 'remote', 'set-url', 'origin', remote);
  return dir;
}

/** Rows of every table with a project_id, by project. */
async function rowsByProject(app: App): Promise<Record<string, Record<string, number>>> {
  const tables =
    app.store.sql.dialect === 'sqlite'
      ? await app.store.sql.all<{ name: string }>(
          "SELECT m.name AS name FROM sqlite_master m, pragma_table_info(m.name) c WHERE m.type = 'table' AND c.name = 'project_id'",
        )
      : await app.store.sql.all<{ name: string }>(
          "SELECT table_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'project_id'",
        );
  const out: Record<string, Record<string, number>> = {};
  for (const { name } of tables) {
    for (const row of await app.store.sql.all<{ project_id: string; n: number | string }>(
      `SELECT project_id, count(*) AS n FROM ${name} WHERE project_id IS NOT NULL GROUP BY project_id`,
    )) {
      out[name] ??= {};
      out[name][row.project_id] = Number(row.n);
    }
  }
  return out;
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
      const c = await connectInMemory(app, clone, name);
      await c.call('collab_session_start', { name, project_root: clone });
      await c.call('collab_claim', { files: [`src/${name}.ts`, 'docs/**'], intent: `${name}'s work` });
      await c.call('collab_decision_add', { title: `${name} decided`, description: 'because' });
      await c.call('collab_message_send', { content: `hello from ${name}` });
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

    const done = await reidentifyProjects(app);
    expect(done).toHaveLength(2);
    expect(done.filter((d) => d.merged)).toHaveLength(1);
    const projects = await app.store.projects.list();
    expect(projects.map((p) => [p.root, p.name])).toEqual([
      ['git:github.com/acme/api', 'github.com/acme/api'],
    ]);
    const after = await rowsByProject(app);
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
    expect(merges[0]).toMatchObject({ into_root: 'git:github.com/acme/api', host: app.host });
    // The order of a claim's files is kept.
    const claims = await connectInMemory(app, bob, 'reader');
    await claims.call('collab_session_start', { name: 'reader', project_root: bob });
    const list = await claims.call<{ claims: Array<{ files: string[]; session_name: string }> }>(
      'collab_claims_list',
    );
    expect(list.claims.map((c) => c.files).sort()).toEqual([
      ['src/alice.ts', 'docs/**'],
      ['src/bob.ts', 'docs/**'],
    ]);
    // A second pass finds nothing to do.
    expect(await reidentifyProjects(app)).toEqual([]);
  });
});
