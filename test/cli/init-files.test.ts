/**
 * What `init` does to files the user owns: a link stays a link (the file it names is edited), a
 * private file stays private, a read-only one is not written over (and then nothing is), a
 * client's user file with comments keeps them and the user's rules, and inits run at once in
 * several projects each add their own trust to the one user file.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, requireBuild } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

/** `init` in `cwd` with `user` as the user's home (the clients' user files there). */
function envFor(user: string) {
  return {
    ...process.env,
    SESSION_COLLAB_HOME: tempDir('collab-home-'),
    HOME: user,
    CODEX_HOME: join(user, '.codex'),
    GEMINI_CLI_HOME: user,
    NO_COLOR: '1',
    PATH: '/usr/bin:/bin',
  };
}
function init(cwd: string, user: string, ...args: string[]) {
  requireBuild();
  return spawnSync(process.execPath, [CLI, 'init', ...args], { cwd, env: envFor(user), encoding: 'utf8' });
}

describe('init and the files the user owns', () => {
  it("Gemini CLI's trusted folders keep their comments and the user's rules; one it cannot read is not written over", () => {
    const user = tempDir('collab-user-');
    const repo = gitRepo();
    const file = join(user, '.gemini', 'trustedFolders.json');
    mkdirSync(join(user, '.gemini'));
    writeFileSync(
      file,
      '{\n  // my work folders\n  "/home/me/work": "TRUST_PARENT",\n  "/home/me/secret": "DO_NOT_TRUST",\n}\n',
    );
    expect(init(repo, user, '--client', 'gemini', '--trust').status).toBe(0);
    const after = readFileSync(file, 'utf8');
    expect(after).toContain('// my work folders');
    expect(after).toContain('"/home/me/work": "TRUST_PARENT"');
    expect(after).toContain('"/home/me/secret": "DO_NOT_TRUST"');
    expect(after).toContain(`"${repo}": "TRUST_FOLDER"`);

    const other = gitRepo();
    writeFileSync(file, '{ "/home/me/work": ');
    const refused = init(other, user, '--client', 'gemini', '--trust');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('trustedFolders.json is not valid JSON');
    expect(readFileSync(file, 'utf8')).toBe('{ "/home/me/work": ');
    expect(existsSync(join(other, '.gemini'))).toBe(false);
  });

  it('a linked file is edited where the link points, and keeps its mode', () => {
    const user = tempDir('collab-user-');
    const dotfiles = tempDir('collab-dotfiles-');
    const repo = gitRepo();
    mkdirSync(join(user, '.codex'));
    writeFileSync(join(dotfiles, 'codex.toml'), '# mine\nmodel = "o3"\n', { mode: 0o600 });
    chmodSync(join(dotfiles, 'codex.toml'), 0o600);
    symlinkSync(join(dotfiles, 'codex.toml'), join(user, '.codex', 'config.toml'));
    writeFileSync(join(dotfiles, 'mcp.json'), '{ "mcpServers": {} }\n');
    symlinkSync(join(dotfiles, 'mcp.json'), join(repo, '.mcp.json'));
    expect(init(repo, user, '--client', 'claude,codex', '--trust').status).toBe(0);
    expect(lstatSync(join(user, '.codex', 'config.toml')).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(repo, '.mcp.json')).isSymbolicLink()).toBe(true);
    const codex = readFileSync(join(dotfiles, 'codex.toml'), 'utf8');
    expect(codex).toContain('# mine');
    expect(codex).toContain(`[projects."${repo}"]`);
    expect(statSync(join(dotfiles, 'codex.toml')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dotfiles, 'mcp.json'), 'utf8')).toContain('session-collab');
  });

  it('a read-only file is not written over, and then nothing is written', () => {
    const user = tempDir('collab-user-');
    const repo = gitRepo({ '.gitignore': 'node_modules/\n' });
    chmodSync(join(repo, '.gitignore'), 0o444);
    const refused = init(repo, user, '--client', 'claude');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('.gitignore is read-only');
    expect(refused.stderr).toContain('chmod u+w');
    expect(readFileSync(join(repo, '.gitignore'), 'utf8')).toBe('node_modules/\n');
    expect(existsSync(join(repo, '.mcp.json'))).toBe(false);
    expect(existsSync(join(repo, '.claude'))).toBe(false);
  });

  it("inits run at once in several projects each add their project's trust to the user's Codex config", async () => {
    requireBuild();
    const user = tempDir('collab-user-');
    const repos = Array.from({ length: 5 }, () => gitRepo());
    const codes = await Promise.all(
      repos.map(
        (repo) =>
          new Promise<number | null>((resolve) => {
            const child = spawn(process.execPath, [CLI, 'init', '--client', 'codex', '--trust'], {
              cwd: repo,
              env: envFor(user),
              stdio: 'ignore',
            });
            child.once('exit', resolve);
          }),
      ),
    );
    expect(codes).toEqual([0, 0, 0, 0, 0]);
    const config = readFileSync(join(user, '.codex', 'config.toml'), 'utf8');
    for (const repo of repos) expect(config).toContain(`[projects."${repo}"]`);
  });

  it('rules markers that do not pair are refused, nothing written; the notes around them stay', () => {
    const user = tempDir('collab-user-');
    const repo = gitRepo();
    expect(init(repo, user, '--client', 'claude').status).toBe(0);
    const claude = join(repo, 'CLAUDE.md');
    // The end marker lost by hand, notes written below.
    const cut = `${readFileSync(claude, 'utf8').replace('<!-- session-collab:end -->\n', '')}\n# My notes\nKeep these.\n`;
    writeFileSync(claude, cut);
    for (const args of [
      ['--client', 'claude'],
      ['--remove', '--client', 'claude'],
    ]) {
      const refused = init(repo, user, ...args);
      expect(refused.status, args.join(' ')).toBe(1);
      expect(refused.stderr).toContain("CLAUDE.md has 1 of session-collab's start markers");
      expect(readFileSync(claude, 'utf8')).toBe(cut);
    }
  });

  it("Cursor's rules file keeps the lines the user adds around the rules, and removal keeps them", () => {
    const user = tempDir('collab-user-');
    const repo = gitRepo();
    expect(init(repo, user, '--client', 'cursor').status).toBe(0);
    const rules = join(repo, '.cursor', 'rules', 'session-collab.mdc');
    const written = readFileSync(rules, 'utf8');
    expect(written).toMatch(/^---\ndescription: .*\nalwaysApply: true\n---\n\n<!-- session-collab:start -->/);
    writeFileSync(rules, `${written}\nAlso: run the linter before every commit.\n`);
    expect(init(repo, user, '--client', 'cursor').status).toBe(0);
    expect(readFileSync(rules, 'utf8')).toContain('Also: run the linter before every commit.');
    expect(init(repo, user, '--remove', '--client', 'cursor').status).toBe(0);
    const left = readFileSync(rules, 'utf8');
    expect(left).toContain('Also: run the linter before every commit.');
    expect(left).not.toContain('session-collab:start');
  });

  it('a file where a folder goes, or a folder where a file goes, is named, and nothing is written', () => {
    const user = tempDir('collab-user-');
    const repo = gitRepo();
    writeFileSync(join(repo, '.claude'), 'not a folder\n');
    const refused = init(repo, user, '--client', 'claude');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(
      `${join(repo, '.claude')} is a file, where ${join(repo, '.claude', 'settings.json')} needs a folder`,
    );
    expect(existsSync(join(repo, '.mcp.json'))).toBe(false);
    const other = gitRepo();
    mkdirSync(join(other, '.mcp.json'));
    const folder = init(other, user, '--client', 'claude');
    expect(folder.status).toBe(1);
    expect(folder.stderr).toContain('.mcp.json is not a file');
    expect(readdirSync(other).filter((f) => f.includes('.tmp'))).toEqual([]);
    expect(existsSync(join(other, 'CLAUDE.md'))).toBe(false);
  });

  it("in the home folder, init and its removal refuse: the clients' files there are their settings for every project", () => {
    const user = gitRepo();
    for (const args of [['--client', 'claude,codex'], ['--remove']]) {
      const refused = init(user, user, ...args);
      expect(refused.status, args.join(' ')).toBe(1);
      expect(refused.stderr).toContain('is your home folder');
    }
    expect(existsSync(join(user, '.claude'))).toBe(false);
    expect(existsSync(join(user, '.codex'))).toBe(false);
  });

  it('a hook event that is no list is named, and nothing is written', () => {
    const user = tempDir('collab-user-');
    const repo = gitRepo();
    mkdirSync(join(repo, '.claude'));
    const settings = JSON.stringify({
      hooks: { PreToolUse: { matcher: 'Bash', hooks: [{ type: 'command', command: 'x' }] } },
    });
    writeFileSync(join(repo, '.claude', 'settings.json'), settings);
    const refused = init(repo, user, '--client', 'claude', '--json');
    expect(refused.status).toBe(1);
    expect(JSON.parse(refused.stdout).error.message).toContain('hooks.PreToolUse is object');
    expect(readFileSync(join(repo, '.claude', 'settings.json'), 'utf8')).toBe(settings);
    expect(existsSync(join(repo, '.mcp.json'))).toBe(false);
  });

  it('--command is read as a shell reads one command: a program and its arguments', () => {
    const user = tempDir('collab-user-');
    const repo = gitRepo();
    const done = init(repo, user, '--client', 'claude', '--command', 'npx session-collab');
    expect(done.status).toBe(0);
    expect(done.stdout).not.toContain('absolute path');
    const server = JSON.parse(readFileSync(join(repo, '.mcp.json'), 'utf8')).mcpServers['session-collab'];
    expect(server).toMatchObject({ command: 'npx', args: ['session-collab', 'serve'] });
    const refused = init(gitRepo(), user, '--client', 'claude', '--command', 'session-collab; rm -rf ~');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('give one command');
  });
});
