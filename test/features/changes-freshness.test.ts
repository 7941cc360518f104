/**
 * What a check reads again of the sessions' worktrees, on either backend: a file read again and
 * found as it was is not read again at the next check, as long as nothing changed it since.
 */
import { mkdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { addedFile, type FileChange } from '../../src/core/hunks.js';
import { readChanges } from '../../src/integrations/git-changes.js';
import { type ProgramOptions, runProgramHere, runProgramsApart } from '../../src/integrations/run-program.js';
import { testApp, twoClonesInMemory } from '../helpers/app.js';
import { beforeNextWrite } from '../helpers/interleave.js';
import { git } from '../helpers/temp.js';

afterEach(() => runProgramsApart(null));

describe('what a check reads again', () => {
  it('a file that does not exist, its folder changed since the sessions were read: read again once, not at every check', async () => {
    const app = await testApp();
    const { aliceDir, bobDir, alice, bob } = await twoClonesInMemory(app, { 'src/a.ts': 'a\n' });
    // Each copy read whole (a check of everything), then its top folder changes (a file made
    // there): a file that does not exist is judged by its nearest folder, changed since.
    await alice.call('collab_check');
    await bob.call('collab_check');
    await new Promise((r) => setTimeout(r, 100));
    writeFileSync(join(aliceDir, 'notes.txt'), 'n\n');
    writeFileSync(join(bobDir, 'notes.txt'), 'n\n');
    // (A change within 50 ms of a read may be after it, for a file system's clock: apart.)
    await new Promise((r) => setTimeout(r, 100));

    const runs: string[][] = [];
    runProgramsApart((file: string, args: string[], options: ProgramOptions) => {
      runs.push([file, ...args]);
      return runProgramHere(file, args, options);
    });
    const check = () => alice.call<{ safe: boolean }>('collab_check', { files: ['newdir/x.ts'] });
    // The first check reads the file again in both copies (git: it may have been made meanwhile).
    expect((await check()).safe).toBe(true);
    expect(runs.length).toBeGreaterThan(0);
    runs.length = 0;
    // Found as it was, in both: the next checks read nothing again, however many.
    for (let i = 0; i < 5; i++) expect((await check()).safe).toBe(true);
    expect(runs).toEqual([]);

    // Its folder changed again: read again.
    writeFileSync(join(bobDir, 'more.txt'), 'm\n');
    await new Promise((r) => setTimeout(r, 100));
    expect((await check()).safe).toBe(true);
    expect(runs.length).toBeGreaterThan(0);
    await app.close();
  });

  it('a check of everything reads again only the files changed since the copy was read whole, and records what a whole read would', async () => {
    const app = await testApp();
    const lines = (n: number, tag = '') =>
      Array.from({ length: n }, (_, i) => `line ${i}${tag}`).join('\n') + '\n';
    const { aliceDir, alice } = await twoClonesInMemory(app, {
      'src/a.ts': lines(20),
      'src/c.ts': lines(5),
      'src/d.ts': lines(30),
      'src/f.ts': lines(10),
      'keep.ts': lines(3),
    });
    const id = (await alice.connection.current()).id;
    writeFileSync(join(aliceDir, 'src/a.ts'), lines(20).replace('line 3\n', 'line 3 changed\n'));
    writeFileSync(join(aliceDir, 'keep.ts'), lines(3, ' kept'));
    await new Promise((r) => setTimeout(r, 120));
    await alice.call('collab_check');

    const runs: string[][] = [];
    runProgramsApart((file: string, args: string[], options: ProgramOptions) => {
      runs.push([file, ...args]);
      return runProgramHere(file, args, options);
    });
    const diffs = () => runs.filter((r) => r.includes('-U0'));
    const shape = (f: FileChange) => ({
      path: f.path,
      from: f.renamedFrom ?? null,
      level: f.level,
      reason: f.reason ?? null,
      blobs: [f.baseBlob, f.newBlob],
      hunks: f.hunks.map((h) => [h.base, h.next, h.digest]),
    });
    /** What the store holds of Alice's copy, and what a whole read of it finds. */
    const compare = async () => {
      const set = (await app.store.changes.setOf(id))!;
      const whole = await readChanges(aliceDir, join(aliceDir, '.git'), {
        base: { commit: set.base_commit, ref: set.base_ref, source: set.base_source as never },
      });
      expect((await app.store.changes.filesOf(id)).map(shape)).toEqual(whole.files.map(shape));
    };
    /** A change written apart from the last read (a file system's clock may put one within 50 ms before it). */
    const apart = () => new Promise((r) => setTimeout(r, 120));
    await compare();

    // Nothing changed: git lists the changed files, and diffs none.
    runs.length = 0;
    await alice.call('collab_check');
    expect(runs.some((r) => r.includes('--name-status'))).toBe(true);
    expect(diffs()).toEqual([]);
    await compare();

    // One file written again: only it is diffed.
    await apart();
    writeFileSync(join(aliceDir, 'src/a.ts'), lines(20).replace('line 9\n', 'line 9 changed\n'));
    await apart();
    runs.length = 0;
    await alice.call('collab_check');
    expect(diffs()).toHaveLength(1);
    expect(diffs()[0]!.slice(-2)).toEqual(['--', ':(literal)src/a.ts']);
    await compare();

    // Put back as it was: no longer recorded. A rename, as git's merge would follow it; a deletion;
    // a new file; a file written that is not changed.
    await apart();
    git(aliceDir, 'checkout', '--', 'src/a.ts');
    git(aliceDir, 'mv', 'src/d.ts', 'src/e.ts');
    rmSync(join(aliceDir, 'src/c.ts'));
    writeFileSync(join(aliceDir, 'src/new.ts'), lines(4, ' new'));
    writeFileSync(join(aliceDir, 'src/f.ts'), lines(10));
    await apart();
    await alice.call('collab_check');
    await compare();
    const files = await app.store.changes.filesOf(id);
    expect(files.find((f) => f.path === 'src/e.ts')?.renamedFrom).toBe('src/d.ts');
    expect(files.map((f) => f.path)).toEqual(['keep.ts', 'src/c.ts', 'src/e.ts', 'src/new.ts']);

    // The renamed file changed too: still the rename, with its lines; the rest stands.
    await apart();
    writeFileSync(join(aliceDir, 'src/e.ts'), lines(30).replace('line 7\n', 'line 7 changed\n'));
    await apart();
    runs.length = 0;
    await alice.call('collab_check');
    expect(diffs()).toHaveLength(1);
    expect(diffs()[0]).not.toContain(':(literal)keep.ts');
    await compare();

    // HEAD moved (a commit): the copy is read whole again.
    await apart();
    git(aliceDir, 'add', '-A');
    git(aliceDir, 'commit', '-qm', 'work');
    runs.length = 0;
    await alice.call('collab_check');
    expect(diffs()).toHaveLength(1);
    expect(diffs()[0]!.at(-1)).toBe('--');
    await compare();
    await app.close();
  });

  it('a whole read of what changed since the last, another whole read recorded meanwhile: read again on that one', async () => {
    const app = await testApp();
    const { aliceDir, alice } = await twoClonesInMemory(app, { 'src/a.ts': 'a\n', 'src/b.ts': 'b\n' });
    const session = await alice.connection.current();
    await new Promise((r) => setTimeout(r, 120));
    writeFileSync(join(aliceDir, 'src/a.ts'), 'a changed\n');
    // Another process's whole read, begun before this one, records once this one has looked: what it
    // saw (here a file changed then, put back since) is not what this one compared with.
    beforeNextWrite(app.store, async () => {
      const set = (await app.store.changes.setOf(session.id))!;
      await app.store.changes.record(
        { ...set, refreshed_at: Number(set.full_read_at) + 1 },
        [addedFile('src/gone.ts', 'gone\n', 'f'.repeat(40))],
        null,
      );
    });
    expect(await app.changes.refresh(session)).toBe('recorded');
    const set = (await app.store.changes.setOf(session.id))!;
    const whole = await readChanges(aliceDir, join(aliceDir, '.git'), {
      base: { commit: set.base_commit, ref: set.base_ref, source: set.base_source as never },
    });
    expect((await app.store.changes.filesOf(session.id)).map((f) => f.path)).toEqual(['src/a.ts']);
    expect(whole.files.map((f) => f.path)).toEqual(['src/a.ts']);
    await app.close();
  });

  it("what only git's index says, and what an edit's read of one file made of a rename, a whole read of what changed sees as a whole read does", async () => {
    const app = await testApp();
    const lines = (n: number, tag = '') =>
      `${Array.from({ length: n }, (_, i) => `line ${i}${tag}`).join('\n')}\n`;
    const base: Record<string, string> = { 'x/old.txt': lines(20), 'a.txt': lines(5), 'm.txt': lines(8) };
    const { aliceDir: dir, alice } = await twoClonesInMemory(app, base);
    const session = await alice.connection.current();
    const apart = () => new Promise((r) => setTimeout(r, 120));
    const shape = (f: FileChange) => [
      f.path,
      f.renamedFrom ?? null,
      f.level,
      f.baseBlob,
      f.newBlob,
      f.hunks.length,
    ];
    const wholeRead = async () => {
      await apart();
      expect(await app.changes.refresh(session)).toBe('recorded');
      const set = (await app.store.changes.setOf(session.id))!;
      const whole = await readChanges(dir, join(dir, '.git'), {
        base: { commit: set.base_commit, ref: set.base_ref, source: set.base_source as never },
      });
      expect((await app.store.changes.filesOf(session.id)).map(shape)).toEqual(whole.files.map(shape));
      return whole.files;
    };
    // A file changed, then taken out of the index: deleted, as git now sees it.
    writeFileSync(join(dir, 'a.txt'), lines(5, ' changed'));
    await wholeRead();
    git(dir, 'rm', '-q', '--cached', 'a.txt');
    expect((await wholeRead()).find((f) => f.path === 'a.txt')?.newBlob).toBeNull();
    git(dir, 'add', 'a.txt');
    // A file moved by hand (a deletion and a new file), then added: a rename.
    mkdirSync(join(dir, 'y'));
    rmSync(join(dir, 'x/old.txt'));
    writeFileSync(join(dir, 'y/new.txt'), lines(20));
    await wholeRead();
    git(dir, 'add', '-A');
    expect((await wholeRead()).find((f) => f.path === 'y/new.txt')?.renamedFrom).toBe('x/old.txt');
    // An edit's read of the rename's first side alone records it as a deletion; the next whole read
    // pairs the two again.
    await app.changes.refresh(session, ['x/old.txt']);
    expect((await wholeRead()).map((f) => f.path)).toEqual(['a.txt', 'y/new.txt']);
    // Many new files, one written again: that one is diffed (no deletion it could be a rename of).
    git(dir, 'mv', 'y/new.txt', 'x/old.txt');
    mkdirSync(join(dir, 'new'));
    for (let i = 0; i < 30; i++) writeFileSync(join(dir, `new/${i}.txt`), lines(10, ` new ${i}`));
    git(dir, 'add', 'new');
    await wholeRead();
    await apart();
    writeFileSync(join(dir, 'new/3.txt'), lines(10, ' again'));
    const runs: string[][] = [];
    runProgramsApart((file: string, args: string[], options: ProgramOptions) => {
      runs.push([file, ...args]);
      return runProgramHere(file, args, options);
    });
    await wholeRead();
    const diffs = runs.filter((r) => r.includes('-U0') && r.includes('--find-renames'));
    // (The comparison's own whole read is the last.)
    expect(diffs.slice(0, -1).map((r) => r.slice(r.indexOf('--') + 1))).toEqual([[':(literal)new/3.txt']]);
    await app.close();
  });

  it("reading a copy never writes its git index (a user's commit at that moment would fail on its lock)", async () => {
    const app = await testApp();
    const { aliceDir: dir, alice, bob } = await twoClonesInMemory(app, { 'a.txt': 'a\n', 'b.txt': 'b\n' });
    writeFileSync(join(dir, 'b.txt'), 'b changed\n');
    // A tracked file written with what it had: git's index no longer knows it for unchanged, and a
    // porcelain `git diff` or `git status` would refresh the index and write it back.
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(dir, 'a.txt'), later, later);
    const index = join(dir, '.git', 'index');
    const before = statSync(index).mtimeMs;
    await alice.call('collab_check');
    await alice.call('collab_check', { files: ['a.txt', 'b.txt'] });
    await bob.call('collab_check', { files: ['b.txt'] });
    await alice.call('collab_claim', { files: ['c.txt'], intent: 'x', from_git: true }).catch(() => {});
    expect(statSync(index).mtimeMs).toBe(before);
    expect(
      (await app.store.changes.filesOf((await alice.connection.current()).id)).map((f) => f.path),
    ).toEqual(['b.txt']);
    await app.close();
  });
});
