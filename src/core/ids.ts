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

export function newId(): string {
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
  b[6] = (b[6]! & 0x0f) | 0x40; // version 4
  b[8] = (b[8]! & 0x3f) | 0x80; // the RFC 9562 variant
  let id = '';
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) id += '-';
    id += HEX[b[i]!];
  }
  // The bytes handed out are not kept.
  b.fill(0);
  return id;
}
