import { describe, expect, it } from 'vitest';
import { pathTree } from '../../src/core/path-tree.js';

describe('pathTree', () => {
  it('nests patterns by folder, sorted, and marks the branches of marked items', () => {
    const tree = pathTree(
      [
        { pattern: 'src/b.ts', item: 'b' },
        { pattern: 'src/**', item: 'all' },
        { pattern: 'docs/x.md', item: 'x' },
        { pattern: 'src/b.ts', item: 'b2' },
      ],
      (item) => item.startsWith('b'),
    );
    expect(tree.children.map((c) => c.name)).toEqual(['docs/x.md', 'src']);
    const src = tree.children[1]!;
    expect(src.marked).toBe(true);
    expect(tree.children[0]!.marked).toBe(false);
    expect(src.children.map((c) => [c.path, c.glob, c.items])).toEqual([
      ['src/**', true, ['all']],
      ['src/b.ts', false, ['b', 'b2']],
    ]);
  });

  it('draws a glob as one node under its literal folders, which run together when they hold nothing else', () => {
    const tree = pathTree(
      [
        { pattern: 'src/api/*', item: 'api' },
        { pattern: 'src/api/v1/**/*.test.ts', item: 'tests' },
        { pattern: 'lib/deep/er/x.ts#run', item: 'fn' },
      ],
      () => false,
    );
    expect(tree.children.map((c) => [c.name, c.glob])).toEqual([
      ['lib/deep/er/x.ts#run', false],
      ['src/api', false],
    ]);
    const api = tree.children[1]!;
    expect(api.children.map((c) => [c.name, c.glob, c.items])).toEqual([
      ['*', true, ['api']],
      ['v1', false, []],
    ]);
    expect(api.children[1]!.children.map((c) => [c.name, c.path, c.glob])).toEqual([
      ['**/*.test.ts', 'src/api/v1/**/*.test.ts', true],
    ]);
  });
});
