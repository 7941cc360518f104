import { describe, expect, it } from 'vitest';
import { fileEffects, splitCommands } from '../../src/core/shell-command.js';

describe('splitCommands', () => {
  it('splits on separators and honours quotes', () => {
    expect(splitCommands(`rm -f 'a b.txt' && echo "x; y" | cat; mv a\\ b c`)).toEqual([
      ['rm', '-f', 'a b.txt'],
      ['echo', 'x; y'],
      ['cat'],
      ['mv', 'a b', 'c'],
    ]);
    expect(splitCommands('ls # rm x')).toEqual([['ls']]);
  });
});

describe('fileEffects', () => {
  const paths = (line: string) =>
    fileEffects(line).map((e) =>
      e.kind === 'paths' ? e.paths : `${e.kind}:${e.which}:${e.paths.join(',')}`,
    );

  it.each([
    ['rm src/a.ts', [['src/a.ts']]],
    ['rm -rf build/ src/*.ts', [['build/', 'src/*.ts']]],
    ['sudo rm -- -weird', [['-weird']]],
    ['FOO=1 rm x', [['x']]],
    ['mv src/old.ts src/new.ts', [['src/old.ts', 'src/new.ts']]],
    ['mv -t dest a b', [['a', 'b']]],
    ['git checkout -- src/a.ts src/b.ts', [['src/a.ts', 'src/b.ts']]],
    ['git checkout HEAD~1 -- src/a.ts', [['src/a.ts']]],
    ['git checkout .', ['changes:tracked:']],
    ['git checkout feature', []],
    ['git checkout -b feature', []],
    ['git restore src/a.ts', [['src/a.ts']]],
    ['git restore --staged src/a.ts', []],
    ['git restore .', ['changes:tracked:']],
    ['git reset --hard', ['changes:tracked:']],
    ['git reset --hard HEAD~2', ['changes:tracked:']],
    ['git reset HEAD src/a.ts', []],
    ['git clean -fd', ['changes:untracked:']],
    ['git clean -fdn', []],
    ['git clean -f src/tmp', ['changes:untracked:src/tmp']],
    ['git stash', ['changes:tracked:']],
    ['git stash pop', []],
    ['git rm src/a.ts', [['src/a.ts']]],
    ['git -C ../other reset --hard', []],
    ['ls && rm a && echo done', [['a']]],
    ['npm test', []],
    ['echo rm a', []],
  ])('%s', (line, expected) => {
    expect(paths(line)).toEqual(expected);
  });
});
