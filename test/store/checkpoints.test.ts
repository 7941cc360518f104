/**
 * The pause the checkpointer asks of the server's writes (store/checkpoints.ts `pauseGate`), over
 * the flags the two threads share: a write waits only while a pause is asked for, says it waits,
 * goes once the pause is let go, and stops waiting for a checkpointer that does not let it go.
 */
import { describe, expect, it } from 'vitest';
import { PAUSE_WANTED, pauseGate, WRITES_PAUSED } from '../../src/store/checkpoints.js';

const flagsNow = () => new Int32Array(new SharedArrayBuffer(8));
const release = (flags: Int32Array) => {
  Atomics.store(flags, PAUSE_WANTED, 0);
  Atomics.notify(flags, PAUSE_WANTED);
};

describe('the checkpointer pausing the server’s writes', () => {
  it('waits for nothing while no pause is asked for', () => {
    const flags = flagsNow();
    expect(pauseGate(flags, 1_000)()).toBeNull();
    expect(Atomics.load(flags, WRITES_PAUSED)).toBe(0);
  });

  it('says the writes are paused and goes once the pause is let go', async () => {
    const flags = flagsNow();
    const gate = pauseGate(flags, 5_000);
    Atomics.store(flags, PAUSE_WANTED, 1);
    const waiting = gate();
    expect(waiting).not.toBeNull();
    expect(Atomics.load(flags, WRITES_PAUSED)).toBe(1);
    let went = false;
    void waiting!.then(() => {
      went = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(went).toBe(false);
    const at = Date.now();
    setTimeout(() => release(flags), 10);
    await waiting;
    expect(Date.now() - at).toBeLessThan(4_000);
    expect(Atomics.load(flags, WRITES_PAUSED)).toBe(0);
    expect(gate()).toBeNull();
  });

  it('a pause never let go is waited for once, for its time at most; the next one is waited for again', async () => {
    const flags = flagsNow();
    const gate = pauseGate(flags, 50);
    Atomics.store(flags, PAUSE_WANTED, 1);
    await gate();
    expect(Atomics.load(flags, WRITES_PAUSED)).toBe(0);
    // The checkpointer still holds that pause (stuck in a sync): the writes go on.
    expect(gate()).toBeNull();
    expect(gate()).toBeNull();
    release(flags);
    expect(gate()).toBeNull();
    Atomics.store(flags, PAUSE_WANTED, 1);
    const again = gate();
    expect(again).not.toBeNull();
    release(flags);
    await again;
  });
});
