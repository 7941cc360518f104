// Another process's write, run between two steps of a call under test: what a race would do, made
// to happen every time by wrapping the store's `write`.
import type { Store } from '../../src/store/store.js';

/** Runs `compete` once, before the next write of `store` begins (after what the caller read). */
export function beforeNextWrite(store: Store, compete: () => Promise<unknown>): void {
  const write = store.write.bind(store);
  let done = false;
  store.write = (async (fn, scope) => {
    if (!done) {
      done = true;
      await compete();
    }
    return write(fn, scope);
  }) as typeof store.write;
}

/**
 * Runs `compete` once, right after the first write of `store` has committed (with the writes that
 * joined it), before the caller goes on to its next.
 */
export function afterFirstWrite(store: Store, compete: () => Promise<unknown>): void {
  const write = store.write.bind(store);
  let depth = 0;
  let done = false;
  store.write = (async (fn, scope) => {
    depth++;
    const result = await write(fn, scope).finally(() => depth--);
    if (depth === 0 && !done) {
      done = true;
      await compete();
    }
    return result;
  }) as typeof store.write;
}

/**
 * A point a step of the code under test stops at: `pass()` (called by that step) resolves once
 * `release` is called; `reached` resolves once a step is there.
 */
export function pausePoint(): { reached: Promise<void>; pass: () => Promise<void>; release: () => void } {
  let arrived!: () => void;
  const reached = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    reached,
    pass: () => {
      arrived();
      return released;
    },
    release,
  };
}

/**
 * Holds the next write of `store` at its start: `held` resolves once it is there, and it goes on
 * once `release` is called (what another process does meanwhile, the test does).
 */
export function holdNextWrite(store: Store): { held: Promise<void>; release: () => void } {
  const point = pausePoint();
  beforeNextWrite(store, point.pass);
  return { held: point.reached, release: point.release };
}
