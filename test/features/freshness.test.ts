/** Which checked files may have changed since they were read: by their times, with no git. */
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { staleAmong } from '../../src/features/changes/freshness.js';
import { tempDir } from '../helpers/temp.js';

describe('files changed since they were read', () => {
  it('a file written after its read, or created or deleted in its folder since, is stale; the rest is not', async () => {
    const root = tempDir('collab-fresh-');
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src/a.ts'), 'a\n');
    writeFileSync(join(root, 'src/b.ts'), 'b\n');
    const old = (Date.now() - 60_000) / 1000 + 0.123;
    for (const p of ['src/a.ts', 'src/b.ts', 'src']) utimesSync(join(root, p), old, old);
    // Reads that began well after those writes: on a file system with whole-second times (CI's is
    // one), anything within two seconds before a read counts as possibly after it.
    const later = Date.now() + 3_000;
    const paths = ['src/a.ts', 'src/b.ts', 'src/missing.ts', 'lib/none.ts'];
    expect(staleAmong(root, paths, () => later)).toEqual([]);
    const readAt = Date.now();
    await new Promise((r) => setTimeout(r, 5));
    writeFileSync(join(root, 'src/a.ts'), 'a2\n');
    const readTimes = (p: string) => (p === 'src/a.ts' ? readAt : later);
    expect(staleAmong(root, ['src/a.ts', 'src/b.ts'], readTimes)).toEqual(['src/a.ts']);
    // A new file changes its folder: a path not there before, or now gone, reads as stale.
    writeFileSync(join(root, 'src/c.ts'), 'c\n');
    const stale = (ps: string[]) => staleAmong(root, ps, () => readAt);
    expect(stale(['src/missing.ts'])).toEqual(['src/missing.ts']);
    // Times in whole seconds (a coarse file system) get slack: a second before the read is not old.
    const coarse = Math.floor(readAt / 1000) - 1;
    utimesSync(join(root, 'src/b.ts'), coarse, coarse);
    expect(stale(['src/b.ts'])).toEqual(['src/b.ts']);
  });

  it('stats shared by the sessions judged in one check: each judged by its own read time, each worktree by its own files', () => {
    const one = tempDir('collab-fresh-');
    const two = tempDir('collab-fresh-');
    mkdirSync(join(one, 'src'));
    writeFileSync(join(one, 'src/a.ts'), 'a\n');
    const old = (Date.now() - 60_000) / 1000 + 0.123;
    utimesSync(join(one, 'src/a.ts'), old, old);
    for (const p of ['src', '.']) utimesSync(join(one, p), old, old);
    utimesSync(two, old, old);
    const stats = new Map();
    const before = Date.now() - 120_000;
    const after = Date.now() + 3_000;
    // Two sessions in one worktree: the one that read it before the write is stale, the other not.
    expect(staleAmong(one, ['src/a.ts'], () => before, stats)).toEqual(['src/a.ts']);
    expect(staleAmong(one, ['src/a.ts'], () => after, stats)).toEqual([]);
    // Another worktree without the file: judged by its own folder, not by the first one's file.
    expect(staleAmong(two, ['src/a.ts'], () => after, stats)).toEqual([]);
    expect(staleAmong(two, ['src/a.ts'], () => before, stats)).toEqual(['src/a.ts']);
  });
});
