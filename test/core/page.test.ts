import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, pageOf } from '../../src/core/page.js';

describe('pages and cursors', () => {
  it('a cursor stands for the last row of a page and comes back as it was', () => {
    const rows = [1, 2, 3].map((n) => ({ at: 100, id: `r${n}` }));
    const page = pageOf(rows, 2, (r) => r);
    expect(page.items).toEqual(rows.slice(0, 2));
    expect(decodeCursor(page.next_cursor!)).toEqual({ at: 100, id: 'r2' });
    expect(pageOf(rows, 3, (r) => r).next_cursor).toBeNull();
    expect(decodeCursor(encodeCursor({ at: 5, id: 7 }), 'number')).toEqual({ at: 5, id: 7 });
  });

  it('refuses what no list gave, and a cursor of another kind of list', () => {
    for (const bad of [
      '',
      'x',
      encodeCursor({ at: 1, id: 'a' }).slice(1),
      Buffer.from('[1.5,"a"]').toString('base64url'),
    ]) {
      expect(() => decodeCursor(bad)).toThrow(/not a cursor this list gave/);
    }
    expect(() => decodeCursor(encodeCursor({ at: 1, id: 'a' }), 'number')).toThrow(/INVALID_INPUT|cursor/);
    expect(() => decodeCursor(encodeCursor({ at: 1, id: 'x'.repeat(201) }))).toThrow(/cursor/);
  });
});
