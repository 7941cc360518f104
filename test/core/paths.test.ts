import { describe, expect, it } from 'vitest';
import { CollabError } from '../../src/core/errors.js';
import { ancestorBases, literalBase, normalizePattern } from '../../src/core/paths.js';

describe('normalizePattern', () => {
  const root = '/home/u/repo';
  it.each([
    ['src/a.ts', 'src/a.ts'],
    ['./src/a.ts', 'src/a.ts'],
    ['src//a.ts', 'src/a.ts'],
    ['src\\api\\a.ts', 'src/api/a.ts'],
    ['/home/u/repo/src/a.ts', 'src/a.ts'],
    ['src/api/', 'src/api/**'],
    ['src/api/**/', 'src/api/**'],
    ['src/../lib/x.ts', 'lib/x.ts'],
    ['.', '**'],
    ['/home/u/repo', '**'],
    ['  src/a.ts  ', 'src/a.ts'],
    ['src/*.{ts,tsx}', 'src/*.{ts,tsx}'],
  ])('%s → %s', (input, expected) => {
    expect(normalizePattern(input, root)).toBe(expected);
  });

  it.each([['../x'], ['src/../../x'], ['/home/u/other/x'], ['/home/u/repository/x'], [''], ['  ']])(
    'rejects %j',
    (input) => {
      expect(() => normalizePattern(input, root)).toThrow(CollabError);
      try {
        normalizePattern(input, root);
      } catch (error) {
        expect((error as CollabError).code).toBe('INVALID_INPUT');
      }
    },
  );
});

describe('literal bases', () => {
  it('is the glob-free prefix', () => {
    expect(literalBase('src/api/*.ts')).toBe('src/api');
    expect(literalBase('src/api/auth.py')).toBe('src/api/auth.py');
    expect(literalBase('**/*.ts')).toBe('');
    expect(literalBase('src/{a,b}/x')).toBe('src');
    expect(ancestorBases('a/b/c')).toEqual(['', 'a', 'a/b', 'a/b/c']);
  });
});
