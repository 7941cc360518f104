import { describe, expect, it } from 'vitest';
import { Backoff } from '../../src/core/backoff.js';

describe('Backoff', () => {
  it('doubles each wait up to its ceiling, and starts over after a success', () => {
    const b = new Backoff(100, 1_000);
    expect([b.next(), b.next(), b.next(), b.next(), b.next(), b.next()]).toEqual([
      100, 200, 400, 800, 1_000, 1_000,
    ]);
    b.reset();
    expect(b.next()).toBe(100);
  });
});
