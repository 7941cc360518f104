import { describe, expect, it } from 'vitest';
import { fileEffects } from '../../src/core/shell-command.js';
import { splitCommands } from '../../src/core/shell-words.js';

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
      e.kind === 'paths'
        ? e.paths
        : e.kind === 'patch'
          ? `patch:${e.file}:${e.strip}:${e.dir}`
          : `${e.kind}:${e.which}:${e.paths.join(',')}`,
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
    // Folders: `cd` is followed, within its subshell.
    ['cd src && rm app.ts', [['src/app.ts']]],
    ['cd src/lib; cd .. && rm app.ts', [['src/app.ts']]],
    ['(cd src && rm app.ts) && rm app.ts', [['src/app.ts'], ['app.ts']]],
    ['cd /abs/repo && rm a.ts', [['/abs/repo/a.ts']]],
    ['cd $DIR && rm a.ts', []],
    // Redirections write their targets.
    ['echo x > src/a.ts', [['src/a.ts']]],
    ['echo x >src/a.ts', [['src/a.ts']]],
    ['cat a >> src/log.txt 2>&1', [['src/log.txt']]],
    ['make 2> build.log', [['build.log']]],
    ['npm test > /dev/null 2>&1', []],
    ['cd src && printf x > a.ts', [['src/a.ts']]],
    ['echo "a > b"', []],
    // In-place editors.
    ["sed -i 's/a/b/' src/a.ts src/b.ts", [['src/a.ts', 'src/b.ts']]],
    ["sed -i.bak -e 's/a/b/' -e 's/c/d/' src/a.ts", [['src/a.ts']]],
    ["sed -i '' 's/a/b/' src/a.ts", [['src/a.ts']]],
    ["sed --in-place 's/a/b/' src/a.ts", [['src/a.ts']]],
    ["sed 's/a/b/' src/a.ts", []],
    ["perl -pi -e 's/a/b/' src/a.ts", [['src/a.ts']]],
    ["perl -i.bak -pe 's/a/b/' src/a.ts", [['src/a.ts']]],
    ["perl -ne 'print' src/a.ts", []],
    // Writers of their operands.
    ['truncate -s 0 src/a.ts', [['src/a.ts']]],
    ['cp other.ts src/a.ts', [['src/a.ts', 'src/a.ts/other.ts']]],
    ['cp -r lib/ x.ts src/', [['src/lib', 'src/x.ts']]],
    ['cp -t src a.ts', [['src/a.ts']]],
    ['echo x | tee src/a.ts', [['src/a.ts']]],
    ['dd if=/dev/zero of=src/a.bin bs=1 count=1', [['src/a.bin']]],
    // What a command writes without naming it: the folder it names.
    ['find src -name "*.tmp" -delete', [['src', 'src/**']]],
    ['find . -name "*.orig" -exec rm {} +', [['**']]],
    ['find src -name "*.ts"', []],
    ['rm src/$NAME.ts', [['src/**']]],
    ['rm $(cat list.txt)', [['**']]],
    // Formatters and fixers, direct or through a package runner.
    ['npx prettier --write src/a.ts', [['src/a.ts', 'src/a.ts/**']]],
    ['npx prettier --write .', [['**']]],
    ['npx prettier --check .', []],
    ['pnpm exec eslint --fix src', [['src', 'src/**']]],
    ['npx @biomejs/biome check --write src/', [['src/**']]],
    ['black .', [['**']]],
    ['black --check .', []],
    ['ruff format src', [['src', 'src/**']]],
    ['gofmt -w main.go', [['main.go', 'main.go/**']]],
    ['cargo fmt', [['**']]],
    ["npx prettier --write 'src/**/*.ts'", [['src/**/*.ts']]],
    // Patches: the files they name are read by the hook.
    ['git apply fix.patch', ['patch:fix.patch:1:null']],
    ['git apply -p0 --directory=x fix.patch', ['patch:fix.patch:0:null']],
    ['git apply --check fix.patch', []],
    ['cd src && patch -p1 < ../fix.diff', ['patch:fix.diff:1:src']],
    ['patch -p1 -i fix.diff', ['patch:fix.diff:1:']],
    ['patch src/a.ts < fix.diff', [['src/a.ts']]],
    ['patch --dry-run -p1 < fix.diff', []],
  ])('%s', (line, expected) => {
    expect(paths(line)).toEqual(expected);
  });
});
