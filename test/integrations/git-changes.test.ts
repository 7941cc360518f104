import { createHash } from 'node:crypto';
import { chmodSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { predictChanges } from '../../src/core/merge-prediction.js';
import { CHANGE_LIMITS, findBase, readChanges } from '../../src/integrations/git-changes.js';
import { readRef } from '../../src/integrations/git-refs.js';
import { locateFolder } from '../../src/integrations/git-repo.js';
import { git, gitRepo, tempDir } from '../helpers/temp.js';

const lines = (n: number, tag = 'line') =>
  `${Array.from({ length: n }, (_, i) => `${tag} ${i + 1}`).join('\n')}\n`;

function changesOf(worktree: string) {
  return readChanges(worktree, locateFolder(worktree).commonDir);
}

function clone(origin: string): string {
  const dir = join(tempDir('collab-clone-'), 'copy');
  git(origin, 'clone', '-q', origin, dir);
  return dir;
}

describe('a worktree’s changes against the default branch', () => {
  it('counts uncommitted, staged, untracked and committed-unpushed changes, with hunks on both sides', async () => {
    const origin = gitRepo({ 'src/a.ts': lines(20), 'README.md': '# r\n' });
    const copy = clone(origin);
    // Committed on a branch, not merged into origin/main.
    git(copy, 'checkout', '-q', '-b', 'work');
    writeFileSync(join(copy, 'README.md'), '# r\nmore\n');
    git(copy, 'commit', '-qam', 'readme');
    // Staged, then changed again.
    writeFileSync(join(copy, 'src/a.ts'), lines(20).replace('line 3\n', 'line three\n'));
    git(copy, 'add', 'src/a.ts');
    writeFileSync(
      join(copy, 'src/a.ts'),
      lines(20).replace('line 3\n', 'line three\n').replace('line 15\n', ''),
    );
    writeFileSync(join(copy, 'notes.txt'), 'one\ntwo\n');
    writeFileSync(join(copy, 'blob.bin'), Buffer.from([1, 0, 2]));

    const changes = await changesOf(copy);
    expect(changes.base).toMatchObject({ ref: 'origin/main', source: 'remote-default' });
    expect(changes.base.commit).toBe(git(origin, 'rev-parse', 'HEAD').trim());
    expect(changes.omitted).toBe(0);
    const byPath = Object.fromEntries(changes.files.map((f) => [f.path, f]));
    expect(Object.keys(byPath)).toEqual(['README.md', 'blob.bin', 'notes.txt', 'src/a.ts']);
    expect(byPath['src/a.ts']!.hunks.map((h) => [h.base, h.next])).toEqual([
      [
        [3, 1],
        [3, 1],
      ],
      [
        [15, 1],
        [14, 0],
      ],
    ]);
    expect(byPath['src/a.ts']!.hunks[0]!.excerpt).toBe('-line 3\n+line three');
    expect(byPath['src/a.ts']!.baseBlob).toBe(git(origin, 'rev-parse', 'HEAD:src/a.ts').trim());
    expect(byPath['src/a.ts']!.newBlob).toBe(git(copy, 'hash-object', 'src/a.ts').trim());
    expect(byPath['notes.txt']).toMatchObject({
      baseBlob: null,
      newBlob: git(copy, 'hash-object', 'notes.txt').trim(),
      hunks: [{ base: [0, 0], next: [1, 2] }],
    });
    expect(byPath['blob.bin']).toMatchObject({ level: 'file', reason: 'binary' });

    // One file alone, against the base found before (what an edit hook reads).
    const one = await readChanges(copy, locateFolder(copy).commonDir, {
      base: changes.base,
      paths: ['notes.txt'],
    });
    expect(one.files.map((f) => f.path)).toEqual(['notes.txt']);
  });

  it('a diff git cannot work out in its time gives its files compared whole, not a failed read', async () => {
    const repo = gitRepo({ 'src/a.ts': lines(20), 'src/b.ts': lines(5) });
    writeFileSync(join(repo, 'src/a.ts'), lines(20).replace('line 3\n', 'line three\n'));
    writeFileSync(join(repo, 'src/b.ts'), lines(6));
    // A git whose diff by lines takes longer than the read's time (as its histogram diff of a huge
    // file can); every other command is git's own.
    const bin = tempDir('collab-slow-git-');
    writeFileSync(
      join(bin, 'git'),
      // The first folder of PATH is this one: git itself is found in the rest.
      `#!/bin/sh\ncase "$*" in *--diff-algorithm=histogram*) sleep 5;; esac\nPATH="\${PATH#*:}" exec git "$@"\n`,
    );
    chmodSync(join(bin, 'git'), 0o755);
    const { PATH } = process.env;
    const timeout = CHANGE_LIMITS.timeoutMs;
    process.env.PATH = `${bin}:${PATH}`;
    CHANGE_LIMITS.timeoutMs = 1_500;
    try {
      const changes = await changesOf(repo);
      expect(changes.files.map((f) => [f.path, f.level, f.reason])).toEqual([
        ['src/a.ts', 'file', 'slow'],
        ['src/b.ts', 'file', 'slow'],
      ]);
    } finally {
      process.env.PATH = PATH;
      CHANGE_LIMITS.timeoutMs = timeout;
    }
  });

  it('finds a base without a remote (the local default branch), and with no commit at all (the empty tree)', async () => {
    const repo = gitRepo({ 'a.txt': 'a\n' });
    const main = git(repo, 'rev-parse', 'HEAD').trim();
    git(repo, 'checkout', '-q', '-b', 'feature');
    writeFileSync(join(repo, 'a.txt'), 'b\n');
    git(repo, 'commit', '-qam', 'feature work');
    expect(await findBase(repo, locateFolder(repo).commonDir)).toEqual({
      commit: main,
      ref: 'main',
      source: 'local-branch',
    });

    const fresh = tempDir('collab-fresh-');
    git(fresh, 'init', '-q', '-b', 'main');
    writeFileSync(join(fresh, 'new.ts'), 'x\n');
    const changes = await changesOf(fresh);
    expect(changes.base.source).toBe('empty');
    expect(changes.files.map((f) => [f.path, f.hunks[0]?.next])).toEqual([['new.ts', [1, 1]]]);
    // The empty tree is git's own, in either object format.
    for (const format of ['sha1', 'sha256']) {
      const empty = tempDir('collab-empty-');
      git(empty, 'init', '-q', `--object-format=${format}`);
      const base = await findBase(empty, locateFolder(empty).commonDir);
      expect(base.commit).toBe(git(empty, 'hash-object', '-t', 'tree', '/dev/null').trim());
      expect(base.commit).toHaveLength(format === 'sha1' ? 40 : 64);
    }
  });

  it('reads odd file names as git quotes them', async () => {
    const repo = gitRepo({ 'é x.ts': 'a\n', 'tab\there.ts': 'a\n', 'a b/c d.ts': 'a\n' });
    for (const f of ['é x.ts', 'tab\there.ts', 'a b/c d.ts']) writeFileSync(join(repo, f), 'b\n');
    expect((await changesOf(repo)).files.map((f) => f.path)).toEqual([
      'a b/c d.ts',
      'tab\there.ts',
      'é x.ts',
    ]);
  });
  it('a file that became a symbolic link, or stopped being one, is one change compared whole', async () => {
    const origin = gitRepo({ 'a.ts': lines(5), 'b.ts': lines(3, 'b'), 'link.ts': 'x\n' });
    git(origin, 'rm', '-q', 'link.ts');
    symlinkSync('b.ts', join(origin, 'link.ts'));
    git(origin, 'add', 'link.ts');
    git(origin, 'commit', '-qm', 'a link');
    const copy = clone(origin);
    rmSync(join(copy, 'a.ts'));
    symlinkSync('b.ts', join(copy, 'a.ts'));
    rmSync(join(copy, 'link.ts'));
    writeFileSync(join(copy, 'link.ts'), lines(2, 'own'));
    const changes = await changesOf(copy);
    expect(changes.files).toEqual([
      {
        path: 'a.ts',
        baseBlob: git(origin, 'rev-parse', 'HEAD:a.ts').trim(),
        // A link's blob is the path it names.
        newBlob: createHash('sha1').update('blob 4\0b.ts').digest('hex'),
        level: 'file',
        reason: 'type',
        hunks: [],
      },
      {
        path: 'link.ts',
        baseBlob: git(origin, 'rev-parse', 'HEAD:link.ts').trim(),
        newBlob: git(copy, 'hash-object', 'link.ts').trim(),
        level: 'file',
        reason: 'type',
        hunks: [],
      },
    ]);
    // Another copy's edit of the file meets it whole, and says why.
    const other = clone(origin);
    writeFileSync(join(other, 'a.ts'), lines(5).replace('line 5\n', 'five\n'));
    const [p] = predictChanges(changes.files, (await changesOf(other)).files);
    expect(p).toMatchObject({ path: 'a.ts', level: 'file' });
    expect(p!.why).toContain('it became a symbolic link, or stopped being one');
  });
});

describe('two clones of one repository, compared by their hunks alone', () => {
  it('the same lines conflict, distant lines do not, and a file changed from another version is unknown', async () => {
    const origin = gitRepo({ 'src/a.ts': lines(40), 'src/b.ts': lines(10, 'b') });
    const alice = clone(origin);
    const bob = clone(origin);
    writeFileSync(join(alice, 'src/a.ts'), lines(40).replace('line 10\n', 'alice 10\n'));
    writeFileSync(
      join(bob, 'src/a.ts'),
      lines(40).replace('line 11\n', 'bob 11\n').replace('line 30\n', 'bob 30\n'),
    );
    const [p] = predictChanges((await changesOf(alice)).files, (await changesOf(bob)).files);
    expect(p).toMatchObject({ level: 'textual', path: 'src/a.ts' });
    expect(p!.ours.map((h) => h.base)).toEqual([[10, 1]]);
    expect(p!.theirs.map((h) => h.base)).toEqual([[11, 1]]);

    writeFileSync(join(bob, 'src/a.ts'), lines(40).replace('line 30\n', 'bob 30\n'));
    expect(predictChanges((await changesOf(alice)).files, (await changesOf(bob)).files)).toEqual([]);

    // Bob's copy moves on (a commit reaches origin and he merges it): his base of b.ts differs.
    writeFileSync(join(origin, 'src/b.ts'), lines(10, 'B'));
    git(origin, 'commit', '-qam', 'b moves');
    git(bob, 'pull', '-q', '--no-rebase');
    writeFileSync(join(alice, 'src/b.ts'), lines(10, 'b').replace('b 9\n', 'alice\n'));
    writeFileSync(join(bob, 'src/b.ts'), lines(10, 'B').replace('B 1\n', 'bob\n'));
    const unknown = predictChanges((await changesOf(alice)).files, (await changesOf(bob)).files).find(
      (x) => x.path === 'src/b.ts',
    );
    expect(unknown?.level).toBe('unknown');
  });

  it("renames as git's merge follows them: a rename and an edit merge, overlapping edits conflict at the new path, two renames or a rename and a delete stop git", async () => {
    const origin = gitRepo({ 'lib/router.js': lines(40), 'lib/util.js': lines(10, 'u') });
    /** Whether git's own merge of the two clones' work (committed on branches) stops on a conflict. */
    const gitMergeStops = (alice: string, bob: string): boolean => {
      for (const [dir, who] of [
        [alice, 'alice'],
        [bob, 'bob'],
      ] as const) {
        git(dir, 'add', '-A');
        git(dir, 'commit', '-qm', who);
      }
      git(alice, 'fetch', '-q', bob, 'HEAD');
      try {
        git(alice, 'merge-tree', '--write-tree', 'HEAD', 'FETCH_HEAD');
        return false;
      } catch {
        return true;
      }
    };
    const pair = async (aliceWork: (dir: string) => void, bobWork: (dir: string) => void) => {
      const alice = clone(origin);
      const bob = clone(origin);
      aliceWork(alice);
      bobWork(bob);
      const predicted = predictChanges((await changesOf(alice)).files, (await changesOf(bob)).files);
      return { predicted, git: gitMergeStops(alice, bob) };
    };
    const renameAndEdit = (line: string, to: string) => (dir: string) => {
      git(dir, 'mv', 'lib/router.js', 'lib/routes.js');
      writeFileSync(join(dir, 'lib/routes.js'), lines(40).replace(`${line}\n`, `${to}\n`));
    };
    const edit = (line: string, to: string) => (dir: string) =>
      writeFileSync(join(dir, 'lib/router.js'), lines(40).replace(`${line}\n`, `${to}\n`));

    // Alice renames (and edits line 2); Bob edits line 30 of the old path: git merges both.
    const apart = await pair(renameAndEdit('line 2', 'alice 2'), edit('line 30', 'bob 30'));
    expect(apart.git).toBe(false);
    expect(apart.predicted).toEqual([]);
    // A pure rename, and an edit: the same.
    const pure = await pair(
      (dir) => git(dir, 'mv', 'lib/router.js', 'lib/routes.js'),
      edit('line 30', 'bob 30'),
    );
    expect(pure.git).toBe(false);
    expect(pure.predicted).toEqual([]);
    // Both change line 30: git stops, at the new path.
    const same = await pair(renameAndEdit('line 30', 'alice 30'), edit('line 30', 'bob 30'));
    expect(same.git).toBe(true);
    expect(same.predicted).toEqual([
      expect.objectContaining({
        level: 'textual',
        path: 'lib/routes.js',
        why: 'lib/router.js was renamed to lib/routes.js by one side; the other’s changes go with it'.replace(
          '’',
          "'",
        ),
      }),
    ]);
    // Seen from the other side: the same conflict, at the new path.
    const mirrored = await pair(edit('line 30', 'bob 30'), renameAndEdit('line 30', 'alice 30'));
    expect(mirrored.predicted.map((p) => [p.level, p.path])).toEqual([['textual', 'lib/routes.js']]);
    // Renamed to two different names, or renamed by one and deleted by the other: git stops.
    const twoNames = await pair(
      (dir) => git(dir, 'mv', 'lib/router.js', 'lib/routes.js'),
      (dir) => git(dir, 'mv', 'lib/router.js', 'lib/paths.js'),
    );
    expect(twoNames.git).toBe(true);
    expect(twoNames.predicted.map((p) => [p.level, p.why])).toEqual([
      ['textual', 'both renamed lib/router.js: one to lib/routes.js, the other to lib/paths.js'],
    ]);
    const deleted = await pair(
      (dir) => git(dir, 'mv', 'lib/router.js', 'lib/routes.js'),
      (dir) => git(dir, 'rm', '-q', 'lib/router.js'),
    );
    expect(deleted.git).toBe(true);
    expect(deleted.predicted.map((p) => p.level)).toEqual(['textual']);
  });
});

describe('refs read from the git folder, with no git process', () => {
  it('loose and packed refs, symbolic ones, and a linked worktree’s own HEAD, as git reads them', () => {
    const origin = gitRepo({ 'a.txt': 'a\n' });
    const copy = clone(origin);
    const place = locateFolder(copy);
    const ask = (ref: string) => git(copy, 'rev-parse', ref).trim();
    expect(readRef(place.gitDir, place.commonDir, 'HEAD')).toBe(ask('HEAD'));
    expect(readRef(place.gitDir, place.commonDir, 'refs/remotes/origin/HEAD')).toBe(ask('origin/HEAD'));
    git(copy, 'pack-refs', '--all');
    expect(readRef(place.gitDir, place.commonDir, 'refs/heads/main')).toBe(ask('main'));
    expect(readRef(place.gitDir, place.commonDir, 'refs/remotes/origin/main')).toBe(ask('origin/main'));
    expect(readRef(place.gitDir, place.commonDir, 'refs/heads/none')).toBeNull();

    const linked = join(tempDir('collab-wt-'), 'linked');
    git(copy, 'worktree', 'add', '-q', '-b', 'side', linked);
    writeFileSync(join(linked, 'a.txt'), 'b\n');
    git(linked, 'commit', '-qam', 'side work');
    const there = locateFolder(linked);
    expect(readRef(there.gitDir, there.commonDir, 'HEAD')).toBe(git(linked, 'rev-parse', 'HEAD').trim());
    expect(readRef(there.gitDir, there.commonDir, 'HEAD')).not.toBe(
      readRef(place.gitDir, place.commonDir, 'HEAD'),
    );
  });
});
