/**
 * New row ids (UUID v4) from random bytes kept in a pool. The bytes come from the global Web Crypto
 * object unless a source was set (`useRandomSource`): Node loads Web Crypto on first use, about
 * 4 ms of a hook process that records one edit, where reading the system's random device takes a
 * tenth of a millisecond (integrations/random-bytes.ts).
 */
const POOL_BYTES = 4096;

let fill: (bytes: Uint8Array) => void = (bytes) => {
  globalThis.crypto.getRandomValues(bytes);
};
const pool = new Uint8Array(POOL_BYTES);
let used = POOL_BYTES;

/** Where random bytes come from from now on: `source` fills its argument or throws. */
export function useRandomSource(source: (bytes: Uint8Array) => void): void {
  if (fill === source) return;
  fill = source;
  used = POOL_BYTES;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** 16 random bytes from the pool, to be zeroed by the caller once used. */
function randomBytes16(): Uint8Array {
  if (used + 16 > POOL_BYTES) {
    try {
      fill(pool);
    } catch {
      // The source failed (no random device, say): Web Crypto, which Node always has.
      fill = (bytes) => {
        globalThis.crypto.getRandomValues(bytes);
      };
      fill(pool);
    }
    used = 0;
  }
  const b = pool.subarray(used, used + 16);
  used += 16;
  return b;
}

function hexOf(b: Uint8Array): string {
  let id = '';
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) id += '-';
    id += HEX[b[i]!];
  }
  // The bytes handed out are not kept.
  b.fill(0);
  return id;
}

export function newId(): string {
  const b = randomBytes16();
  b[6] = (b[6]! & 0x0f) | 0x40; // version 4
  b[8] = (b[8]! & 0x3f) | 0x80; // the RFC 9562 variant
  return hexOf(b);
}

/**
 * A new id that sorts after those made before it (UUID v7: the time in milliseconds, then random
 * bits), for rows nobody names by the start of their id (those made together would all start
 * alike). Rows added together land on the last page of the id's index rather than each on a page of
 * its own: under 8 clients, random notification ids made 9.5 of the 56 pages each commit wrote to
 * the log (docs/benchmarks.md).
 */
export function newOrderedId(now: number = Date.now()): string {
  const b = randomBytes16();
  let t = Math.max(0, Math.floor(now));
  for (let i = 5; i >= 0; i--) {
    b[i] = t % 256;
    t = Math.floor(t / 256);
  }
  b[6] = (b[6]! & 0x0f) | 0x70; // version 7
  b[8] = (b[8]! & 0x3f) | 0x80; // the RFC 9562 variant
  return hexOf(b);
}
