/**
 * Conflicts predicted from what sessions actually changed, on either backend: two clones of one
 * repository, one session in each, that only call tools (no hooks record their edits).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { settleWithGit } from '../../src/features/changes/git-settled.js';
import { connectInMemory, testApp, twoClonesInMemory } from '../helpers/app.js';
import { beforeNextWrite, holdNextWrite } from '../helpers/interleave.js';
import { cloneOf, git, gitRepo, tempDir } from '../helpers/temp.js';

const AUTH = [
  'export class User {', // 1
  '  save(): void {', // 2
  '    validate(this);', // 3
  '    db.write(this);', // 4
  '    log("saved");', // 5
  '    audit(this);', // 6
  '  }', // 7
  '', // 8
  '  load(): void {', // 9
  '    db.read(this);', // 10
  '  }', // 11
  '}', // 12
  '', // 13
  'export function login(name: string) {', // 14
  '  return name;', // 15
  '}', // 16
  '',
].join('\n');

const edit = (dir: string, from: string, to: string) =>
  writeFileSync(join(dir, 'src/auth.ts'), AUTH.replace(from, to));

type Check = {
  safe: boolean;
  warning?: string;
  message?: string;
  predicted_conflicts: Array<{
    session_name: string;
    level: string;
    file: string;
    symbols: string[];
    git?: string;
    ours: Array<{ base: number[]; excerpt: string }>;
    theirs: Array<{ base: number[]; excerpt: string }>;
  }>;
};

describe('conflicts predicted between two clones', () => {
  it('the same function: symbol overlap, the same lines: textual, different functions: nothing', async () => {
    // Another session's worktree is read again when its changes are older than two seconds.
    let clock = Date.now();
    const later = () => {
      clock += 2_500;
    };
    const app = await testApp({ now: () => clock });
    const { origin, aliceDir, bobDir, alice, bob } = await twoClonesInMemory(app, {
      'src/auth.ts': AUTH,
      'README.md': '# app\n',
    });
    later(); // the agents work a while before they check

    // Both change User.save, in lines apart: git merges, a person should look.
    edit(aliceDir, '    validate(this);', '    validate(this, { strict: true });');
    edit(bobDir, '    audit(this);', '    audit(this, "save");');
    const both = await alice.call<Check>('collab_check');
    expect(both.safe).toBe(true);
    expect(both.predicted_conflicts).toMatchObject([
      { session_name: 'bob', level: 'symbol', file: 'src/auth.ts', symbols: ['User.save'] },
    ]);
    expect(both.message).toContain('both change User.save');
    // Bob is told once, on his next call, without asking.
    type Listed = {
      notifications?: Array<{ type: string; session: string; level: string; symbols: string[] }>;
    };
    const told = await bob.call<Listed>('collab_session_list');
    expect(told.notifications?.filter((n) => n.type === 'predicted_conflict')).toMatchObject([
      { session: 'alice', level: 'symbol', symbols: ['User.save'] },
    ]);
    later();
    await alice.call<Check>('collab_check');
    expect((await bob.call<Listed>('collab_session_list')).notifications ?? []).toEqual([]);

    // The same line: git will conflict.
    edit(bobDir, '    validate(this);', '    validate(this, { loose: true });');
    later();
    const textual = await alice.call<Check>('collab_check');
    expect(textual.safe).toBe(false);
    expect(textual.predicted_conflicts).toMatchObject([
      {
        session_name: 'bob',
        level: 'textual',
        file: 'src/auth.ts',
        symbols: ['User.save'],
        git: 'conflicts',
      },
    ]);
    expect(textual.predicted_conflicts[0]!.ours[0]).toMatchObject({ base: [3, 1] });
    // Their lines reach the caller quoted.
    expect(textual.predicted_conflicts[0]!.theirs[0]!.excerpt).toBe(
      '> -    validate(this);\n> +    validate(this, { loose: true });',
    );
    expect(textual.warning).toContain('will conflict with session "bob"');
    // The text says what bob changed there, quoted.
    expect(textual.warning).toContain(
      'Their change there:\n> -    validate(this);\n> +    validate(this, { loose: true });',
    );
    // Bob is told the same from his side.
    const fromBob = await bob.call<Check>('collab_check', { files: ['src/**'] });
    expect(fromBob.predicted_conflicts).toMatchObject([{ session_name: 'alice', level: 'textual' }]);

    // Different functions of one file: no warning at all (a file claim would have warned).
    edit(bobDir, '  return name;', '  return name.trim();');
    later();
    const apart = await alice.call<Check>('collab_check');
    expect(apart).toMatchObject({ safe: true, predicted_conflicts: [] });
    // Checking other files leaves the prediction out.
    edit(bobDir, '    validate(this);', '    validate(this, { loose: true });');
    later();
    expect((await alice.call<Check>('collab_check', { files: ['README.md'] })).predicted_conflicts).toEqual(
      [],
    );
    expect(
      (await alice.call<Check>('collab_check', { files: ['src/auth.ts'] })).predicted_conflicts,
    ).toHaveLength(1);

    // A session that starts with changes of its own is told at once.
    const carolDir = cloneOf(origin);
    edit(carolDir, '    validate(this);', '    validate(this, { carol: true });');
    const carol = await connectInMemory(app, carolDir, 'carol');
    const started = await carol.call<{ message: string }>('collab_session_start', {
      name: 'carol',
      project_root: carolDir,
    });
    expect(started.message).toContain('Your uncommitted changes already meet 2 other session(s)');

    // An ended session predicts nothing.
    await bob.call('collab_session_end', {});
    await carol.call('collab_session_end', {});
    expect((await alice.call<Check>('collab_check')).predicted_conflicts).toEqual([]);
  });

  it('a read that meets another copy in many files tells 20 of them; later reads tell the rest, each once', async () => {
    let clock = Date.now();
    const later = () => {
      clock += 2_500;
    };
    const app = await testApp({ now: () => clock });
    const files = Object.fromEntries(
      Array.from({ length: 25 }, (_, i) => [`src/m${String(i).padStart(2, '0')}.ts`, 'one\ntwo\nthree\n']),
    );
    const { aliceDir, bobDir, alice, bob } = await twoClonesInMemory(app, files);
    later();
    for (const path of Object.keys(files)) {
      writeFileSync(join(aliceDir, path), 'one\nTWO alice\nthree\n');
      writeFileSync(join(bobDir, path), 'one\nTWO bob\nthree\n');
    }
    type Listed = { notifications?: Array<{ type: string; file: string }> };
    const toldBob = async () =>
      ((await bob.call<Listed>('collab_session_list')).notifications ?? [])
        .filter((n) => n.type === 'predicted_conflict')
        .map((n) => n.file);
    const bobId = (await bob.call<{ session_id: string }>('collab_session_heartbeat')).session_id;
    await alice.call<Check>('collab_check');
    // The read made 20 notifications, not 25 (one answer would carry 20 either way).
    const made = await app.notifications.list(bobId, 'all', 'predicted_conflict', 100);
    expect(made.items).toHaveLength(20);
    const first = await toldBob();
    expect(first).toHaveLength(20);
    later();
    await alice.call<Check>('collab_check');
    const second = await toldBob();
    expect(second).toHaveLength(5);
    expect([...first, ...second].sort()).toEqual(Object.keys(files));
    later();
    await alice.call<Check>('collab_check');
    expect(await toldBob()).toEqual([]);
  });

  it('a session that starts between two checks, with no hooks, has its copy read by the next check', async () => {
    const clock = Date.now();
    const app = await testApp({ now: () => clock });
    const { origin, aliceDir, alice } = await twoClonesInMemory(app, { 'src/auth.ts': AUTH });
    edit(aliceDir, '    validate(this);', '    validate(this, { strict: true });');
    expect((await alice.call<Check>('collab_check', { files: ['src/auth.ts'] })).predicted_conflicts).toEqual(
      [],
    );
    // Within the same second (the clock stands still): carol starts, then edits the same line.
    const carolDir = cloneOf(origin);
    const carol = await connectInMemory(app, carolDir, 'carol');
    await carol.call('collab_session_start', { name: 'carol', project_root: carolDir });
    edit(carolDir, '    validate(this);', '    validate(this, { carol: true });');
    const check = await alice.call<Check>('collab_check', { files: ['src/auth.ts'] });
    expect(check.predicted_conflicts).toMatchObject([{ session_name: 'carol', level: 'textual' }]);
  });

  it('a session with nothing changed, or outside git, is told nothing and loses nothing', async () => {
    const app = await testApp();
    const plain = tempDir('collab-plain-');
    writeFileSync(join(plain, 'a.ts'), 'x\n');
    const outside = await connectInMemory(app, plain, 'outside');
    expect(await outside.call<Check>('collab_check')).toMatchObject({ safe: true, predicted_conflicts: [] });
    const repo = gitRepo({ 'a.ts': 'x\n' });
    const clean = await connectInMemory(app, repo, 'clean');
    expect(await clean.call<Check>('collab_check', { files: ['a.ts'] })).toMatchObject({
      safe: true,
      predicted_conflicts: [],
    });
  });
});

describe("git's own merge, where both copies are on this machine", () => {
  it('settles a textual prediction: it stands where git stops on a conflict, and is at most a symbol overlap where git merges', async () => {
    const dir = tempDir('collab-settle-');
    const ours = join(dir, 'ours');
    const theirs = join(dir, 'theirs');
    mkdirSync(join(ours, 'src'), { recursive: true });
    mkdirSync(join(theirs, 'src'), { recursive: true });
    const base = 'a\nb\nc\nd\n';
    git(dir, 'init', '-q', ours);
    writeFileSync(join(ours, 'src/x.ts'), 'A\nb\nc\nd\n');
    writeFileSync(join(theirs, 'src/x.ts'), 'a\nb\nc\nD\n');
    const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], {
      cwd: ours,
      input: base,
      encoding: 'utf8',
    }).trim();
    const objectsBefore = git(ours, 'count-objects');
    const said = (level: 'textual' | 'symbol', symbols: string[]) =>
      settleWithGit(
        { level, path: 'src/x.ts', symbols, ours: [], theirs: [], why: null },
        // The copies' versions not named: git asked each time.
        { base: blob, ours: null, theirs: null },
        { worktree: ours },
        { worktree: theirs },
      );
    // Lines apart: git merges. Said textual by the hunks, it is at most a symbol overlap.
    expect(await said('textual', ['f'])).toMatchObject({ level: 'symbol', git: 'merges' });
    expect(await said('textual', [])).toBeNull();
    // The repository's merge attributes hold: a file never merged by lines conflicts.
    writeFileSync(join(ours, '.gitattributes'), 'x.ts -merge\n');
    expect(await said('textual', ['f'])).toMatchObject({ level: 'textual', git: 'conflicts' });
    rmSync(join(ours, '.gitattributes'));
    // A symbol overlap is not settled: hunks that do not meet, git merges too.
    expect(await said('symbol', ['f'])).toMatchObject({ level: 'symbol' });
    expect((await said('symbol', ['f']))?.git).toBeUndefined();
    // The same line changed two ways: git stops on it.
    writeFileSync(join(theirs, 'src/x.ts'), 'Z\nb\nc\nd\n');
    expect(await said('textual', ['f'])).toMatchObject({ level: 'textual', git: 'conflicts' });
    // A file both added (no base), differently: a conflict too.
    expect(
      await settleWithGit(
        { level: 'textual', path: 'src/x.ts', symbols: [], ours: [], theirs: [], why: null },
        { base: null, ours: null, theirs: null },
        { worktree: ours },
        { worktree: theirs },
      ),
    ).toMatchObject({ git: 'conflicts' });
    // A copy gone: git cannot tell, the hunks stand.
    const gone = {
      level: 'textual' as const,
      path: 'src/gone.ts',
      symbols: ['f'],
      ours: [],
      theirs: [],
      why: null,
    };
    expect(
      await settleWithGit(
        gone,
        { base: blob, ours: null, theirs: null },
        { worktree: ours },
        { worktree: theirs },
      ),
    ).toBe(gone);
    // Nothing of the user's repository moved: no object written, no ref, no index, no worktree file.
    expect(git(ours, 'count-objects')).toBe(objectsBefore);
    expect(git(ours, 'status', '--porcelain', '--untracked-files=no')).toBe('');
    expect(git(ours, 'for-each-ref')).toBe('');
  });

  it('a file settled before is settled again only once a copy of it changed', async () => {
    const app = await testApp();
    const { aliceDir, bobDir, alice, bob } = await twoClonesInMemory(app, { 'src/auth.ts': AUTH });
    edit(aliceDir, 'log("saved");', 'log("alice");');
    edit(bobDir, 'log("saved");', 'log("bob");');
    await new Promise((r) => setTimeout(r, 120));
    await bob.call('collab_check');
    const during = notingGit();
    const check = () => alice.call<Check>('collab_check');
    const first = await during(check);
    expect(first).toContain('merge-tree');
    // Nothing changed: git's answer is known, and the prediction is the same.
    let answer: Check | undefined;
    const again = await during(async () => {
      answer = await check();
    });
    expect(again).not.toContain('merge-tree');
    expect(answer!.predicted_conflicts[0]).toMatchObject({ level: 'textual', git: 'conflicts' });
    // Bob's copy changed (read again by the check): git merges the new versions.
    edit(bobDir, 'log("saved");', 'log("bob again");');
    await new Promise((r) => setTimeout(r, 120));
    expect(await during(check)).toContain('merge-tree');
    await app.close();
  });
});

/** A git that notes what it is asked, then does it: `during(fn)` gives the commands `fn` ran. */
function notingGit() {
  const bin = tempDir('collab-noting-git-');
  const log = join(bin, 'log');
  writeFileSync(
    join(bin, 'git'),
    `#!/bin/sh\necho "$*" >> ${log}\nexec ${execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()} "$@"\n`,
    { mode: 0o755 },
  );
  return async (fn: () => Promise<unknown>) => {
    writeFileSync(log, '');
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    try {
      await fn();
    } finally {
      process.env.PATH = path;
    }
    return readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => l.replace(/^-c \S+ /, '').split(' ')[0]);
  };
}

describe('reading a worktree again', () => {
  it('keeps the base while HEAD and the default branch stay (only diff-index and ls-files run), and finds it again once HEAD moves', async () => {
    const app = await testApp();
    const origin = gitRepo({ 'src/a.ts': 'export const a = 1;\n' });
    const dir = cloneOf(origin);
    // The clone's index written further from the first read than the clock's slack (freshness.ts):
    // an index written since a whole read has the copy read whole again.
    await new Promise((r) => setTimeout(r, 60));
    const s = await connectInMemory(app, dir, 's');
    await s.call('collab_session_start', { name: 's', project_root: dir });
    const session = await app.sessions.get(s.connection.currentId!);
    const during = notingGit();
    const asked = () => during(() => app.changes.refresh(session));
    writeFileSync(join(dir, 'src/a.ts'), 'export const a = 2;\n');
    // Read whole at its start: the changed files listed (a diff of names, and the new files), the
    // one changed since diffed, and its text in the base, once (its functions' interfaces:
    // core/semantic.ts).
    expect(await asked()).toEqual(['diff-index', 'ls-files', 'diff-index', 'show']);
    writeFileSync(join(dir, 'src/a.ts'), 'export const a = 3;\n');
    expect(await asked()).toEqual(['diff-index', 'ls-files', 'diff-index']);
    git(dir, 'commit', '-qam', 'a moves');
    // (Its last write further from the read than the clock's slack, freshness.ts.)
    await new Promise((r) => setTimeout(r, 60));
    // HEAD is read from the git folder: git is asked for the merge base, not for HEAD.
    const moved = await asked();
    expect(moved).toContain('merge-base');
    expect(moved).not.toContain('rev-parse');
    // Nothing written since: the list of changed files says so, and nothing is diffed.
    expect(await asked()).toEqual(['diff-index', 'ls-files']);
    // The commit is not on the default branch: it still counts, against the same base.
    expect((await app.store.changes.filesOf(session.id)).map((f) => f.path)).toEqual(['src/a.ts']);
  });

  it('sessions checking at once, none of their copies read yet, read each copy once; a file written after is read again', async () => {
    const app = await testApp();
    const dir = gitRepo({ 'src/a.ts': 'export const a = 1;\n' });
    const sessions: Awaited<ReturnType<typeof connectInMemory>>[] = [];
    // Sessions that start with their first call (no session_start, which reads the copy).
    for (const name of ['one', 'two', 'three', 'four']) sessions.push(await connectInMemory(app, dir, name));
    const during = notingGit();
    const checkAll = (file: string) =>
      Promise.all(sessions.flatMap((s) => [1, 2, 3].map(() => s.call('collab_check', { files: [file] }))));
    // A file written within the clock's slack of a read (freshness.ts) counts as maybe written after
    // it, and is read again by each check: the repository's files are older than that here.
    await new Promise((r) => setTimeout(r, 60));
    // Each check looks at every session's copy; each copy is read whole once (a diff and a list of
    // new files), however many checks found it not read yet.
    const first = await during(() => checkAll('src/a.ts'));
    expect(first.filter((c) => c === 'diff-index')).toHaveLength(4);
    expect(first.filter((c) => c === 'ls-files')).toHaveLength(4);
    // Read, and unchanged since: no git at all.
    expect(await during(() => checkAll('src/a.ts'))).toEqual([]);
    // Written after those reads: read again, that file only, at least once for each session.
    await new Promise((r) => setTimeout(r, 60));
    writeFileSync(join(dir, 'src/a.ts'), 'export const a = 2;\n');
    const again = await during(() => checkAll('src/a.ts'));
    expect(again.filter((c) => c === 'diff-index').length).toBeGreaterThanOrEqual(4);
    for (const s of sessions)
      expect(
        (await app.store.changes.filesOf(s.connection.currentId!)).map((f) => [f.path, f.hunks.length]),
      ).toEqual([['src/a.ts', 1]]);
  });
});

/**
 * A session whose copy was read whole; then a commit moves its base (a repository of its own, on
 * its default branch), and the file is edited again: an edit's read of it is against the base
 * recorded before, a whole read's against the new one.
 */
async function baseMoved() {
  // A home of its own: another App over it is another process of the same database.
  const home = tempDir('collab-home-');
  const app = await testApp({ home });
  const dir = gitRepo({ 'src/a.ts': 'export const a = 1;\n' });
  const s = await connectInMemory(app, dir, 's');
  await s.call('collab_session_start', { name: 's', project_root: dir });
  const session = await app.sessions.get(s.connection.currentId!);
  await app.changes.refresh(session);
  const first = git(dir, 'rev-parse', 'HEAD').trim();
  expect((await app.store.changes.setOf(session.id))?.base_commit).toBe(first);
  writeFileSync(join(dir, 'src/a.ts'), 'export const a = 2;\n');
  git(dir, 'commit', '-qam', 'a moves');
  writeFileSync(join(dir, 'src/a.ts'), 'export const a = 3;\n');
  const head = git(dir, 'rev-parse', 'HEAD').trim();
  const blob = git(dir, 'rev-parse', 'HEAD:src/a.ts').trim();
  /** What is recorded: the base, when the copy was read whole, the file against which blob and when. */
  const recorded = async () => {
    const set = (await app.store.changes.setOf(session.id))!;
    const file = (await app.store.changes.filesOf(session.id, ['src/a.ts']))[0];
    const read = (await app.store.changes.freshness([session.id], ['src/a.ts'])).get(session.id)!;
    return {
      base: set.base_commit,
      fullAt: read.fullAt,
      baseBlob: file?.baseBlob,
      fileAt: read.times.get('src/a.ts'),
    };
  };
  const close = async () => {
    await s.close();
    await app.close();
  };
  return { app, home, dir, session, head, blob, recorded, close };
}

describe('an edit read while a whole read records another base', () => {
  it('one begun after it answers the edit: the whole read stands, base and file', async () => {
    const { app, session, head, blob, recorded, close } = await baseMoved();
    // Another process's whole read begins once the edit's files are read, and records first.
    const { store } = app;
    let wholeAt: number | null = null;
    beforeNextWrite(store, async () => {
      await new Promise((r) => setTimeout(r, 5));
      await app.changes.refresh(session);
      wholeAt = (await store.changes.setOf(session.id))!.full_read_at;
    });
    expect(await app.changes.refresh(session, ['src/a.ts'])).toBe('recorded');
    expect(wholeAt).not.toBeNull();
    expect(await recorded()).toEqual({
      base: head,
      fullAt: Number(wholeAt),
      baseBlob: blob,
      fileAt: Number(wholeAt),
    });
    await close();
  });

  it('one begun before it, recorded while the edit was read: the edit is read again against the new base', async () => {
    const { app, session, head, blob, recorded, close } = await baseMoved();
    // Another process's whole read began before the edit's read and records once the edit's files
    // are read (against the base recorded before).
    const { store } = app;
    const write = store.write.bind(store);
    let calls = 0;
    let wholeAtWrite!: () => void;
    const wholeWrites = new Promise<void>((r) => {
      wholeAtWrite = r;
    });
    let editAtWrite!: () => void;
    const editWrites = new Promise<void>((r) => {
      editAtWrite = r;
    });
    let whole: Promise<unknown> = Promise.resolve();
    store.write = (async (fn: never, scope: never) => {
      calls++;
      if (calls === 1) {
        wholeAtWrite();
        await editWrites;
      } else if (calls === 2) {
        editAtWrite();
        await whole;
      }
      return write(fn, scope);
    }) as typeof store.write;
    whole = app.changes.refresh(session);
    await wholeWrites;
    await new Promise((r) => setTimeout(r, 5));
    expect(await app.changes.refresh(session, ['src/a.ts'])).toBe('recorded');
    expect(calls).toBeGreaterThanOrEqual(2);
    const now = await recorded();
    expect(now).toMatchObject({ base: head, baseBlob: blob });
    // Read after the whole read began: its own read of the file stands.
    expect(now.fileAt).toBeGreaterThan(now.fullAt!);
    await close();
  });

  it('an edit read after HEAD moved leaves the base to be found again by the next whole read', async () => {
    const { app, session, head, blob, recorded, close } = await baseMoved();
    // Against the base recorded before: what it was found at stays as it was.
    expect(await app.changes.refresh(session, ['src/a.ts'])).toBe('recorded');
    expect(await app.changes.refresh(session)).toBe('recorded');
    expect(await recorded()).toMatchObject({ base: head, baseBlob: blob });
    await close();
  });
});

describe('a whole read that records after a whole read begun later', () => {
  type Moved = Awaited<ReturnType<typeof baseMoved>>;
  /**
   * A whole read (through `app`, begun by `older`) has read the copy and waits at its write; then
   * the base moves again, the file is edited, and another whole read (`newer`) begins and records.
   * Once that is recorded, the first one's write goes on.
   */
  async function olderRecordsLast(
    moved: Moved,
    older: () => Promise<unknown>,
    newer: () => Promise<unknown>,
  ) {
    const { app, dir, session, recorded } = moved;
    const { store } = app;
    const { held, release } = holdNextWrite(store);
    const first = older();
    await held;
    // What the older read found is no longer so: the base moves again, the file is edited.
    writeFileSync(join(dir, 'src/a.ts'), 'export const a = 3;\n');
    git(dir, 'commit', '-qam', 'a moves again');
    writeFileSync(join(dir, 'src/a.ts'), 'export const a = 4;\n');
    const base = git(dir, 'rev-parse', 'HEAD').trim();
    const baseBlob = git(dir, 'rev-parse', 'HEAD:src/a.ts').trim();
    // Begun later than the older read, whatever the clock's grain.
    await new Promise((r) => setTimeout(r, 5));
    expect(await newer()).toBe('recorded');
    const fullAt = Number((await store.changes.setOf(session.id))!.full_read_at);
    const newest = { base, fullAt, baseBlob, fileAt: fullAt };
    expect(await recorded()).toEqual(newest);
    release();
    return { older: await first, newest };
  }

  it("of another process: the newer read's base, time and files stand; the older counts as recorded", async () => {
    const moved = await baseMoved();
    const { app, home, session, recorded, close } = moved;
    // Another process of the same database, on this machine.
    const other = await testApp({ home });
    const { older, newest } = await olderRecordsLast(
      moved,
      () => app.changes.refresh(session),
      () => other.changes.refresh(session),
    );
    expect(older).toBe('recorded');
    expect(await recorded()).toEqual(newest);
    await other.close();
    await close();
  });

  it("of this process (an edit's read of a copy not read yet is whole): the newer read stands", async () => {
    const moved = await baseMoved();
    const { app, session, recorded, close } = moved;
    await app.store.write(() => app.store.changes.forget(session.id));
    const { older, newest } = await olderRecordsLast(
      moved,
      () => app.changes.refresh(session, ['src/a.ts']),
      () => app.changes.refresh(session),
    );
    expect(older).toBe('recorded');
    expect(await recorded()).toEqual(newest);
    await close();
  });
});

describe('a whole read that records after an edit read begun later', () => {
  type Moved = Awaited<ReturnType<typeof baseMoved>>;
  /**
   * A whole read has read the copy and waits at its write; then the agent edits `src/a.ts` and adds
   * `src/b.ts`, and an edit read of both begins and records. Once that is recorded, the whole read's
   * write goes on. Returns what the edit read recorded, and then what stands.
   */
  async function wholeRecordsLast(moved: Moved, readBefore = false) {
    const { app, dir, session, recorded } = moved;
    const { store } = app;
    // Read whole just before (the base found): a whole read again, not one of what changed since
    // (`changedSince`), which finds nothing here and writes nothing (then nothing would be held):
    // git's index written since says so.
    if (readBefore) {
      await new Promise((r) => setTimeout(r, 60));
      utimesSync(join(dir, '.git', 'index'), new Date(), new Date());
    }
    const { held, release } = holdNextWrite(store);
    const whole = app.changes.refresh(session);
    await held;
    // Edited once the whole read has read the copy.
    writeFileSync(join(dir, 'src/a.ts'), 'export const a = 4;\n');
    writeFileSync(join(dir, 'src/b.ts'), 'export const b = 1;\n');
    const edited = git(dir, 'hash-object', 'src/a.ts').trim();
    // Begun later than the whole read, whatever the clock's grain.
    await new Promise((r) => setTimeout(r, 5));
    expect(await app.changes.refresh(session, ['src/a.ts', 'src/b.ts'])).toBe('recorded');
    const files = async () =>
      (await store.changes.filesOf(session.id)).map((f) => ({ path: f.path, newBlob: f.newBlob }));
    const byEdit = { ...(await recorded()), files: await files() };
    expect(byEdit.files).toEqual([
      { path: 'src/a.ts', newBlob: edited },
      { path: 'src/b.ts', newBlob: expect.any(String) },
    ]);
    release();
    expect(await whole).toBe('recorded');
    return { byEdit, edited, after: { ...(await recorded()), files: await files() } };
  }

  it("that found the edit's base: the edit's files stand, neither replaced nor dropped", async () => {
    const moved = await baseMoved();
    const { app, session, head, blob, close } = moved;
    // The moved base recorded: the whole read finds it again, and the edit reads against it.
    expect(await app.changes.refresh(session)).toBe('recorded');
    const { byEdit, edited, after } = await wholeRecordsLast(moved, true);
    expect(byEdit).toMatchObject({ base: head, baseBlob: blob });
    // The whole read's time and base; the edit's files, as it read them, and when.
    expect(after.fullAt).toBeGreaterThan(byEdit.fullAt!);
    expect(after.fullAt).toBeLessThan(byEdit.fileAt!);
    expect(after).toEqual({ ...byEdit, fullAt: after.fullAt });
    expect(after.files[0]).toEqual({ path: 'src/a.ts', newBlob: edited });
    await close();
  });

  it("that found another base: its view replaces the edit's files, read against the base it replaces", async () => {
    const moved = await baseMoved();
    const { head, blob, close } = moved;
    const first = (await moved.app.store.changes.setOf(moved.session.id))!.base_commit;
    const { byEdit, after } = await wholeRecordsLast(moved);
    // The edit read against the base recorded before; the whole read found the new one.
    expect(byEdit.base).toBe(first);
    expect(byEdit.baseBlob).not.toBe(blob);
    expect(after).toMatchObject({ base: head, baseBlob: blob, fileAt: after.fullAt });
    expect(after.files.map((f) => f.path)).toEqual(['src/a.ts']);
    await close();
  });
});

describe('an edit read that records after an edit read of the same file begun later', () => {
  type Moved = Awaited<ReturnType<typeof baseMoved>>;
  /**
   * The moved base recorded (`src/a.ts` changed against it), the file is written `before`, and an
   * edit read of it (through `app`) reads it and waits at its write; then the agent edits it again,
   * and another process's edit read of it begins and records. Once that is recorded, the older
   * one's write goes on. Returns what the newer read recorded, and then what stands.
   */
  async function olderEditRecordsLast(moved: Moved, before: string) {
    const { app, home, dir, session, recorded } = moved;
    const { store } = app;
    expect(await app.changes.refresh(session)).toBe('recorded');
    writeFileSync(join(dir, 'src/a.ts'), before);
    // Another process of the same database, on this machine.
    const other = await testApp({ home });
    const { held, release } = holdNextWrite(store);
    const older = app.changes.refresh(session, ['src/a.ts']);
    await held;
    // Edited once the older read has read the file.
    writeFileSync(join(dir, 'src/a.ts'), 'export const a = 4;\n');
    const edited = git(dir, 'hash-object', 'src/a.ts').trim();
    // Begun later than the older read, whatever the clock's grain.
    await new Promise((r) => setTimeout(r, 5));
    expect(await other.changes.refresh(session, ['src/a.ts'])).toBe('recorded');
    const files = async () =>
      (await store.changes.filesOf(session.id)).map((f) => ({ path: f.path, newBlob: f.newBlob }));
    const byNewer = { ...(await recorded()), files: await files() };
    expect(byNewer.files).toEqual([{ path: 'src/a.ts', newBlob: edited }]);
    expect(byNewer.fileAt).toBeGreaterThan(byNewer.fullAt!);
    release();
    expect(await older).toBe('recorded');
    const after = { ...(await recorded()), files: await files() };
    await other.close();
    return { byNewer, after };
  }

  it("that found the file changed: the newer read's row stands, not replaced", async () => {
    const moved = await baseMoved();
    const { byNewer, after } = await olderEditRecordsLast(moved, 'export const a = 3;\n');
    expect(after).toEqual(byNewer);
    await moved.close();
  });

  it("that found the file back as the base has it: the newer read's row stands, not dropped", async () => {
    const moved = await baseMoved();
    // As the moved base has it: the older read finds it unchanged.
    const { byNewer, after } = await olderEditRecordsLast(moved, 'export const a = 2;\n');
    expect(after).toEqual(byNewer);
    await moved.close();
  });
});

/**
 * A read (`older`, through the session's app) has read the copy and waits at its write; then the
 * agent writes `src/a.ts` as `text`, and a read begun later (`newer`) records. Once that is
 * recorded, the older one's write goes on. Returns what the newer read recorded, and then what
 * stands: when the session was read (the latest read, the latest whole one), its changed files, and
 * when `src/a.ts` was read.
 */
async function olderRecordsAfterNewer(
  moved: Awaited<ReturnType<typeof baseMoved>>,
  older: () => Promise<unknown>,
  text: string,
  newer: () => Promise<unknown>,
) {
  const { app, dir, session } = moved;
  const { store } = app;
  const seen = async () => {
    const set = (await store.changes.setOf(session.id))!;
    const read = (await store.changes.freshness([session.id], ['src/a.ts'])).get(session.id)!;
    return {
      refreshedAt: Number(set.refreshed_at),
      fullAt: read.fullAt,
      files: (await store.changes.filesOf(session.id)).map((f) => ({ path: f.path, newBlob: f.newBlob })),
      fileAt: read.times.get('src/a.ts'),
    };
  };
  const { held, release } = holdNextWrite(store);
  // The file written since any read (as far as its time says): a whole read reads it and writes,
  // rather than finding nothing changed since the last whole read (then it writes nothing).
  const later = new Date(Date.now() + 60_000);
  utimesSync(join(dir, 'src/a.ts'), later, later);
  const first = older();
  await held;
  // Written once the older read has read the copy.
  writeFileSync(join(dir, 'src/a.ts'), text);
  // Begun later than the older read, whatever the clock's grain.
  await new Promise((r) => setTimeout(r, 5));
  expect(await newer()).toBe('recorded');
  const byNewer = await seen();
  release();
  expect(await first).toBe('recorded');
  return { byNewer, after: await seen(), seen };
}

describe('a read that records after a read begun later found the file as the base has it', () => {
  it('a whole read: the file stays unchanged, for every reader; a change after is recorded, and a whole read clears the mark', async () => {
    const moved = await baseMoved();
    const { app, dir, session, close } = moved;
    const { store } = app;
    // The moved base recorded: src/a.ts changed against it.
    expect(await app.changes.refresh(session)).toBe('recorded');
    expect((await store.changes.filesOf(session.id)).map((f) => f.path)).toEqual(['src/a.ts']);
    // Put back as the moved base has it once the whole read has read the copy: an edit read records
    // that.
    const { byNewer, after, seen } = await olderRecordsAfterNewer(
      moved,
      () => app.changes.refresh(session),
      'export const a = 2;\n',
      () => app.changes.refresh(session, ['src/a.ts']),
    );
    expect(byNewer.files).toEqual([]);
    expect(after.files).toEqual([]);
    // The whole read's time; the edit read's view of the file, and when it was read.
    expect(after.fullAt).toBeLessThan(byNewer.fileAt!);
    expect(after.fileAt).toBe(byNewer.fileAt);
    // No reader of changes sees the file changed.
    expect((await store.changes.ofProject(session.project_id)).get(session.id)).toBeUndefined();
    expect(await store.changes.othersTouching(session.project_id, null, ['src/a.ts'])).toEqual(new Map());
    expect(await store.changes.semanticOthers(session.project_id, null)).toEqual(new Map());
    // Changed again: an edit read records it.
    writeFileSync(join(dir, 'src/a.ts'), 'export const a = 5;\n');
    const edited = git(dir, 'hash-object', 'src/a.ts').trim();
    expect(await app.changes.refresh(session, ['src/a.ts'])).toBe('recorded');
    expect((await seen()).files).toEqual([{ path: 'src/a.ts', newBlob: edited }]);
    // Put back again, then read whole: nothing of the file is left, not even when it was read.
    writeFileSync(join(dir, 'src/a.ts'), 'export const a = 2;\n');
    expect(await app.changes.refresh(session, ['src/a.ts'])).toBe('recorded');
    expect((await seen()).files).toEqual([]);
    await new Promise((r) => setTimeout(r, 5));
    // (Read whole, not only what changed since the last whole read: that one would find nothing
    // changed and leave the mark, which says what is still so.)
    git(dir, 'add', 'src/a.ts');
    expect(await app.changes.refresh(session)).toBe('recorded');
    expect(await seen()).toMatchObject({ files: [], fileAt: undefined });
    await close();
  });

  it("an edit read of another process: the newer read's view stands, the file not put back", async () => {
    const moved = await baseMoved();
    const { app, home, session, close } = moved;
    const { store } = app;
    expect(await app.changes.refresh(session)).toBe('recorded');
    // Another process of the same database, on this machine.
    const other = await testApp({ home });
    const { byNewer, after } = await olderRecordsAfterNewer(
      moved,
      () => app.changes.refresh(session, ['src/a.ts']),
      'export const a = 2;\n',
      () => other.changes.refresh(session, ['src/a.ts']),
    );
    expect(byNewer.files).toEqual([]);
    // What was read of the file, and when: the newer read's.
    expect({ files: after.files, fileAt: after.fileAt }).toEqual({ files: [], fileAt: byNewer.fileAt });
    expect(await store.changes.othersTouching(session.project_id, null, ['src/a.ts'])).toEqual(new Map());
    await other.close();
    await close();
  });
});

describe('a read that records after a read begun later: when the session was read stays the later', () => {
  it("an edit read's, after another process's edit read", async () => {
    const moved = await baseMoved();
    const { app, home, session, close } = moved;
    expect(await app.changes.refresh(session)).toBe('recorded');
    const other = await testApp({ home });
    const { byNewer, after } = await olderRecordsAfterNewer(
      moved,
      () => app.changes.refresh(session, ['src/a.ts']),
      'export const a = 4;\n',
      () => other.changes.refresh(session, ['src/a.ts']),
    );
    expect(byNewer.refreshedAt).toBeGreaterThan(byNewer.fullAt!);
    expect(after.refreshedAt).toBe(byNewer.refreshedAt);
    expect(after).toEqual(byNewer);
    await other.close();
    await close();
  });

  it("a whole read's, after an edit read", async () => {
    const moved = await baseMoved();
    const { app, session, close } = moved;
    expect(await app.changes.refresh(session)).toBe('recorded');
    const { byNewer, after } = await olderRecordsAfterNewer(
      moved,
      () => app.changes.refresh(session),
      'export const a = 4;\n',
      () => app.changes.refresh(session, ['src/a.ts']),
    );
    // The whole read's time, and the edit read's.
    expect(after.fullAt).toBeLessThan(byNewer.refreshedAt);
    expect(after.refreshedAt).toBe(byNewer.refreshedAt);
    await close();
  });
});
