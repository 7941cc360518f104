import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newId, newOrderedId, useRandomSource } from '../../src/core/ids.js';
import { systemRandomBytes } from '../../src/integrations/random-bytes.js';
import { tempDir } from '../helpers/temp.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
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

describe('newOrderedId', () => {
  afterEach(() => useRandomSource(webCrypto));

  it('gives UUID v7 ids that start with the time in milliseconds and sort in the order of their times', () => {
    useRandomSource((bytes) => bytes.fill(0xff));
    // The first 48 bits are the time; then the version, the variant and random bits.
    const at = Date.parse('2026-11-29T04:20:00.000Z');
    const id = newOrderedId(at);
    expect(id).toMatch(UUID_V7);
    expect(Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16)).toBe(at);
    expect(id.slice(14)).toBe('7fff-bfff-ffffffffffff');
    useRandomSource(webCrypto);
    const times = [at - 86_400_000, at - 1, at, at + 1, at + 3_600_000, 2 ** 47];
    const ids = times.map((t) => newOrderedId(t));
    for (const made of ids) expect(made).toMatch(UUID_V7);
    expect([...ids].sort()).toEqual(ids);
  });

  it('differs within one millisecond (random bits after the time)', () => {
    const ids = Array.from({ length: 2_000 }, () => newOrderedId(1_000));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id.startsWith('00000000-03e8-7')).toBe(true);
  });
});
