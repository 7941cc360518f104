/**
 * Two clones of one repository on one machine, a real server over stdio in each, real hook and
 * commit-guard processes: two agents editing different functions of one file are left alone, the
 * same function is stopped, a claim of one function protects only it, and work done under a claim
 * that lapsed and was taken since cannot be committed until claimed again.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { aliceAndBob, cli, closeServers } from '../helpers/clones.js';
import { hookFixture } from '../helpers/hook-fixtures.js';
import { openSqlite } from '../helpers/sqlite.js';
import { waitFor } from '../helpers/stdio.js';

afterEach(closeServers);

const steps = (name: string) => Array.from({ length: 8 }, (_, i) => `    ${name}_step_${i + 1}()`).join('\n');
const SOURCE = `def login(user):\n${steps('login')}\n\n\ndef logout(user):\n${steps('logout')}\n`;
const FILE = 'src/api/auth.py';
const GIT_ENV = {
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@t',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@t',
};

type Clones = Awaited<ReturnType<typeof aliceAndBob>>;

/** An Edit of the file as the client's PreToolUse hook sees it; the hook's output, parsed. */
async function preEdit(client: Clones['a'], root: string, sessionId: string, from: string, to: string) {
  const run = await client.hook(
    'pre-tool-use',
    hookFixture('claude-code/pre-tool-use-edit', root, sessionId, {
      file_path: join(root, FILE),
      old_string: from,
      new_string: to,
    }),
  );
  expect(run.code, run.stderr).toBe(0);
  return (run.stdout ? JSON.parse(run.stdout).hookSpecificOutput : {}) as {
    permissionDecision?: string;
    permissionDecisionReason?: string;
    additionalContext?: string;
  };
}

/** `git add` and `git commit` from the client's shell, as its agent would run them. */
function commitFrom(client: Clones['a'], home: string, text: string) {
  return client.run(`git add ${FILE} && git commit -qm ${JSON.stringify(text)}`, '', {
    ...GIT_ENV,
    SESSION_COLLAB_HOME: home,
  });
}

describe('two agents, one file, two clones', () => {
  it('editing different functions are left alone; the same function is stopped', async () => {
    const c = await aliceAndBob({ [FILE]: SOURCE });
    // Alice's agent edits login; her PostToolUse hook records it (a claim of the file, by edit).
    writeFileSync(join(c.alice, FILE), SOURCE.replace('login_step_2()', 'login_step_2(retries=3)'));
    const post = await c.a.hook(
      'post-tool-use',
      hookFixture('claude-code/post-tool-use-write', c.alice, 'A-1', {
        file_path: join(c.alice, FILE),
        content: '',
      }),
    );
    expect(post.code, post.stderr).toBe(0);
    // A serving process reads what the edit changed, with its symbol.
    const db = openSqlite(join(c.home, 'registry.db'), { readonly: true });
    await waitFor(
      () =>
        (
          db
            .prepare(
              `SELECT count(*) AS n FROM changed_files f JOIN sessions s ON s.id = f.session_id
               WHERE s.name = 'alice' AND f.path = ? AND f.hunks LIKE '%"login"%'
                 AND NOT EXISTS (SELECT 1 FROM changes_pending p WHERE p.session_id = s.id)`,
            )
            .get(FILE) as { n: number }
        ).n === 1,
      10_000,
      "Alice's edit to be read",
    );
    db.close();

    // Bob's agent edits logout: through, with a one-line note.
    const apart = await preEdit(c.b, c.bob, 'B-1', 'logout_step_5()', 'logout_step_5(force=True)');
    expect(apart.permissionDecision).toBeUndefined();
    expect(apart.additionalContext).toContain('is being edited by "alice"');
    expect(apart.additionalContext).toContain('apart from its changes');
    // Bob's agent edits login, lines apart from Alice's: git would merge, but it is her function.
    const same = await preEdit(c.b, c.bob, 'B-1', 'login_step_7()', 'login_step_7(x)');
    expect(same.permissionDecision).toBe('deny');
    expect(same.permissionDecisionReason).toContain('session "alice"');
  });

  it('a claim of one function: edits and commits of another go ahead, of that one are refused', async () => {
    const c = await aliceAndBob({ [FILE]: SOURCE });
    await c.a.call('collab_claim', { files: [`${FILE}#login`], intent: 'token auth', exclusive: true });

    const other = await preEdit(c.b, c.bob, 'B-1', 'logout_step_5()', 'logout_step_5(force=True)');
    expect(other.permissionDecision).toBeUndefined();
    expect(other.additionalContext).toBe(
      `${FILE}#login is held by "alice" (session_id ${await sessionIdOf(c, 'alice')}); this edit changes other code of the file.`,
    );
    const inside = await preEdit(c.b, c.bob, 'B-1', 'login_step_5()', 'login_step_5(x)');
    expect(inside.permissionDecision).toBe('deny');
    expect(inside.permissionDecisionReason).toContain(`${FILE}#login`);
    expect(inside.permissionDecisionReason).toContain('token auth');

    expect(cli(c.home, c.bob, 'guard', 'install').status).toBe(0);
    writeFileSync(join(c.bob, FILE), SOURCE.replace('logout_step_5()', 'logout_step_5(force=True)'));
    const allowed = await commitFrom(c.b, c.home, 'logout forces');
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stderr).toContain(`${FILE}#login is held by "alice"`);
    writeFileSync(join(c.bob, FILE), SOURCE.replace('login_step_5()', 'login_step_5(x)'));
    const refused = await commitFrom(c.b, c.home, 'login too');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`${FILE}#login`);
    expect(refused.stderr).toContain('The commit was refused');
  });

  it('work under a claim that lapsed and was claimed by another since is refused at commit until claimed again', async () => {
    const c = await aliceAndBob({ [FILE]: SOURCE });
    await c.a.call('collab_claim', { files: [FILE], intent: 'token auth', ttl_seconds: 1 });
    writeFileSync(join(c.alice, FILE), SOURCE.replace('login_step_2()', 'login_step_2(token)'));
    await new Promise((r) => setTimeout(r, 1_200));
    // Her claim expired; Bob claims the file, works, and is done with it.
    const his = await c.b.call<{ claim_id: string }>('collab_claim', {
      files: [FILE],
      intent: 'rename steps',
    });
    await c.b.call('collab_release', { claim_id: his.claim_id, status: 'completed' });

    expect(cli(c.home, c.alice, 'guard', 'install').status).toBe(0);
    const refused = await commitFrom(c.a, c.home, 'token');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/your claim \w{8} expired at .*; session "bob" \(\w{8}\) claimed it at/);
    expect(refused.stderr).toContain('claim the files again (collab_claim)');
    // Claimed again: hers to commit.
    await c.a.call('collab_claim', { files: [FILE], intent: 'token auth, after looking at his' });
    const committed = await commitFrom(c.a, c.home, 'token');
    expect(committed.code, committed.stderr).toBe(0);
  });
});

async function sessionIdOf(c: Clones, name: string): Promise<string> {
  const { sessions } = await c.a.call<{ sessions: Array<{ name: string; id: string }> }>(
    'collab_session_list',
  );
  return sessions.find((s) => s.name === name)!.id;
}
