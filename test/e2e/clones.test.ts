/**
 * One repository in two clones on one machine (one embedded database): a claim in Alice's clone
 * protects the file in Bob's, through every door — collab_check, an exclusive claim, the
 * PreToolUse hook and the commit guard. An unrelated repository stays apart. A database from
 * before, where each clone was a project of its own, is merged without losing a row.
 */
import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stopMachineServer } from '../../src/cli/machine-server.js';
import { aliceAndBob, cli, closeServers, commit, FILES, server, twoClones } from '../helpers/clones.js';
import { hookFixture } from '../helpers/hook-fixtures.js';
import { openSqlite } from '../helpers/sqlite.js';
import { connectStdio, waitFor } from '../helpers/stdio.js';
import { git, gitRepo, tempDir } from '../helpers/temp.js';

afterEach(closeServers);

describe('two clones of one repository on one machine', () => {
  it('a claim in one clone is seen by check, claim, the edit hook and the commit guard in the other', async () => {
    const { home, alice, bob, a, b } = await aliceAndBob();
    await a.call('collab_claim', {
      files: [join(alice, 'src/api/auth.py')],
      intent: 'refactor login',
      exclusive: true,
    });

    // One project: each sees the other, with the machine and the copy it works in.
    const { sessions } = await b.call<{ sessions: Array<{ name: string; worktree: string; host: string }> }>(
      'collab_session_list',
    );
    expect(sessions.map((s) => [s.name, s.worktree]).sort()).toEqual([
      ['alice', alice],
      ['bob', bob],
    ]);
    const check = await b.call<{ safe: boolean; conflicts: Array<{ file: string; session_name: string }> }>(
      'collab_check',
      { files: [join(bob, 'src/api/auth.py')] },
    );
    expect(check.safe).toBe(false);
    expect(JSON.stringify(check)).toContain('alice');
    expect(
      (await b.fail('collab_claim', { files: ['src/api/auth.py'], intent: 'type hints', exclusive: true }))
        .code,
    ).toBe('CLAIM_CONFLICT');
    // Another file of the repository stays free.
    expect(
      (await b.call<{ safe: boolean }>('collab_check', { files: [join(bob, 'src/ui/app.tsx')] })).safe,
    ).toBe(true);

    // Bob's client edits the file in his clone: the hook denies it, naming Alice's claim.
    const denied = await b.hook('pre-tool-use', hookFixture('claude-code/pre-tool-use-edit', bob, 'B-1'));
    const decision = JSON.parse(denied.stdout).hookSpecificOutput;
    expect(decision.permissionDecision).toBe('deny');
    expect(decision.permissionDecisionReason).toContain('src/api/auth.py');
    expect(decision.permissionDecisionReason).toContain('refactor login');

    // Bob commits the file in his clone: the guard refuses.
    expect(cli(home, bob, 'guard', 'install').status).toBe(0);
    writeFileSync(join(bob, 'src/api/auth.py'), 'def login(user, token):\n    pass\n');
    git(bob, 'add', 'src/api/auth.py');
    const refused = commit(home, bob, 'hints');
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('src/api/auth.py');

    // `status` shows the repository once, with each session's copy.
    const status = cli(home, alice, 'status');
    expect(status.stdout.match(/github\.com\/acme\/api/g)).toHaveLength(1);
    expect(status.stdout).toContain(alice);
    expect(status.stdout).toContain(bob);
    // `status --json` gives each session's machine and copy.
    const json = JSON.parse(cli(home, bob, 'status', '--json').stdout) as {
      projects: Array<{ label: string; sessions: Array<{ name: string; host: string; worktree: string }> }>;
    };
    expect(json.projects.map((p) => p.label)).toEqual(['github.com/acme/api']);
    expect(
      json.projects[0]!.sessions.map((s) => ({ name: s.name, host: s.host, worktree: s.worktree })),
    ).toEqual(
      expect.arrayContaining([
        { name: 'alice', host: hostname(), worktree: alice },
        { name: 'bob', host: hostname(), worktree: bob },
      ]),
    );
  });

  it('an unrelated repository with the same file is another project', async () => {
    const home = tempDir('collab-home-');
    const { alice } = twoClones();
    const other = gitRepo(FILES);
    const a = await server(alice, home);
    const o = await server(other, home);
    await a.call('collab_session_start', { name: 'alice', project_root: alice });
    await o.call('collab_session_start', { name: 'other', project_root: other });
    await a.call('collab_claim', { files: ['src/api/auth.py'], intent: 'refactor', exclusive: true });
    expect((await o.call<{ safe: boolean }>('collab_check', { files: ['src/api/auth.py'] })).safe).toBe(true);
    await o.call('collab_claim', { files: ['src/api/auth.py'], intent: 'its own file', exclusive: true });
  });
});

describe('what two clones changed, recorded by their edit hooks', () => {
  it('a serving process reads each edit (hunks and symbols), and each side is told they will conflict', async () => {
    const { home, alice, bob, a, b } = await aliceAndBob();
    // Each client writes login() in its clone, and its PostToolUse hook runs.
    writeFileSync(join(alice, 'src/api/auth.py'), 'def login(user, token):\n    return token\n');
    writeFileSync(join(bob, 'src/api/auth.py'), 'def login(user):\n    return user.name\n');
    expect(
      (await a.hook('post-tool-use', hookFixture('claude-code/post-tool-use-write', alice, 'A-1'))).code,
    ).toBe(0);
    expect(
      (await b.hook('post-tool-use', hookFixture('claude-code/post-tool-use-write', bob, 'B-1'))).code,
    ).toBe(0);

    // The hooks only asked; a serving process read both files, with the symbol each change is in.
    const db = openSqlite(join(home, 'registry.db'), { readonly: true });
    const recorded = () =>
      db
        .prepare(
          "SELECT s.name AS name, f.hunks AS hunks FROM changed_files f JOIN sessions s ON s.id = f.session_id WHERE f.path = 'src/api/auth.py' ORDER BY s.name",
        )
        .all() as Array<{ name: string; hunks: string }>;
    await waitFor(() => recorded().length === 2, 10_000, 'both edits to be read');
    expect(
      recorded().map((r) => [r.name, (JSON.parse(r.hunks) as Array<{ symbols: string[] }>)[0]!.symbols]),
    ).toEqual([
      ['alice', ['login']],
      ['bob', ['login']],
    ]);
    db.close();

    const check = await a.call<{ safe: boolean; predicted_conflicts: Array<Record<string, unknown>> }>(
      'collab_check',
    );
    expect(check.safe).toBe(false);
    expect(check.predicted_conflicts).toMatchObject([
      { session_name: 'bob', level: 'textual', file: 'src/api/auth.py', symbols: ['login'] },
    ]);
    // `status` shows the pair, for a person watching.
    const status = cli(home, alice, 'status');
    expect(status.stdout).toContain('Predicted at merge');
    expect(status.stdout).toMatch(
      /will conflict src\/api\/auth\.py login: "(alice|bob)" and "(alice|bob)" \((1–2 \/ 2|2 \/ 1–2)\)/,
    );
    const json = JSON.parse(cli(home, alice, 'status', '--json').stdout) as {
      projects: Array<{ predicted: Array<{ level: string; file: string }> }>;
    };
    expect(json.projects[0]!.predicted).toMatchObject([{ level: 'textual', file: 'src/api/auth.py' }]);
  });
});

describe('an edit that would conflict with another clone’s uncommitted change', () => {
  it('the PreToolUse hook asks, naming the session and the lines; an edit elsewhere in the file goes ahead', async () => {
    const body = Array.from({ length: 30 }, (_, i) => `    step_${i + 1}()`).join('\n');
    const source = `def login(user):\n${body}\n\n\ndef logout(user):\n    pass\n`;
    // Bob starts with a change to step 10 he has not committed (no hook saw it: no claim holds the
    // file); his session's start reads it.
    const { home, alice, a } = await aliceAndBob({ 'src/api/auth.py': source }, (clones) =>
      writeFileSync(join(clones.bob, 'src/api/auth.py'), source.replace('step_10()', 'step_10(retries=3)')),
    );

    const edit = (old_string: string, new_string: string) =>
      a.hook(
        'pre-tool-use',
        hookFixture('claude-code/pre-tool-use-edit', alice, 'A-1', {
          file_path: join(alice, 'src/api/auth.py'),
          old_string,
          new_string,
        }),
      );
    const asked = await edit('    step_10()\n    step_11()', '    step_10(timeout=5)\n    step_11()');
    const out = JSON.parse(asked.stdout).hookSpecificOutput;
    expect(out.permissionDecision).toBe('ask');
    expect(out.permissionDecisionReason).toContain('session "bob"');
    expect(out.permissionDecisionReason).toContain('changed line 11 (login), where this edit writes line 11');
    // What bob changed there, quoted.
    expect(out.permissionDecisionReason).toContain('> -    step_10()\n> +    step_10(retries=3)');
    // Touching lines conflict too, as git merges them.
    expect(
      JSON.parse((await edit('    step_11()', '    step_11(x)')).stdout).hookSpecificOutput
        .permissionDecision,
    ).toBe('ask');
    // Elsewhere in the same file (and the same function): no question.
    expect((await edit('    step_25()', '    step_25(x)')).stdout).toBe('');
    expect((await edit('def logout(user):', 'def logout(user, all=False):')).stdout).toBe('');

    // Alice commits a change to those lines anyway: the guard lets it through (nobody holds the
    // file), reads her changes and says what will conflict.
    expect(cli(home, alice, 'guard', 'install').status).toBe(0);
    writeFileSync(join(alice, 'src/api/auth.py'), source.replace('step_11()', 'step_11(x)'));
    git(alice, 'add', 'src/api/auth.py');
    const committed = commit(home, alice, 'step 11');
    expect(committed.status, committed.stderr).toBe(0);
    expect(committed.stderr).toContain('src/api/auth.py (login): will conflict with session "bob"');
    expect(committed.stderr).toContain('Their change there:');
  });
});

describe('an edit that would merge cleanly and break the build', () => {
  it('the PreToolUse hook asks before an edit changes the interface another clone now calls; a body edit goes ahead', async () => {
    const auth = 'export function login(user: string) {\n  return user;\n}\n';
    const { alice, bob, a, b } = await aliceAndBob({
      'src/auth.ts': auth,
      'src/app.ts': 'export const app = 1;\n',
    });
    // Bob's uncommitted code calls login (his check records it, as his edit hooks would).
    writeFileSync(
      join(bob, 'src/app.ts'),
      "import { login } from './auth';\nexport const app = 1;\nlogin('bob');\n",
    );
    await b.call('collab_check');
    const edit = (old_string: string, new_string: string) =>
      a.hook(
        'pre-tool-use',
        hookFixture('claude-code/pre-tool-use-edit', alice, 'A-1', {
          file_path: join(alice, 'src/auth.ts'),
          old_string,
          new_string,
        }),
      );
    const asked = JSON.parse(
      (await edit('login(user: string)', 'login(user: string, token: string)')).stdout,
    ).hookSpecificOutput;
    expect(asked.permissionDecision).toBe('ask');
    expect(asked.permissionDecisionReason).toContain('the build would break');
    expect(asked.permissionDecisionReason).toContain(
      'this edit changed login(user: string) to login(user: string, token: string), which session "bob"',
    );
    expect(asked.permissionDecisionReason).toContain("src/app.ts:3:\n> login('bob');");
    // The body alone: its interface stays, nothing to ask.
    expect((await edit('  return user;', '  return user.trim();')).stdout).toBe('');
  });
});

describe('a database from before repositories were named', () => {
  it('the projects of two clones (keyed by their git folders) merge into one, losing no row, and say so', async () => {
    const home = tempDir('collab-home-');
    const { alice, bob } = twoClones();
    // Work recorded when each clone was its own project: a session, a claim, a message, a decision each.
    for (const [name, clone] of [
      ['alice', alice],
      ['bob', bob],
    ] as const) {
      const s = await connectStdio({ cwd: clone, home });
      await s.call('collab_session_start', { name, project_root: clone });
      await s.call('collab_claim', { files: [`src/${name}.ts`], intent: `${name}'s work` });
      await s.call('collab_decision_add', { title: `${name} decided`, description: 'because' });
      await s.call('collab_message_send', { content: `hello from ${name}` });
      await s.close();
    }
    // The machine's server names the projects itself in the background (2.5 s after it starts):
    // stopped before the database is put back as it was, or it could merge them before `migrate`.
    await stopMachineServer(home);
    const db = openSqlite(join(home, 'registry.db'));
    const counts = () =>
      Object.fromEntries(
        ['sessions', 'claims', 'claim_files', 'messages', 'decisions'].map((t) => [
          t,
          (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n,
        ]),
      );
    const before = counts();
    // As keyed before: each project by its clone's git folder.
    const projects = db.prepare('SELECT id FROM projects ORDER BY created_at').all() as Array<{ id: string }>;
    expect(projects).toHaveLength(1);
    db.prepare('UPDATE projects SET root = ?, name = NULL WHERE id = ?').run(
      join(alice, '.git'),
      projects[0]!.id,
    );
    db.prepare(
      "INSERT INTO projects (id, root, kind, created_at, updated_at) VALUES ('bobsproject00000', ?, 'git', 0, 0)",
    ).run(join(bob, '.git'));
    db.prepare("UPDATE sessions SET project_id = 'bobsproject00000' WHERE name = 'bob'").run();
    for (const t of ['claims', 'claim_files', 'messages', 'decisions'])
      db.prepare(
        `UPDATE ${t} SET project_id = 'bobsproject00000' WHERE ${t === 'claim_files' ? "claim_id IN (SELECT id FROM claims WHERE session_id IN (SELECT id FROM sessions WHERE name = 'bob'))" : t === 'decisions' ? "title LIKE 'bob%'" : t === 'messages' ? "content LIKE '%bob'" : "session_id IN (SELECT id FROM sessions WHERE name = 'bob')"}`,
      ).run();
    expect((db.prepare('SELECT count(*) AS n FROM projects').get() as { n: number }).n).toBe(2);

    const migrate = cli(home, alice, 'migrate');
    expect(migrate.status).toBe(0);
    expect(migrate.stdout).toContain('github.com/acme/api');
    expect(migrate.stdout).toMatch(/merged/i);
    const after = db.prepare('SELECT id, root, name FROM projects').all();
    expect(after).toEqual([
      { id: expect.any(String), root: 'git:github.com/acme/api', name: 'github.com/acme/api' },
    ]);
    expect(counts()).toEqual(before);
    expect(db.prepare('SELECT count(DISTINCT project_id) AS n FROM sessions').get()).toEqual({ n: 1 });
    const merges = db.prepare('SELECT from_root, into_root, moved FROM project_merges').all() as Array<{
      from_root: string;
      into_root: string;
      moved: string;
    }>;
    expect(merges).toHaveLength(1);
    expect(JSON.parse(merges[0]!.moved)).toMatchObject({ sessions: 1, claims: 1, messages: 1, decisions: 1 });
    db.close();
  });
});
