import { describe, expect, it } from 'vitest';
import { pathTree } from '../../src/core/path-tree.js';

describe('pathTree', () => {
  it('nests patterns by segment, sorted, and marks the branches of marked items', () => {
    const tree = pathTree(
      [
        { pattern: 'src/b.ts', item: 'b' },
        { pattern: 'src/**', item: 'all' },
        { pattern: 'docs/x.md', item: 'x' },
        { pattern: 'src/b.ts', item: 'b2' },
      ],
      (item) => item.startsWith('b'),
    );
    expect(tree.children.map((c) => c.name)).toEqual(['docs', 'src']);
    const src = tree.children[1]!;
    expect(src.marked).toBe(true);
    expect(tree.children[0]!.marked).toBe(false);
    expect(src.children.map((c) => [c.path, c.items])).toEqual([
      ['src/**', ['all']],
      ['src/b.ts', ['b', 'b2']],
    ]);
  });
});
