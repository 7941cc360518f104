import { closeSync, openSync, readSync } from 'node:fs';

/**
 * Fills `bytes` from the system's random device (/dev/urandom): what Web Crypto reads too, without
 * the ~4 ms Node spends loading it in a short process. Throws where there is none (Windows), and
 * core/ids.ts then uses Web Crypto.
 */
export function systemRandomBytes(bytes: Uint8Array): void {
  const fd = openSync('/dev/urandom', 'r');
  try {
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
