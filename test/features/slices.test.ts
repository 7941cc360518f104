import { describe, expect, it } from 'vitest';
import { slices } from '../../src/features/slices.js';

describe('slices', () => {
  it('lets what waits on the event loop run once the budget is spent, and not before', async () => {
    const turn = slices(5);
    let ran = false;
    setImmediate(() => {
      ran = true;
    });
    await turn();
    expect(ran).toBe(false);
    const until = performance.now() + 6;
    while (performance.now() < until) {
      // work that spends the budget
    }
    await turn();
    expect(ran).toBe(true);
  });
});
