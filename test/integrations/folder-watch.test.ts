/** Folders watched by the system's notifications, and polled where they cannot be watched. */
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FolderWatch, foldersBelow } from '../../src/integrations/folder-watch.js';
import { tempDir } from '../helpers/temp.js';

const until = async (check: () => boolean, ms = 5_000) => {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('watching folders', () => {
  it('reports writes in a watched folder; a walk skips ignored folders and loops of links', async () => {
    const root = tempDir('collab-watch-');
    mkdirSync(join(root, 'src/deep'), { recursive: true });
    mkdirSync(join(root, 'node_modules/x'), { recursive: true });
    symlinkSync(root, join(root, 'src/loop'));
    expect(foldersBelow(root, new Set(['node_modules']), 100).sort()).toEqual(
      [root, join(root, 'src'), join(root, 'src/deep')].sort(),
    );
    const seen: string[] = [];
    const watch = new FolderWatch((folder, name) => seen.push(join(folder, name)));
    await watch.set([join(root, 'src/deep')]);
    try {
      writeFileSync(join(root, 'src/deep/a.ts'), 'a');
      await until(() => seen.includes(join(root, 'src/deep/a.ts')));
    } finally {
      watch.close();
    }
  });

  it('a folder that is not there yet is polled: a file made in it later is reported', async () => {
    const parent = tempDir('collab-watch-');
    const folder = join(parent, 'not-yet');
    const fallbacks: string[] = [];
    const seen: string[] = [];
    const watch = new FolderWatch(
      (f, name) => seen.push(join(f, name)),
      (f) => fallbacks.push(f),
    );
    await watch.set([folder]);
    try {
      expect(fallbacks).toEqual([folder]);
      mkdirSync(folder);
      symlinkSync(join(folder, 'loop'), join(folder, 'loop'));
      writeFileSync(join(folder, 'held.ts'), 'x');
      await until(() => seen.includes(join(folder, 'held.ts')));
      expect(seen).not.toContain(join(folder, 'loop'));
    } finally {
      watch.close();
    }
  });

  it('many folders not there yet are polled in turns: a file made in any of them is reported, and one gone', async () => {
    const parent = tempDir('collab-watch-');
    const folders = Array.from({ length: 25 }, (_, i) => join(parent, `f${i}`));
    const seen = new Set<string>();
    const watch = new FolderWatch((f, name) => seen.add(join(f, name)));
    await watch.set(folders);
    try {
      const made = [folders[0]!, folders[12]!, folders[24]!];
      for (const folder of made) {
        mkdirSync(folder);
        writeFileSync(join(folder, 'held.ts'), 'x');
      }
      await until(() => made.every((f) => seen.has(join(f, 'held.ts'))));
      // A folder that goes away again reports its file gone.
      seen.clear();
      rmSync(folders[12]!, { recursive: true });
      await until(() => seen.has(join(folders[12]!, 'held.ts')));
    } finally {
      watch.close();
    }
  });
});
