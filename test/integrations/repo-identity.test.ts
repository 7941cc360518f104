/**
 * The identity of a repository, read from real git repositories: every copy of one repository is
 * one project, unrelated repositories never are, and the rules for forks, local clones, shallow
 * clones, a repository with no commit yet and a `project:` name hold.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { locateProject } from '../../src/integrations/git-repo.js';
import { git, gitRepo, tempDir } from '../helpers/temp.js';

const cache = () => ({ file: join(tempDir('collab-cache-'), 'repo-roots.json') });
const keyOf = (folder: string, c = cache()) => locateProject(folder, c).key;

function clone(from: string, ...options: string[]): string {
  const to = join(tempDir('collab-clone-'), 'copy');
  git(tempDir(), 'clone', '-q', ...options, from, to);
  return to;
}

describe('a repository is one project wherever it is checked out', () => {
  it('clones of one remote, spelled over ssh or https, are one project; its worktrees too', () => {
    const origin = gitRepo({ 'src/api.ts': 'export const a = 1;\n' });
    const alice = clone(origin);
    const bob = clone(origin);
    git(alice, 'remote', 'set-url', 'origin', 'git@github.com:Acme/API.git');
    git(bob, 'remote', 'set-url', 'origin', 'https://bob@github.com/acme/api');
    expect(locateProject(alice, cache())).toMatchObject({
      key: 'git:github.com/acme/api',
      label: 'github.com/acme/api',
      source: 'remote',
      worktree: alice,
    });
    expect(keyOf(bob)).toBe('git:github.com/acme/api');
    const linked = join(tempDir(), 'feature');
    git(alice, 'worktree', 'add', '-q', '-b', 'feature', linked);
    expect(locateProject(join(linked), cache())).toMatchObject({
      key: 'git:github.com/acme/api',
      worktree: linked,
    });
  });

  it('clones of a repository on this machine are one project with it, by its root commit', () => {
    const origin = gitRepo({ 'a.txt': 'local\n' });
    const root = git(origin, 'rev-list', '--max-parents=0', 'HEAD').trim();
    const first = clone(origin);
    const second = clone(first); // a clone of a clone
    const bare = clone(origin, '--bare');
    const fromBare = clone(bare);
    for (const copy of [origin, first, second, fromBare]) expect(keyOf(copy)).toBe(`root:${root}`);
    // The original moved on and merged an unrelated history: still the same first-parent root.
    const other = gitRepo({ 'b.txt': 'other history\n' });
    git(origin, 'pull', '-q', '--no-rebase', '--allow-unrelated-histories', '--no-edit', other, 'main');
    expect(keyOf(origin)).toBe(`root:${root}`);
  });

  it('a fork is its upstream when it names one; else its own remote; a project name joins anything', () => {
    const origin = gitRepo({ 'a.txt': 'fork\n' });
    const fork = clone(origin);
    git(fork, 'remote', 'set-url', 'origin', 'git@github.com:bob/api.git');
    expect(keyOf(fork)).toBe('git:github.com/bob/api');
    git(fork, 'remote', 'add', 'upstream', 'https://github.com/acme/api.git');
    expect(keyOf(fork)).toBe('git:github.com/acme/api');
    // Several remotes, none of them origin or upstream: the first in the config.
    const many = clone(origin);
    git(many, 'remote', 'rename', 'origin', 'zeta');
    git(many, 'remote', 'add', 'alpha', 'https://example.com/alpha/api');
    expect(keyOf(many)).toBe(`root:${git(origin, 'rev-list', '--max-parents=0', 'HEAD').trim()}`);
    git(many, 'remote', 'set-url', 'zeta', 'https://example.com/zeta/api');
    expect(keyOf(many)).toBe('git:example.com/zeta/api');
    // A mirror elsewhere joins by name.
    writeFileSync(join(many, '.session-collab.yaml'), 'project: acme-api # joins the fork\n');
    writeFileSync(join(fork, '.session-collab.yaml'), "project: 'acme-api'\n");
    expect(locateProject(many, cache())).toMatchObject({
      key: 'name:acme-api',
      label: 'acme-api',
      source: 'name',
    });
    expect(keyOf(fork)).toBe('name:acme-api');
  });

  it('unrelated repositories are never one project, though their files and first commits look alike', () => {
    const a = gitRepo({ 'README.md': '# one\n' });
    const b = gitRepo({ 'README.md': '# two\n' });
    expect(keyOf(a)).not.toBe(keyOf(b));
    expect(keyOf(a)).toMatch(/^root:[0-9a-f]{40}$/);
  });

  it('no commit yet: the git folder, until the first commit names it', () => {
    const dir = tempDir('collab-fresh-');
    git(dir, 'init', '-q', '-b', 'main');
    expect(locateProject(dir, cache())).toMatchObject({
      key: join(dir, '.git'),
      source: 'path',
      formerKey: join(dir, '.git'),
    });
    // Told from its files alone: a `git` that notes each start is never started.
    const bin = tempDir('collab-fake-git-');
    writeFileSync(join(bin, 'git'), `#!/bin/sh\necho started >> ${join(bin, 'started')}\nexit 1\n`, {
      mode: 0o755,
    });
    const path = process.env.PATH;
    process.env.PATH = bin;
    try {
      expect(keyOf(dir)).toBe(join(dir, '.git'));
    } finally {
      process.env.PATH = path;
    }
    expect(existsSync(join(bin, 'started'))).toBe(false);
    writeFileSync(join(dir, 'a.txt'), 'first\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'first');
    expect(locateProject(dir, cache())).toMatchObject({
      key: expect.stringMatching(/^root:/),
      formerKey: join(dir, '.git'),
    });
  });

  it('a shallow clone is named by its remote; without one, by its folder', () => {
    const origin = gitRepo({ 'a.txt': '1\n' });
    git(origin, 'commit', '-q', '--allow-empty', '-m', 'second');
    const shallow = clone(`file://${origin}`, '--depth', '1');
    expect(readFileSync(join(shallow, '.git', 'shallow'), 'utf8')).not.toBe('');
    expect(keyOf(shallow)).toBe(keyOf(origin)); // followed to the repository it came from
    git(shallow, 'remote', 'remove', 'origin');
    expect(locateProject(shallow, cache())).toMatchObject({ key: join(shallow, '.git'), source: 'path' });
  });

  it('a folder outside git is its own path', () => {
    const dir = tempDir('collab-plain-');
    mkdirSync(join(dir, 'sub'));
    expect(locateProject(join(dir, 'sub'), cache())).toMatchObject({ kind: 'dir', key: join(dir, 'sub') });
  });

  it('the root commit is found by git once, then read from the cache; a repository made anew is found again', () => {
    const repo = gitRepo({ 'a.txt': 'cached\n' });
    const c = cache();
    const first = keyOf(repo, c);
    const path = process.env.PATH;
    process.env.PATH = tempDir('collab-no-git-'); // no git to run: only the cache can answer
    try {
      expect(keyOf(repo, c)).toBe(first);
    } finally {
      process.env.PATH = path;
    }
    rmSync(join(repo, '.git'), { recursive: true });
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'a.txt'), 'another history\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'another');
    expect(keyOf(repo, c)).not.toBe(first);
  });

  it('a bad .session-collab.yaml is an error that names the file', () => {
    const repo = gitRepo();
    writeFileSync(join(repo, '.session-collab.yaml'), 'project: [unclosed\n');
    expect(() => keyOf(repo)).toThrow(/\.session-collab\.yaml is not valid YAML/);
    writeFileSync(join(repo, '.session-collab.yaml'), 'project: 12\n');
    expect(() => keyOf(repo)).toThrow(/"project" must be a name/);
    writeFileSync(join(repo, '.session-collab.yaml'), 'realm: ../realm\nrepo: api\n');
    expect(keyOf(repo)).toMatch(/^root:/);
  });
});
