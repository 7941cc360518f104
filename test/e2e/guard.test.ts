import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hookFixture } from '../helpers/hook-fixtures.js';
import { CLI, hookClient } from '../helpers/stdio.js';
import { git, gitRepo, tempDir } from '../helpers/temp.js';

type Client = Awaited<ReturnType<typeof hookClient>>;
const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

const GIT_ENV = {
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@t',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@t',
};

function cli(home: string, cwd: string, ...args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    env: { ...process.env, SESSION_COLLAB_HOME: home },
    encoding: 'utf8',
  });
}

function commit(home: string, cwd: string, extraEnv: Record<string, string> = {}, ...args: string[]) {
  return spawnSync('git', ['commit', '-qm', 'change', ...args], {
    cwd,
    env: { ...process.env, ...GIT_ENV, SESSION_COLLAB_HOME: home, ...extraEnv },
    encoding: 'utf8',
  });
}

/** A repository where a session (a fake Claude Code client) has edited src/a.ts. */
async function heldRepo() {
  const home = tempDir('collab-home-');
  const repo = gitRepo({ 'src/a.ts': '1\n', 'src/b.ts': '2\n' });
  const holder = await hookClient({ cwd: repo, home });
  open.push(holder);
  await holder.hook(
    'post-tool-use',
    hookFixture('claude-code/post-tool-use-write', repo, 'H-1', {
      file_path: join(repo, 'src/a.ts'),
      content: '',
    }),
  );
  return { home, repo, holder };
}

describe('pre-commit guard', () => {
  it('refuses a commit touching files another live session holds, and chains the existing hook', async () => {
    const { home, repo } = await heldRepo();
    const hooks = join(repo, '.git', 'hooks');
    const original = '#!/bin/sh\necho ran >> "$(git rev-parse --show-toplevel)/.chained-ran"\n';
    writeFileSync(join(hooks, 'pre-commit'), original);
    chmodSync(join(hooks, 'pre-commit'), 0o755);

    const install = cli(home, repo, 'guard', 'install');
    expect(install.status).toBe(0);
    expect(install.stdout).toContain('Your existing pre-commit hook was kept');

    writeFileSync(join(repo, 'src/a.ts'), 'mine\n');
    git(repo, 'add', 'src/a.ts');
    const refused = commit(home, repo);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('This commit would change files another session is working on');
    expect(refused.stderr).toContain('src/a.ts');
    expect(refused.stderr).toContain('--no-verify');
    // It speaks to a person at a terminal: commands, not the agents' tool names.
    expect(refused.stderr).toMatch(/session-collab message [0-9a-f]{8} /);
    expect(refused.stderr).toMatch(/session-collab release [0-9a-f]{8} /);
    expect(refused.stderr).toContain('session-collab clean');
    expect(refused.stderr).not.toContain('collab_message_send');
    expect(existsSync(join(repo, '.chained-ran'))).toBe(false);

    // Other files commit fine, and the chained hook runs.
    git(repo, 'reset', '-q');
    writeFileSync(join(repo, 'src/b.ts'), 'other\n');
    git(repo, 'add', 'src/b.ts');
    expect(commit(home, repo).status).toBe(0);
    expect(readFileSync(join(repo, '.chained-ran'), 'utf8')).toBe('ran\n');

    // The documented bypasses.
    git(repo, 'add', 'src/a.ts');
    expect(commit(home, repo, { SESSION_COLLAB_GUARD: 'off' }).status).toBe(0);
    writeFileSync(join(repo, 'src/a.ts'), 'again\n');
    git(repo, 'add', 'src/a.ts');
    expect(commit(home, repo, {}, '--no-verify').status).toBe(0);

    // Installing twice leaves one guard and one chained hook; uninstall restores the original.
    expect(cli(home, repo, 'guard', 'install').stdout).toContain('Updated');
    const hook = readFileSync(join(hooks, 'pre-commit'), 'utf8');
    expect(hook.match(/guard check/g)).toHaveLength(1);
    expect(readFileSync(join(hooks, 'pre-commit.session-collab-chained'), 'utf8')).toBe(original);
    expect(cli(home, repo, 'guard', 'uninstall').stdout).toContain('your previous hook is back');
    expect(readFileSync(join(hooks, 'pre-commit'), 'utf8')).toBe(original);
    expect(existsSync(join(hooks, 'pre-commit.session-collab-chained'))).toBe(false);
  });

  it("lets the holding session commit its own files, and stops another session's commit", async () => {
    const { home, repo, holder } = await heldRepo();
    cli(home, repo, 'guard', 'install');
    const other = await hookClient({ cwd: repo, home });
    open.push(other);
    await other.hook('session-start', hookFixture('claude-code/session-start', repo, 'O-1'));
    writeFileSync(join(repo, 'src/a.ts'), 'edited\n');
    const env = { ...GIT_ENV, SESSION_COLLAB_HOME: home };
    const gitCommit = `git add src/a.ts && git commit -qm "from a session"`;
    const byOther = await other.run(gitCommit, '', env);
    expect(byOther.code).not.toBe(0);
    expect(byOther.stderr).toContain('src/a.ts');
    const byHolder = await holder.run(gitCommit, '', env);
    expect(byHolder.stderr).toBe('');
    expect(byHolder.code).toBe(0);
  });

  it('works with husky: the guard goes into .husky/pre-commit, and comes out again', async () => {
    const { home, repo } = await heldRepo();
    mkdirSync(join(repo, '.husky', '_'), { recursive: true });
    const userScript = 'npm test\n';
    writeFileSync(join(repo, '.husky', 'pre-commit'), userScript);
    writeFileSync(join(repo, '.husky', '_', 'pre-commit'), '#!/bin/sh\n. "$(dirname "$0")/../pre-commit"\n');
    chmodSync(join(repo, '.husky', '_', 'pre-commit'), 0o755);
    git(repo, 'config', 'core.hooksPath', '.husky/_');
    expect(cli(home, repo, 'guard', 'install').stdout).toContain('husky');
    cli(home, repo, 'guard', 'install');
    const script = readFileSync(join(repo, '.husky', 'pre-commit'), 'utf8');
    expect(script.match(/guard check/g)).toHaveLength(1);
    expect(script.endsWith(userScript)).toBe(true);
    writeFileSync(join(repo, 'src/a.ts'), 'x\n');
    git(repo, 'add', 'src/a.ts');
    expect(commit(home, repo).status).not.toBe(0);
    cli(home, repo, 'guard', 'uninstall');
    expect(readFileSync(join(repo, '.husky', 'pre-commit'), 'utf8')).toBe(userScript);
  });

  it('chains a lefthook-installed hook (which calls `lefthook run pre-commit`)', async () => {
    const { home, repo } = await heldRepo();
    const bin = tempDir('collab-bin-');
    writeFileSync(
      join(bin, 'lefthook'),
      `#!/bin/sh\necho "lefthook $*" >> "${join(repo, '.lefthook-ran')}"\n`,
    );
    chmodSync(join(bin, 'lefthook'), 0o755);
    const hookFile = join(repo, '.git', 'hooks', 'pre-commit');
    writeFileSync(
      hookFile,
      '#!/bin/sh\n\nif [ "$LEFTHOOK" = "0" ]; then\n  exit 0\nfi\n\nlefthook run "pre-commit" "$@"\n',
    );
    chmodSync(hookFile, 0o755);
    cli(home, repo, 'guard', 'install');
    const env = { PATH: `${bin}:${process.env.PATH}` };
    writeFileSync(join(repo, 'src/a.ts'), 'x\n');
    git(repo, 'add', 'src/a.ts');
    expect(commit(home, repo, env).status).not.toBe(0);
    expect(existsSync(join(repo, '.lefthook-ran'))).toBe(false);
    git(repo, 'reset', '-q');
    writeFileSync(join(repo, 'src/b.ts'), 'y\n');
    git(repo, 'add', 'src/b.ts');
    expect(commit(home, repo, env).status).toBe(0);
    expect(readFileSync(join(repo, '.lefthook-ran'), 'utf8')).toBe('lefthook run pre-commit\n');
  });

  it('reports when there is nothing to uninstall, and status tells', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    expect(cli(home, repo, 'guard', 'status').stdout).toContain('No pre-commit guard');
    expect(cli(home, repo, 'guard', 'uninstall').stdout).toContain('nothing to do');
    cli(home, repo, 'guard', 'install');
    expect(JSON.parse(cli(home, repo, 'guard', 'status', '--json').stdout)).toEqual({ installed: true });
    execFileSync('git', ['worktree', 'add', '-q', join(tempDir(), 'wt')], { cwd: repo });
  });

  it('install over a hook another tool rewrote keeps every hook; uninstall keeps lines the user added', async () => {
    const { home, repo } = await heldRepo();
    const hooks = join(repo, '.git', 'hooks');
    const marks = join(repo, 'ran.txt');
    const hook = (name: string) => `#!/bin/sh\necho ${name} >> ${JSON.stringify(marks)}\n`;
    /** The hooks that ran in the last commit, in order; all three should, every time. */
    const ran = () => readFileSync(marks, 'utf8').split('\n').filter(Boolean);
    const everyHook = ['original', 'other-tool', 'mine'];
    writeFileSync(join(hooks, 'pre-commit'), hook('original'));
    chmodSync(join(hooks, 'pre-commit'), 0o755);
    expect(cli(home, repo, 'guard', 'install').status).toBe(0);
    // Another tool replaces the pre-commit hook with its own; the guard is installed again.
    writeFileSync(join(hooks, 'pre-commit'), hook('other-tool'));
    chmodSync(join(hooks, 'pre-commit'), 0o755);
    expect(cli(home, repo, 'guard', 'install').status).toBe(0);
    // The user adds a line of their own to the hook.
    writeFileSync(
      join(hooks, 'pre-commit'),
      `${readFileSync(join(hooks, 'pre-commit'), 'utf8')}echo mine >> ${JSON.stringify(marks)}\n`,
    );
    writeFileSync(join(repo, 'src/b.ts'), 'changed\n');
    git(repo, 'add', 'src/b.ts');
    expect(commit(home, repo).status).toBe(0);
    expect(ran()).toEqual(everyHook);
    // The guard still refuses what another session holds.
    writeFileSync(join(repo, 'src/a.ts'), 'changed\n');
    git(repo, 'add', 'src/a.ts');
    expect(commit(home, repo).status).not.toBe(0);
    git(repo, 'reset', '-q');

    expect(cli(home, repo, 'guard', 'uninstall').status).toBe(0);
    writeFileSync(marks, '');
    git(repo, 'add', 'src/a.ts');
    expect(commit(home, repo).status).toBe(0); // no guard any more...
    expect(ran()).toEqual(everyHook);
    expect(readFileSync(join(hooks, 'pre-commit'), 'utf8')).not.toContain('guard check');
    // ...and installing once more neither loses nor doubles anything.
    expect(cli(home, repo, 'guard', 'install').status).toBe(0);
    writeFileSync(marks, '');
    writeFileSync(join(repo, 'src/b.ts'), 'again\n');
    git(repo, 'add', 'src/b.ts');
    expect(commit(home, repo).status).toBe(0);
    expect(ran()).toEqual(everyHook);
  });

  it('without session-collab where the hook names it, a commit goes ahead with a note; a tracked husky script is said to be', async () => {
    const { home, repo } = await heldRepo();
    cli(home, repo, 'guard', 'install');
    const hook = join(repo, '.git', 'hooks', 'pre-commit');
    // The install moved away (or the hook came from another machine's clone).
    writeFileSync(hook, readFileSync(hook, 'utf8').replaceAll(CLI, '/nowhere/session-collab/dist/cli.cjs'));
    writeFileSync(join(repo, 'src/a.ts'), 'held, but unchecked here\n');
    git(repo, 'add', 'src/a.ts');
    const done = commit(home, repo);
    expect(done.status).toBe(0);
    expect(done.stderr).toContain("is not here; this commit is not checked against other sessions' claims");
    // husky's script is the project's: installing into it says it names this machine's paths.
    mkdirSync(join(repo, '.husky', '_'), { recursive: true });
    writeFileSync(join(repo, '.husky', 'pre-commit'), 'npm test\n');
    git(repo, 'add', '.husky/pre-commit');
    git(repo, 'config', 'core.hooksPath', '.husky/_');
    expect(cli(home, repo, 'guard', 'install').stdout).toContain('is tracked by git');
  });

  it('a hook git does not run stays so; a linked hook comes back as the link; a block without its end is left alone', async () => {
    const { home, repo } = await heldRepo();
    const hooks = join(repo, '.git', 'hooks');
    const hook = join(hooks, 'pre-commit');
    // Not executable: git skips it. Chained, it is not run either; put back, it is as it was.
    writeFileSync(hook, '#!/bin/sh\necho DISABLED-HOOK-RAN; exit 1\n');
    chmodSync(hook, 0o644);
    cli(home, repo, 'guard', 'install');
    writeFileSync(join(repo, 'src/b.ts'), 'free\n');
    git(repo, 'add', 'src/b.ts');
    const done = commit(home, repo);
    expect(done.status).toBe(0);
    expect(done.stdout + done.stderr).not.toContain('DISABLED-HOOK-RAN');
    cli(home, repo, 'guard', 'uninstall');
    expect(statSync(hook).mode & 0o777).toBe(0o644);
    // A link to the project's own script: chained as the link, put back as the link.
    rmSync(hook);
    mkdirSync(join(repo, 'scripts'));
    writeFileSync(join(repo, 'scripts', 'pre-commit'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(repo, 'scripts', 'pre-commit'), 0o755);
    symlinkSync('../../scripts/pre-commit', hook);
    cli(home, repo, 'guard', 'install');
    cli(home, repo, 'guard', 'uninstall');
    expect(lstatSync(hook).isSymbolicLink()).toBe(true);
    expect(readlinkSync(hook)).toBe('../../scripts/pre-commit');
    // The guard's last line removed by hand: uninstall changes nothing and says why.
    cli(home, repo, 'guard', 'install');
    const cut = readFileSync(hook, 'utf8').replace('# <<< session-collab guard <<<\n', '');
    writeFileSync(hook, cut);
    const refused = cli(home, repo, 'guard', 'uninstall', '--json');
    expect(refused.status).toBe(1);
    expect(JSON.parse(refused.stdout).error.code).toBe('INVALID_STATE');
    expect(readFileSync(hook, 'utf8')).toBe(cut);
  });
});
