/**
 * Claims of one symbol (`src/auth.ts#User.save`), edits judged by what they reach, and fencing of
 * work done under a claim that lapsed: on either backend, two clones of one repository.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { splitTarget, targetsMeet } from '../../src/core/claim-target.js';
import type { SessionRow } from '../../src/store/sessions-store.js';
import { testApp, twoClonesInMemory } from '../helpers/app.js';
import { tempDir } from '../helpers/temp.js';

const AUTH = [
  'export class User {', // 1
  '  save(): void {', // 2
  '    validate(this);', // 3
  '    db.write(this);', // 4
  '  }', // 5
  '', // 6
  '  load(): void {', // 7
  '    db.read(this);', // 8
  '  }', // 9
  '}', // 10
  '', // 11
  'export function login(name: string) {', // 12
  '  return name;', // 13
  '}', // 14
  '',
].join('\n');

type Claimed = {
  claim_id: string;
  status: string;
  files: string[];
  warning?: string;
  conflicts: Array<{ overlap: string[] }>;
};
type Checked = { safe: boolean; conflicts: Array<{ file: string; session: string }> };

async function twoSessions(now?: () => number) {
  const app = await testApp(now ? { now } : {});
  const { aliceDir, bobDir, alice, bob } = await twoClonesInMemory(app, {
    'src/auth.ts': AUTH,
    'README.md': '# app\n',
  });
  const row = async (c: typeof alice) => (await app.sessions.get(c.connection.currentId!)) as SessionRow;
  return { app, aliceDir, bobDir, alice, bob, aliceRow: await row(alice), bobRow: await row(bob) };
}

describe('targets', () => {
  it('read a symbol only after a file of a language whose symbols are read', () => {
    expect(splitTarget('src/auth.ts#User.save')).toEqual({ path: 'src/auth.ts', symbol: 'User.save' });
    expect(splitTarget('app/models.py#User.save')).toEqual({ path: 'app/models.py', symbol: 'User.save' });
    expect(splitTarget('src/counter.js#Counter.#tick')).toEqual({
      path: 'src/counter.js',
      symbol: 'Counter.#tick',
    });
    // A file may have `#` in its name.
    expect(splitTarget('notes#draft.md')).toEqual({ path: 'notes#draft.md', symbol: null });
    expect(splitTarget('src/*.ts#login')).toEqual({ path: 'src/*.ts#login', symbol: null });
    expect(splitTarget('src/a.ts#not a name')).toEqual({ path: 'src/a.ts#not a name', symbol: null });
  });

  it('meet where their paths overlap and their symbols can be the same code', () => {
    expect(targetsMeet('src/auth.ts#login', 'src/auth.ts#login')).toBe('src/auth.ts#login');
    expect(targetsMeet('src/auth.ts#login', 'src/auth.ts#logout')).toBeNull();
    // A class holds its methods; a file or a glob holds every symbol.
    expect(targetsMeet('src/auth.ts#User', 'src/auth.ts#User.save')).toBe('src/auth.ts#User.save');
    expect(targetsMeet('src/auth.ts#User.saveAll', 'src/auth.ts#User.save')).toBeNull();
    expect(targetsMeet('src/auth.ts', 'src/auth.ts#login')).toBe('src/auth.ts#login');
    expect(targetsMeet('src/**', 'src/auth.ts#login')).toBe('src/auth.ts#login');
    expect(targetsMeet('lib/**', 'src/auth.ts#login')).toBeNull();
  });
});

describe('symbol claims', () => {
  it('overlap and collab_check work at symbol level; a file claim covers every symbol', async () => {
    const { alice, bob } = await twoSessions();
    const saved = await alice.call<Claimed>('collab_claim', {
      files: ['src/auth.ts#User.save'],
      intent: 'retry writes',
      exclusive: true,
    });
    expect(saved).toMatchObject({ status: 'created', files: ['src/auth.ts#User.save'] });
    expect(saved.warning).toBeUndefined();
    // Another symbol of the file: no conflict, even exclusive.
    expect(
      await bob.call<Claimed>('collab_claim', {
        files: ['src/auth.ts#login'],
        intent: 'trim',
        exclusive: true,
      }),
    ).toMatchObject({ status: 'created', conflicts: [] });
    // The class holds the method; the file holds every symbol.
    expect(
      (await bob.fail('collab_claim', { files: ['src/auth.ts#User'], intent: 'x', exclusive: true })).code,
    ).toBe('CLAIM_CONFLICT');
    expect(
      (await bob.fail('collab_claim', { files: ['src/auth.ts'], intent: 'x', exclusive: true })).code,
    ).toBe('CLAIM_CONFLICT');

    const check = (files: string[]) => bob.call<Checked>('collab_check', { files });
    expect((await check(['src/auth.ts#User.load'])).safe).toBe(true);
    expect(await check(['src/auth.ts#User.save'])).toMatchObject({
      safe: false,
      conflicts: [{ file: 'src/auth.ts#User.save', session: 'alice' }],
    });
    expect(await check(['src/auth.ts'])).toMatchObject({
      safe: false,
      conflicts: [{ file: 'src/auth.ts#User.save' }],
    });
    expect(await check(['src/*'])).toMatchObject({
      safe: false,
      conflicts: [{ file: 'src/auth.ts#User.save' }],
    });
    // Alice, the other way round: Bob's login is not hers to worry about in save.
    expect((await alice.call<Checked>('collab_check', { files: ['src/auth.ts#User'] })).safe).toBe(true);
    expect((await alice.call<Checked>('collab_check', { files: ['src/auth.ts#login'] })).safe).toBe(false);

    // Listing by a symbol: the claims that meet it.
    const listed = await bob.call<{ claims: Array<{ files: string[] }> }>('collab_claims_list', {
      path_filter: 'src/auth.ts#User.load',
    });
    expect(listed.claims).toEqual([]);
    const all = await bob.call<{ claims: Array<{ files: string[] }> }>('collab_claims_list', {
      path_filter: 'src/auth.ts',
    });
    expect(all.claims.map((c) => c.files).sort()).toEqual([['src/auth.ts#User.save'], ['src/auth.ts#login']]);
  });

  it('a symbol the file does not have is said at once; a symbol of a glob or of an unread language is refused', async () => {
    const { bob } = await twoSessions();
    const typo = await bob.call<Claimed>('collab_claim', { files: ['src/auth.ts#User.sav'], intent: 'x' });
    expect(typo.status).toBe('created');
    expect(typo.warning).toContain('src/auth.ts has no symbol User.sav now');
    expect(typo.warning).toContain('User.save');
    const glob = await bob.fail('collab_claim', { files: ['src/*.ts#login'], intent: 'x' });
    expect(glob.code).toBe('INVALID_INPUT');
    expect(glob.message).toContain('a symbol names one file');
    const markdown = await bob.fail('collab_claim', { files: ['README.md#Intro'], intent: 'x' });
    expect(markdown.code).toBe('INVALID_INPUT');
    expect(markdown.message).toContain('.ts');
    expect((await bob.fail('collab_claim', { files: ['src#login'], intent: 'x' })).code).toBe(
      'INVALID_INPUT',
    );
  });
});

/** An edit of Bob's file, as his hook sees it before it runs: the verdict, narrowed to what it reaches. */
async function bobEdits(
  s: Awaited<ReturnType<typeof twoSessions>>,
  from: string,
  to: string,
): Promise<{ reason: string | null; notes: string[] }> {
  const verdict = await s.app.enforcement.checkPaths(
    s.bobRow,
    ['src/auth.ts'],
    s.bobDir,
    'Editing src/auth.ts',
  );
  return s.app.enforcement.narrowToEdit(
    s.bobRow,
    'src/auth.ts',
    s.bobDir,
    verdict,
    (current) => current.replace(from, to),
    'Editing src/auth.ts',
  );
}

describe('an edit of a file held in part', () => {
  it('inside a held symbol is refused; elsewhere it goes ahead with a note', async () => {
    const s = await twoSessions();
    await s.alice.call('collab_claim', { files: ['src/auth.ts#User.save'], intent: 'retry writes' });
    const inside = await bobEdits(s, '    db.write(this);', '    db.write(this, 3);');
    expect(inside.reason).toContain('src/auth.ts#User.save');
    expect(inside.reason).toContain('retry writes');
    const elsewhere = await bobEdits(s, '  return name;', '  return name.trim();');
    expect(elsewhere.reason).toBeNull();
    expect(elsewhere.notes).toEqual([expect.stringContaining('src/auth.ts#User.save is held by "alice"')]);
    // A line added inside save (a blank one too) is inside it.
    const blankInSave = await bobEdits(s, '    validate(this);\n', '    validate(this);\n\n');
    expect(blankInSave.reason).toContain('src/auth.ts#User.save');
    // A held symbol the file does not have yet: writing it reaches it.
    await s.alice.call('collab_claim', { files: ['src/auth.ts#logout'], intent: 'add logout' });
    const written = await bobEdits(
      s,
      '\nexport function login',
      '\nexport function logout() {}\n\nexport function login',
    );
    expect(written.reason).toContain('src/auth.ts#logout');
    // Commenting a held function out, or renaming it away, reaches it too.
    await s.alice.call('collab_claim', { files: ['src/auth.ts#login'], intent: 'token auth' });
    const open = await bobEdits(
      s,
      'export function login(name: string) {',
      '/*\nexport function login(name: string) {',
    );
    writeFileSync(
      join(s.bobDir, 'src/auth.ts'),
      AUTH.replace('export function login', '/*\nexport function login'),
    );
    const closed = await bobEdits(s, '  return name;\n}\n', '  return name;\n}\n*/\n');
    expect([open.reason, closed.reason].filter(Boolean).join(' ')).toContain('src/auth.ts#login');
    writeFileSync(join(s.bobDir, 'src/auth.ts'), AUTH);
    expect((await bobEdits(s, 'export function login(', 'export function signIn(')).reason).toContain(
      'src/auth.ts#login',
    );
    // A new method added to the class, between save and load, is not inside save.
    expect(
      (await bobEdits(s, '\n  load(): void {', '\n  reset(): void {}\n\n  load(): void {')).reason,
    ).toBeNull();
  });

  it('held by another session’s edits: apart from its changes goes ahead; the same function, or edits not read yet, do not', async () => {
    const s = await twoSessions();
    // Alice's client edits save; her hook records the edit (a claim of the file) and asks for it to be read.
    const aliceWrites = async (text: string) => {
      writeFileSync(join(s.aliceDir, 'src/auth.ts'), text);
      await s.app.enforcement.recordEdits(s.aliceRow, ['src/auth.ts'], s.aliceDir);
    };
    await aliceWrites(AUTH.replace('    validate(this);', '    validate(this, true);'));
    // Not read yet: what she changed is not known, so the whole file counts.
    expect((await bobEdits(s, '  return name;', '  return name.trim();')).reason).toContain('alice');
    expect(await s.app.changes.refreshRequested()).toBe(1);
    expect(await s.app.store.changes.hasPending(s.aliceRow.id)).toBe(false);
    const apart = await bobEdits(s, '  return name;', '  return name.trim();');
    expect(apart.reason).toBeNull();
    expect(apart.notes).toEqual([expect.stringContaining('this edit is apart from its changes')]);
    // Other lines of the same function: git would merge, but both change User.save.
    expect((await bobEdits(s, '    db.write(this);', '    db.write(this, 3);')).reason).toContain('alice');
    // She edits login too: until that edit is read, what was read of hers before does not decide.
    await aliceWrites(
      AUTH.replace('    validate(this);', '    validate(this, true);').replace(
        '  return name;',
        '  return name.toLowerCase();',
      ),
    );
    expect((await bobEdits(s, '  return name;', '  return name.trim();')).reason).toContain('alice');
    await s.app.changes.refreshRequested();
    expect((await bobEdits(s, '  return name;', '  return name.trim();')).reason).toContain('alice');
    expect((await bobEdits(s, '  load(): void {', '  load(): Promise<void> {')).reason).toBeNull();
    // A request taken by a process that never finished is read again later, not lost.
    await s.app.enforcement.recordEdits(s.aliceRow, ['src/auth.ts'], s.aliceDir);
    const host = s.app.host;
    expect(await s.app.store.changes.take(host, 10, s.app.now(), 60_000)).toHaveLength(1);
    expect(await s.app.store.changes.take(host, 10, s.app.now(), 60_000)).toEqual([]);
    expect(await s.app.store.changes.hasPending(s.aliceRow.id, ['src/auth.ts'])).toBe(true);
    expect(await s.app.store.changes.take(host, 10, s.app.now() + 61_000, 60_000)).toHaveLength(1);
    // A read that fails (here: a git that cannot run) leaves the request waiting, not answered.
    await s.app.store.changes.done(s.aliceRow.id, ['src/auth.ts'], s.app.now() + 61_000);
    await s.app.enforcement.recordEdits(s.aliceRow, ['src/auth.ts'], s.aliceDir);
    const broken = tempDir('collab-broken-git-');
    writeFileSync(join(broken, 'git'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    const path = process.env.PATH;
    process.env.PATH = `${broken}:${path}`;
    try {
      expect(await s.app.changes.refreshRequested()).toBe(1);
    } finally {
      process.env.PATH = path;
    }
    expect(await s.app.store.changes.hasPending(s.aliceRow.id, ['src/auth.ts'])).toBe(true);
    expect((await bobEdits(s, '  load(): void {', '  load(): Promise<void> {')).reason).toContain('alice');
  });
});

describe('fencing', () => {
  it('work under a claim that lapsed and was claimed by another since cannot land until claimed again', async () => {
    let clock = Date.now();
    const s = await twoSessions(() => clock);
    const claimed = await s.alice.call<Claimed>('collab_claim', {
      files: ['src/auth.ts#User.save'],
      intent: 'retry writes',
      ttl_seconds: 60,
    });
    writeFileSync(join(s.aliceDir, 'src/auth.ts'), AUTH.replace('db.write(this)', 'db.write(this, 3)'));
    // Still hers: nothing to fence.
    expect(await s.app.enforcement.fences(s.aliceRow, ['src/auth.ts'])).toEqual([]);
    clock += 61_000;
    // Hers lapsed; Bob claims another symbol: her work is not his.
    await s.bob.call('collab_claim', { files: ['src/auth.ts#login'], intent: 'trim' });
    expect(await s.app.enforcement.fences(s.aliceRow, ['src/auth.ts'])).toEqual([]);
    // Bob claims the class, does his work and lets it go.
    clock += 1_000;
    const his = await s.bob.call<Claimed>('collab_claim', {
      files: ['src/auth.ts#User'],
      intent: 'rename fields',
    });
    await s.bob.call('collab_release', { claim_id: his.claim_id, status: 'completed' });
    const fences = await s.app.enforcement.fences(s.aliceRow, ['src/auth.ts', 'README.md']);
    expect(fences).toMatchObject([
      {
        file: 'src/auth.ts',
        claim_id: claimed.claim_id,
        how: 'expired',
        taken_by: 'bob',
        intent: 'rename fields',
      },
    ]);
    // Bob never held what he commits: nothing to fence for him.
    expect(await s.app.enforcement.fences(s.bobRow, ['src/auth.ts'])).toEqual([]);
    // Claimed again (having looked): hers to commit.
    clock += 1_000;
    await s.alice.call('collab_claim', { files: ['src/auth.ts#User.save'], intent: 'retry writes, again' });
    expect(await s.app.enforcement.fences(s.aliceRow, ['src/auth.ts'])).toEqual([]);
    expect(readFileSync(join(s.aliceDir, 'src/auth.ts'), 'utf8')).toContain('db.write(this, 3)');
  });

  it('an agent whose hooks recorded its edits is fenced the same; another session’s edits of other symbols take nothing', async () => {
    let clock = Date.now();
    const s = await twoSessions(() => clock);
    await s.alice.call('collab_claim', {
      files: ['src/auth.ts#User.save'],
      intent: 'retry writes',
      ttl_seconds: 60,
    });
    // Her hooks record her edit: a claim of the file, by edit, that does not expire.
    writeFileSync(join(s.aliceDir, 'src/auth.ts'), AUTH.replace('db.write(this)', 'db.write(this, 3)'));
    await s.app.enforcement.recordEdits(s.aliceRow, ['src/auth.ts'], s.aliceDir);
    clock += 61_000;
    // Bob's hooks record his edit of login only, once read: no taking of save.
    writeFileSync(join(s.bobDir, 'src/auth.ts'), AUTH.replace('  return name;', '  return name.trim();'));
    await s.app.enforcement.recordEdits(s.bobRow, ['src/auth.ts'], s.bobDir);
    await s.app.changes.refreshRequested();
    expect(await s.app.enforcement.fences(s.aliceRow, ['src/auth.ts'])).toEqual([]);
    // Bob claims the class: her claim of save had lapsed, her edits' claim came before his.
    clock += 1_000;
    await s.bob.call('collab_claim', { files: ['src/auth.ts#User'], intent: 'rename fields' });
    expect(await s.app.enforcement.fences(s.aliceRow, ['src/auth.ts'])).toMatchObject([
      { file: 'src/auth.ts', how: 'expired', taken_by: 'bob' },
    ]);
    clock += 1_000;
    await s.alice.call('collab_claim', { files: ['src/auth.ts#User.save'], intent: 'again' });
    expect(await s.app.enforcement.fences(s.aliceRow, ['src/auth.ts'])).toEqual([]);
  });
});
