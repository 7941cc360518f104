/**
 * New row ids (UUID v4). Through the global Web Crypto object, which Node loads on first use:
 * the hook that runs on every edit usually creates nothing and should not pay for `node:crypto`.
 */
export function newId(): string {
  return globalThis.crypto.randomUUID();
}
