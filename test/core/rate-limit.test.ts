import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/core/rate-limit.js';

describe('RateLimiter', () => {
  it('allows a burst, then the sustained rate, per key', () => {
    const limiter = new RateLimiter(2, 3);
    expect([0, 0, 0].map(() => limiter.take('a', 0))).toEqual([0, 0, 0]);
    expect(limiter.take('a', 0)).toBe(1);
    expect(limiter.take('b', 0)).toBe(0);
    expect(limiter.take('a', 500)).toBe(0);
    expect(limiter.take('a', 500)).toBe(1);
    expect(limiter.take('a', 10_000)).toBe(0);
  });

  it('forgets the oldest keys past its bound', () => {
    const limiter = new RateLimiter(1, 1, 2);
    limiter.take('a', 0);
    limiter.take('b', 0);
    limiter.take('c', 0);
    expect(limiter.take('a', 0)).toBe(0);
  });
});
