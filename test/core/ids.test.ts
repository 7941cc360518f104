import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newId, useRandomSource } from '../../src/core/ids.js';
import { systemRandomBytes } from '../../src/integrations/random-bytes.js';
import { tempDir } from '../helpers/temp.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const webCrypto = (bytes: Uint8Array) => {
  globalThis.crypto.getRandomValues(bytes);
};

describe('newId', () => {
  afterEach(() => useRandomSource(webCrypto));

  it('gives distinct UUID v4 ids from the system random device, across many pool refills', () => {
    useRandomSource(systemRandomBytes);
    const ids = Array.from({ length: 5_000 }, () => newId());
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('takes its bytes from the source set, setting the version and variant bits', () => {
    useRandomSource((bytes) => bytes.fill(0xff));
    expect(newId()).toBe('ffffffff-ffff-4fff-bfff-ffffffffffff');
    useRandomSource((bytes) => bytes.fill(0));
    expect(newId()).toBe('00000000-0000-4000-8000-000000000000');
  });

  it('falls back to Web Crypto when the source fails', () => {
    let asked = 0;
    useRandomSource(() => {
      asked++;
      throw new Error('no random device');
    });
    const ids = [newId(), newId()];
    expect(asked).toBe(1);
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(ids[0]).not.toBe(ids[1]);
  });

  it('refuses a random device that is a plain file (its ids would repeat and be known): Web Crypto then', () => {
    const file = join(tempDir('collab-ids-'), 'urandom');
    writeFileSync(file, Buffer.alloc(64, 7));
    expect(() => systemRandomBytes(new Uint8Array(16), file)).toThrow(/not a character device/);
    useRandomSource((bytes) => systemRandomBytes(bytes, file));
    const ids = Array.from({ length: 600 }, () => newId());
    expect(new Set(ids).size).toBe(600);
  });
});
