/** Trees watched by @parcel/watcher, and polled where they cannot be watched. */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TreeWatch } from '../../src/integrations/tree-watch.js';
import { tempDir } from '../helpers/temp.js';

const until = async (check: () => boolean, ms = 5_000) => {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('watching trees', () => {
  it('reports writes anywhere below, except in ignored folders', async () => {
    const root = tempDir('collab-watch-');
    mkdirSync(join(root, 'src/deep'), { recursive: true });
    mkdirSync(join(root, 'node_modules/x'), { recursive: true });
    const seen: string[] = [];
    const watch = new TreeWatch((_root, path) => seen.push(path));
    await watch.set([{ root, ignore: ['node_modules'], pollFiles: () => [] }]);
    try {
      writeFileSync(join(root, 'node_modules/x/index.js'), 'x');
      writeFileSync(join(root, 'src/deep/a.ts'), 'a');
      await until(() => seen.includes(join(root, 'src/deep/a.ts')));
      expect(seen.some((p) => p.includes('node_modules'))).toBe(false);
    } finally {
      await watch.close();
    }
  });

  it('where a tree cannot be watched, polls the files it names, through a loop of links without failing', async () => {
    const parent = tempDir('collab-watch-');
    const root = join(parent, 'not-yet');
    const fallbacks: string[] = [];
    const seen: string[] = [];
    const held = join(root, 'held.ts');
    const loop = join(parent, 'loop');
    symlinkSync(loop, loop);
    const watch = new TreeWatch(
      (_root, path) => seen.push(path),
      (r) => fallbacks.push(r),
    );
    await watch.set([{ root, ignore: [], pollFiles: () => [held, join(loop, 'x')] }]);
    try {
      expect(fallbacks).toEqual([root]);
      mkdirSync(root);
      writeFileSync(held, 'changed');
      await until(() => seen.includes(held));
      expect(seen).not.toContain(join(loop, 'x'));
    } finally {
      await watch.close();
    }
  });
});
