import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addedFile, diffPieces, type FileChange, HUNK_LIMITS, parseGitDiff } from '../../src/core/hunks.js';
import { lineHunks } from '../../src/core/line-diff.js';
import { meetingHunks, predictFile, toBase } from '../../src/core/merge-prediction.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('collab-merge-');

/** The change from `base` to `next` as git prints it (`git diff --no-index -U0`). */
function change(name: string, base: string, next: string): FileChange {
  writeFileSync(join(dir, 'base'), base);
  writeFileSync(join(dir, name), next);
  const out = spawnSync(
    'git',
    ['diff', '--no-index', '--no-color', '-U0', '--full-index', '--no-renames', 'base', name],
    { cwd: dir, encoding: 'utf8' },
  );
  const [file] = parseGitDiff(out.stdout);
  return file
    ? { ...file, path: 'f.txt', baseBlob: 'b'.repeat(40) }
    : { path: 'f.txt', baseBlob: 'b'.repeat(40), newBlob: null, level: 'lines', reason: null, hunks: [] };
}

/** Whether git's three-way merge of the two texts conflicts (`git merge-file`). */
function gitConflicts(base: string, ours: string, theirs: string): boolean {
  writeFileSync(join(dir, 'm-base'), base);
  writeFileSync(join(dir, 'm-ours'), ours);
  writeFileSync(join(dir, 'm-theirs'), theirs);
  const out = spawnSync('git', ['merge-file', '-p', 'm-ours', 'm-base', 'm-theirs'], { cwd: dir });
  if (out.status === null || out.status < 0) throw new Error(String(out.stderr));
  return out.status > 0;
}

const text = (lines: string[]) => lines.map((l) => `${l}\n`).join('');

/** Edits of a text: replace, insert or delete lines at random places (from a few words, so alike lines recur). */
const edits = fc.array(
  fc.record({
    at: fc.nat(),
    remove: fc.integer({ min: 0, max: 3 }),
    insert: fc.array(fc.constantFrom('x', 'y', 'a', '}', 'return 1;'), { maxLength: 3 }),
  }),
  { minLength: 1, maxLength: 3 },
);

function apply(lines: string[], script: Array<{ at: number; remove: number; insert: string[] }>): string[] {
  const out = [...lines];
  for (const e of script) {
    const at = out.length === 0 ? 0 : e.at % (out.length + 1);
    out.splice(at, e.remove, ...e.insert);
  }
  return out;
}

describe('textual prediction against git merge-file', () => {
  it('predicts a conflict exactly when git’s three-way merge has one', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', 'c', '{', '}', 'return 0;', 'let x = 1;'), {
          minLength: 0,
          maxLength: 14,
        }),
        edits,
        edits,
        fc.boolean(),
        (baseLines, ours, others, alike) => {
          // Often both sides make one same change (git merges it), besides their own.
          const theirs = alike ? [ours[0]!, ...others] : others;
          const base = text(baseLines);
          const a = text(apply(baseLines, ours));
          const b = text(apply(baseLines, theirs));
          const predicted = predictFile(change('ours', base, a), change('theirs', base, b));
          const conflict = gitConflicts(base, a, b);
          expect({ base, a, b, predicted: predicted?.level ?? null }).toEqual({
            base,
            a,
            b,
            predicted: conflict ? 'textual' : null,
          });
        },
      ),
      // Seeded, so that a run is the same every time. Known to differ, 1 run in a few thousand:
      // both sides make one same change and one of them more, where a line repeats (base
      // a,b,a,b,}; ours x,x,a,b,}; theirs x,x,a,b,},},x). Diffed against the base, the two copies'
      // hunks align differently; git's merge compares the two copies' text of the region and
      // finds it the same, where hunks alone cannot (the base's lines are not kept): a conflict is
      // predicted where git merges, the safe way to be wrong. On one machine, git's own merge
      // settles it (`git: "merges"`).
      { numRuns: 80, seed: 20261127 },
    );
  });

  it('is linear: two lists of 10,000 distant hunks meet nowhere', () => {
    const hunk = (line: number) => ({
      base: [line, 1] as [number, number],
      next: [line, 1] as [number, number],
      digest: String(line),
      excerpt: '',
    });
    const ours = Array.from({ length: 10_000 }, (_, i) => hunk(i * 4 + 1));
    const theirs = Array.from({ length: 10_000 }, (_, i) => hunk(i * 4 + 3));
    expect(meetingHunks(ours, theirs)).toEqual([]);
    // Line 2 touches line 1 (git conflicts on adjacent changes) and is apart from line 5.
    expect(meetingHunks(ours, [hunk(2)]).map(([a, b]) => [a.base[0], b.base[0]])).toEqual([[1, 2]]);
  });
});

describe('symbols, bases and whole files', () => {
  const file = (over: Partial<FileChange>): FileChange => ({
    path: 'src/a.ts',
    baseBlob: 'b'.repeat(40),
    newBlob: 'n'.repeat(40),
    level: 'lines',
    reason: null,
    hunks: [],
    ...over,
  });
  const at = (line: number, symbols: string[], digest = `d${line}`) => ({
    base: [line, 1] as [number, number],
    next: [line, 1] as [number, number],
    digest,
    excerpt: `-old ${line}\n+new ${line}`,
    symbols,
  });

  it('one function changed on both sides in distant lines is a symbol overlap; different functions are nothing', () => {
    const ours = file({ hunks: [at(3, ['User.save'])] });
    const theirs = file({ newBlob: 'm'.repeat(40), hunks: [at(9, ['User.save'])] });
    expect(predictFile(ours, theirs)).toMatchObject({ level: 'symbol', symbols: ['User.save'] });
    const other = file({ newBlob: 'm'.repeat(40), hunks: [at(20, ['User.load'])] });
    expect(predictFile(ours, other)).toBeNull();
  });

  it('the same change on both sides merges; the same result is nothing', () => {
    const ours = file({ hunks: [at(3, ['f'], 'same')] });
    expect(predictFile(ours, file({ newBlob: 'm'.repeat(40), hunks: [at(3, ['f'], 'same')] }))?.level).toBe(
      'symbol',
    );
    expect(predictFile(ours, file({ hunks: [at(3, ['f'], 'other')] }))).toBeNull();
  });

  it('different bases are unknown, never a silent no-conflict; binary files are compared whole', () => {
    const ours = file({ hunks: [at(3, [])] });
    expect(
      predictFile(ours, file({ baseBlob: 'c'.repeat(40), newBlob: 'm'.repeat(40), hunks: [at(50, [])] }))
        ?.level,
    ).toBe('unknown');
    const binary = file({ level: 'file', reason: 'binary', newBlob: 'm'.repeat(40) });
    expect(predictFile(ours, binary)).toMatchObject({
      level: 'file',
      why: expect.stringContaining('binary'),
    });
  });

  it('a file whose diff was not read (too large, past its time) or that could not be read is compared whole, saying why', () => {
    const ours = file({ hunks: [at(3, [])] });
    const unread = (reason: string) =>
      file({ level: 'file', reason, baseBlob: null, newBlob: null, hunks: [] });
    // Its blobs are not known: not "started from different versions".
    expect(predictFile(ours, unread('slow'))).toMatchObject({
      level: 'file',
      why: "both changed this file, compared as a whole (git's comparison by lines ran past its time)",
    });
    expect(predictFile(unread('large'), ours)?.why).toContain('too many changes to compare by lines');
    expect(predictFile(ours, file({ level: 'file', reason: 'unreadable', newBlob: null }))?.why).toContain(
      'it could not be read',
    );
  });

  it('two sessions adding the same new file conflict unless their texts are equal', () => {
    const a = addedFile('src/new.ts', 'one\n', '1'.repeat(40));
    const b = addedFile('src/new.ts', 'two\n', '2'.repeat(40));
    expect(predictFile(a, b)?.level).toBe('textual');
    expect(predictFile(a, addedFile('src/new.ts', 'one\n', '1'.repeat(40)))).toBeNull();
  });
});

describe('a diff past the limits', () => {
  /** `files` files of `hunks` one-line hunks each, as git prints them. */
  const diff = (files: number, hunks: number) =>
    Array.from({ length: files }, (_, f) =>
      [
        `diff --git a/f${f}.ts b/f${f}.ts`,
        `index ${'1'.repeat(40)}..${'2'.repeat(40)} 100644`,
        `--- a/f${f}.ts`,
        `+++ b/f${f}.ts`,
        ...Array.from({ length: hunks }, (_, h) => [
          `@@ -${2 * h + 1} +${2 * h + 1} @@`,
          `-x${h}`,
          `+y${h}`,
        ]).flat(),
      ].join('\n'),
    ).join('\n');

  it('files that would take its hunks past the total are compared whole, with their blobs; the rest by lines', () => {
    const per = 390;
    const files = parseGitDiff(`${diff(Math.ceil(HUNK_LIMITS.total / per) + 3, per)}\n`);
    const byLines = files.filter((f) => f.level === 'lines');
    expect(byLines).toHaveLength(Math.floor(HUNK_LIMITS.total / per));
    expect(byLines.every((f) => f.hunks.length === per && f.reason === null)).toBe(true);
    expect(byLines.reduce((n, f) => n + f.hunks.length, 0)).toBeLessThanOrEqual(HUNK_LIMITS.total);
    const whole = files.filter((f) => f.level === 'file');
    expect(whole.length).toBe(files.length - byLines.length);
    expect(whole.every((f) => f.reason === 'hunks' && f.hunks.length === 0)).toBe(true);
    expect(whole.every((f) => f.baseBlob === '1'.repeat(40) && f.newBlob === '2'.repeat(40))).toBe(true);
    // In git's order: the files by lines come first.
    expect(files.findIndex((f) => f.level === 'file')).toBe(byLines.length);
  });

  it('parsed in pieces cut at its files, it is what it is whole, the total counted across them', () => {
    const text = `${diff(Math.ceil(HUNK_LIMITS.total / 390) + 3, 390)}\n`;
    const pieces = diffPieces(text, 16 * 1024);
    expect(pieces.length).toBeGreaterThan(10);
    expect(pieces.join('')).toBe(text);
    expect(pieces.every((p) => p.startsWith('diff --git '))).toBe(true);
    const count = { kept: 0 };
    expect(pieces.flatMap((p) => parseGitDiff(p, count))).toEqual(parseGitDiff(text));
    expect(count.kept).toBe(Math.floor(HUNK_LIMITS.total / 390) * 390);
  });

  it('a file past its own hunk limit is compared whole, the next file by lines again', () => {
    const files = parseGitDiff(`${diff(1, HUNK_LIMITS.hunks + 1)}\n${diff(1, 2).replaceAll('f0', 'g0')}\n`);
    expect(files.map((f) => [f.path, f.level, f.reason, f.hunks.length])).toEqual([
      ['f0.ts', 'file', 'hunks', 0],
      ['g0.ts', 'lines', null, 2],
    ]);
    expect(files[1]!.hunks[1]).toMatchObject({ base: [3, 1], next: [3, 1], excerpt: '-x1\n+y1' });
  });
});

describe('lines of a copy carried back to its base', () => {
  // Base 1..10; the copy replaced line 3 by two lines, and deleted lines 7–8.
  const ours = lineHunks(
    ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', ''].join('\n'),
    ['1', '2', '3a', '3b', '4', '5', '6', '9', '10', ''].join('\n'),
  )!;

  it('reads the copy’s own hunks as git does', () => {
    expect(ours).toEqual([
      { base: [3, 1], next: [3, 2] },
      { base: [7, 2], next: [7, 0] },
    ]);
  });

  it('moves unchanged lines by what changed above them, and maps written lines to what they replaced', () => {
    expect(toBase([1, 2], ours)).toEqual([1, 2]);
    expect(toBase([5, 1], ours)).toEqual([4, 1]); // "4"
    expect(toBase([8, 2], ours)).toEqual([9, 2]); // "9", "10"
    expect(toBase([4, 1], ours)).toEqual([3, 1]); // "3b" replaced base line 3
    expect(toBase([3, 3], ours)).toEqual([3, 2]); // "3a".."4"
    expect(toBase([7, 2], ours)).toEqual([6, 4]); // "6", "9": across the deletion
    expect(toBase([2, 0], ours)).toEqual([2, 0]); // an insertion after "2"
    expect(toBase([7, 0], ours)).toEqual([6, 0]); // after "6", where base lines 7–8 went
    expect(toBase([0, 0], [])).toEqual([0, 0]);
  });
});
