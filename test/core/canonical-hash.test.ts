import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalHash } from '../../src/core/canonical-hash.js';

describe('canonicalHash', () => {
  it('ignores key order and number formatting; changes with content', () => {
    const a = canonicalHash({ type: 'object', properties: { b: { type: 'string' }, a: { maximum: 1.0 } } });
    const b = canonicalHash({ properties: { a: { maximum: 1 }, b: { type: 'string' } }, type: 'object' });
    expect(a).toBe(b);
    expect(a).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(
      canonicalHash({ type: 'object', properties: { b: { type: 'number' }, a: { maximum: 1 } } }),
    ).not.toBe(a);
  });

  it('hashes the RFC 8785 canonical text', () => {
    const expected = createHash('sha256').update('{"a":[1,"x",1e+21],"b":null}').digest('hex');
    expect(canonicalHash({ b: null, a: [1, 'x', 1e21] })).toBe(`sha256:${expected}`);
  });
});
