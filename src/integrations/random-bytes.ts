import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { useRandomSource } from '../core/ids.js';

/**
 * Fills `bytes` from the system's random device (/dev/urandom): what Web Crypto reads too, without
 * the ~4 ms Node spends loading it in a short process. Throws where there is none, or where that
 * path is not a character device (a file put there would make ids repeat and be known): core/ids.ts
 * then uses Web Crypto.
 */
export function systemRandomBytes(bytes: Uint8Array, device = '/dev/urandom'): void {
  const fd = openSync(device, 'r');
  try {
    if (!fstatSync(fd).isCharacterDevice()) throw new Error(`${device} is not a character device`);
    let at = 0;
    while (at < bytes.length) {
      const n = readSync(fd, bytes, at, bytes.length - at, null);
      if (n <= 0) throw new Error('the random device gave no bytes');
      at += n;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * New ids of this process from the system's random device (`systemRandomBytes`). Windows has no
 * random device (a file at that path could be anyone's): Web Crypto there.
 */
export function useSystemRandom(): void {
  if (process.platform !== 'win32') useRandomSource(systemRandomBytes);
}
