import fc from 'fast-check';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { CollabError } from '../../src/core/errors.js';
import { glob, globBudget, matchPath, overlap, patternsOverlap } from '../../src/core/glob.js';
import { LIMITS } from '../../src/core/limits.js';

const pm = (pattern: string) => picomatch(pattern, { dot: true });

/** Patterns past the limits (too many brace alternatives…) are refused by design: not in scope here. */
const accepted = (pattern: string) => {
  try {
    glob(pattern);
    return true;
  } catch (error) {
    if (error instanceof CollabError && error.code === 'INVALID_INPUT') return false;
    throw error;
  }
};

describe('overlap examples', () => {
  const cases: Array<[string, string, boolean]> = [
    ['src/api/*', 'src/api/auth.py', true],
    ['src/api/*', 'src/api/v2/auth.py', false],
    ['src/**', '**/*.ts', true],
    ['a/*/b', 'a/**/c', false],
    ['**/*.{ts,tsx}', 'src/x.js', false],
    ['**/*.{ts,tsx}', 'src/**', true],
    ['a/[!a]', 'a/[ab]', true],
    ['a/[!ab]', 'a/[ab]', false],
    ['app/[id]/page.tsx', 'app/[id]/page.tsx', true],
    ['app/*/page.tsx', 'app/[id]/page.tsx', true],
    ['app/(auth)/page.tsx', 'app/auth/page.tsx', false],
    ['*.md', 'docs/*', false],
    ['a/**', 'a', true],
    ['x*y', '*z', false],
    ['*', '.env', true],
    ['src/{a,b/c}/*.ts', 'src/b/c/x.ts', true],
    ['a**b', 'ax/yb', false],
    ['a**b', 'axyb', true],
  ];
  for (const [a, b, expected] of cases) {
    it(`${a} ∩ ${b} → ${expected}`, () => {
      const w = patternsOverlap(a, b);
      expect(w !== null).toBe(expected);
      expect(patternsOverlap(b, a) !== null).toBe(expected);
      if (w !== null) {
        expect(matchPath(glob(a), w)).toBe(true);
        expect(matchPath(glob(b), w)).toBe(true);
      }
    });
  }
});

// Patterns over a small alphabet on which picomatch's semantics are ours. (picomatch reads `[!a]` as
// the set {!, a}; we read it as negation, as git and bash do, and test it by example above.)
const atom = fc.constantFrom('a', 'b', '.', '*', '?', '[ab]', '[^a]', '{a,b}', '{a,.b}');
const segment = fc.oneof(
  { weight: 5, arbitrary: fc.array(atom, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('')) },
  { weight: 1, arbitrary: fc.constant('**') },
);
const patternArb = fc
  .array(segment, { minLength: 1, maxLength: 3 })
  .map((segs) => segs.join('/'))
  // A segment made only of dots names `.`/`..`, which no normalised path has.
  .filter((p) => !p.split('/').some((s) => /^\.+$/.test(s)))
  // picomatch quirk: a final `/**` after a segment ending in `*` needs one more segment (`*/**` does
  // not match `a`, while `?/**` and `a/**` do). We let a final `/**` match zero segments everywhere.
  .filter((p) => !/\*\/\*\*$/.test(p) || p === '**')
  // `**` inside a segment acts as `*` (tested by example above); next to braces picomatch lets it
  // cross segments, so generated segments hold `**` only on their own.
  .filter((p) => !p.split('/').some((s) => s !== '**' && s.includes('**')))
  // picomatch quirk: in `*.*` the second star must match something (`*.*` does not match `a.`,
  // while `a.*` does); for us a star may always match nothing.
  .filter((p) => !p.includes('*.*'))
  // Patterns past the brace limit are refused with INVALID_INPUT (test/e2e/hardening.test.ts).
  .filter((p) => (p.match(/\{[^{}]*\}/g) ?? []).reduce((n, g) => n * g.split(',').length, 1) <= 64);

// Every valid path over {a, b, .} with up to 3 segments of up to 2 characters.
const names = ['a', 'b', '.']
  .flatMap((x) => ['', 'a', 'b', '.'].map((y) => x + y))
  .filter((s) => s !== '.' && s !== '..');
const allPaths: string[] = [];
for (const x of names) {
  allPaths.push(x);
  for (const y of names) {
    allPaths.push(`${x}/${y}`);
    for (const z of names) allPaths.push(`${x}/${y}/${z}`);
  }
}

describe('overlap properties', () => {
  it('every witness matches both patterns (by picomatch)', () => {
    fc.assert(
      fc.property(patternArb, patternArb, (a, b) => {
        fc.pre(accepted(a) && accepted(b));
        const w = patternsOverlap(a, b);
        if (w === null) return true;
        return pm(a)(w) && pm(b)(w) && !w.split('/').some((s) => s === '' || s === '.' || s === '..');
      }),
      { numRuns: 2000 },
    );
  });

  it('never says "no overlap" when a path matching both exists (brute force)', () => {
    fc.assert(
      fc.property(patternArb, patternArb, (a, b) => {
        fc.pre(accepted(a) && accepted(b));
        if (patternsOverlap(a, b) !== null) return true;
        const ma = pm(a);
        const mb = pm(b);
        return !allPaths.some((p) => ma(p) && mb(p));
      }),
      { numRuns: 500 },
    );
  });

  it('matches concrete paths exactly as picomatch does', () => {
    fc.assert(
      fc.property(patternArb, fc.constantFrom(...allPaths), (p, path) => {
        fc.pre(accepted(p));
        return matchPath(glob(p), path) === pm(p)(path);
      }),
      { numRuns: 5000 },
    );
  });

  it('is symmetric', () => {
    fc.assert(
      fc.property(
        patternArb,
        patternArb,
        (a, b) => (patternsOverlap(a, b) === null) === (patternsOverlap(b, a) === null),
      ),
      { numRuns: 1000 },
    );
  });
});

describe('a budget of glob work', () => {
  /** Thirty stars a pattern, one folder: their product is large and they do not meet. */
  const heavy = (i: number) => `n50/e1/${'*a'.repeat(30)}*b${i}`;

  it('an overlap search draws on it; past it the pair counts as meeting, and that answer is not kept', () => {
    const full = globBudget();
    expect(full.steps).toBe(LIMITS.globStepsPerRequest);
    expect(overlap(glob(heavy(1)), glob(heavy(11)), full)).toBeNull();
    const spent = LIMITS.globStepsPerRequest - full.steps;
    expect(spent).toBeGreaterThan(100_000);
    // Known now: asked again, it costs nothing.
    expect(overlap(glob(heavy(1)), glob(heavy(11)), full)).toBeNull();
    expect(LIMITS.globStepsPerRequest - full.steps).toBe(spent);

    const small = { steps: 1_000 };
    expect(overlap(glob(heavy(2)), glob(heavy(12)), small)).toBe(heavy(2));
    expect(small.steps).toBeLessThanOrEqual(0);
    // Out already: the next pair is not searched at all.
    expect(overlap(glob(heavy(3)), glob(heavy(13)), small)).toBe(heavy(3));
    // The safe answer was not remembered: without a budget the search says what is so.
    expect(overlap(glob(heavy(2)), glob(heavy(12)))).toBeNull();
  });

  it("a path's match draws on it too; past it the path counts as matching", () => {
    const g = glob(heavy(4));
    const path = `n50/e1/${'a'.repeat(900)}c`;
    const full = globBudget();
    expect(matchPath(g, path, full)).toBe(false);
    expect(full.steps).toBeLessThan(LIMITS.globStepsPerRequest);
    expect(matchPath(g, path, { steps: 500 })).toBe(true);
    expect(matchPath(g, path)).toBe(false);
  });

  it("one request's many heavy pairs stop at the budget: bounded however many there are", () => {
    const budget = globBudget();
    let searched = 0;
    for (let i = 0; i < 500 && budget.steps > 0; i++) {
      overlap(glob(heavy(100 + i)), glob(heavy(700 + i)), budget);
      searched++;
    }
    // Each such pair takes ~15,000 states (×32 steps): a few dozen fit, not 500.
    expect(searched).toBeLessThan(50);
    expect(overlap(glob(heavy(99)), glob(heavy(98)), budget)).toBe(heavy(99));
  });
});
