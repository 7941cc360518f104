import { createRequire } from 'node:module';

let crypto: typeof import('node:crypto') | undefined;

/**
 * A hash, with node:crypto loaded on first use: loading it costs a hook process about 2 ms (fifteen
 * internal modules), and the code that runs on every edit never hashes.
 */
export function newHash(algorithm: 'sha1' | 'sha256'): import('node:crypto').Hash {
  crypto ??= createRequire(__filename)('node:crypto') as typeof import('node:crypto');
  return crypto.createHash(algorithm);
}

/** A text's hash in hex, in one call (node:crypto's one-shot `hash`: no Hash object to make). */
export function hashHex(algorithm: 'sha1' | 'sha256', text: string): string {
  crypto ??= createRequire(__filename)('node:crypto') as typeof import('node:crypto');
  return crypto.hash(algorithm, text, 'hex');
}
