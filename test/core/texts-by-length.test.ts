import { expect, it } from 'vitest';
import { TextsByLength } from '../../src/core/texts-by-length.js';
import { iso } from '../../src/core/time.js';

it('finds a value by a text built anew, apart from other texts of its length; keeps no more than its limit', () => {
  const kept = new TextsByLength<number>(3);
  const built = (s: string) => [...s].join('');
  kept.set('abc', 1);
  kept.set('abd', 2);
  kept.set('x', 3);
  kept.set('late', 4);
  expect([
    kept.get(built('abc')),
    kept.get(built('abd')),
    kept.get('x'),
    kept.get('abe'),
    kept.get('late'),
  ]).toEqual([1, 2, 3, undefined, undefined]);
});

it('shows a time as ISO 8601 the same, shown before or not', () => {
  expect(iso(0)).toBe('1970-01-01T00:00:00.000Z');
  expect(iso(0)).toBe('1970-01-01T00:00:00.000Z');
  expect(iso(1764345600123)).toBe(new Date(1764345600123).toISOString());
  expect(iso(null)).toBeNull();
});
