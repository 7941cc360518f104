import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../src/core/line-diff.js';
import { tempDir } from '../helpers/temp.js';

describe('unifiedDiff', () => {
  it('is empty for equal texts and shows additions to a new file', () => {
    expect(unifiedDiff('a\nb\n', 'a\nb\n', 'x', 'y')).toBe('');
    expect(unifiedDiff('', 'one\ntwo\n', '/dev/null', 'f')).toBe(
      '--- /dev/null\n+++ f\n@@ -0,0 +1,2 @@\n+one\n+two\n',
    );
  });

  it('applies with `git apply` (so it is a real unified diff)', () => {
    const line = fc.constantFrom('a', 'b', 'c', 'd', '{', '}');
    const text = fc.array(line, { maxLength: 25 }).map((l) => (l.length ? `${l.join('\n')}\n` : ''));
    const dir = tempDir();
    fc.assert(
      fc.property(text, text, (before, after) => {
        writeFileSync(join(dir, 'f'), before);
        const patch = unifiedDiff(before, after, 'a/f', 'b/f');
        if (patch === null) return false;
        if (patch === '') return before === after;
        writeFileSync(join(dir, 'p.diff'), patch!);
        execFileSync('git', ['apply', '--unidiff-zero', 'p.diff'], { cwd: dir });
        return readFileSync(join(dir, 'f'), 'utf8') === after;
      }),
      { numRuns: 150 },
    );
  });

  it('is near-linear: 90,000-line texts with a few changes diff fast, a full rewrite is "too large" without a quadratic table', () => {
    const big = Array.from({ length: 90_000 }, (_, i) => `line ${i}`);
    const changed = [...big];
    changed[10] = 'changed ten';
    changed.splice(50_000, 1);
    changed.push('appended');
    const before = process.memoryUsage().heapUsed;
    const patch = unifiedDiff(`${big.join('\n')}\n`, `${changed.join('\n')}\n`, 'v1', 'v2')!;
    expect(patch).toContain('-line 10\n+changed ten');
    expect(patch).toContain('-line 50000');
    expect(patch).toContain('+appended');
    const rewrite = unifiedDiff(`${big.join('\n')}\n`, `${big.map((l) => `${l}!`).join('\n')}\n`, 'v1', 'v2');
    expect(rewrite).toBeNull();
    // Memory stays bounded (an n×m table here is 32 GB); the test's own timeout bounds the time.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(500_000_000);
  });
});
