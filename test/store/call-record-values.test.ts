// What a recorded write returned, kept as text (store/call-records-store.ts): JSON where JSON says
// it exactly, node:v8's serialization otherwise; either way, read back as node:v8 would read it.
import { deserialize, serialize } from 'node:v8';
import { expect, it } from 'vitest';
import { decodeValue, encodeValue } from '../../src/store/call-records-store.js';

const asV8 = (value: unknown) => deserialize(serialize(value));

it('keeps plain data as JSON, and reads back what node:v8 would', () => {
  const values: unknown[] = [
    { claim_id: 'c1', status: 'created', files: ['a.ts', 'b.ts'], conflicts: [], expires_at: null },
    [1, 'two', true, null, { nested: [[], {}] }],
    'text with "quotes", \\ and \u2028 and a lone \ud800',
    0,
    -12.5,
    Object.assign(Object.create(null) as object, { bare: 1 }),
    { __proto__: null, 'weird key': { '': 0 } },
    JSON.parse('{"__proto__": {"own": true}}'),
    { toJSON: 'not a function: a key like any other' },
  ];
  for (const value of values) {
    const text = encodeValue(value);
    expect(text.startsWith('j:'), JSON.stringify(value)).toBe(true);
    expect(decodeValue(text)).toStrictEqual(asV8(value));
  }
  expect(encodeValue(undefined)).toBe('u:');
  expect(decodeValue('u:')).toBeUndefined();
});

it('keeps what JSON would change through node:v8, exactly', () => {
  const holey = [1, 2, 3];
  delete holey[1];
  const keyed = Object.assign([1, 2], { extra: 'x' });
  const values: unknown[] = [
    { at: new Date(0) },
    { missing: undefined },
    [undefined],
    holey,
    keyed,
    -0,
    Number.NaN,
    { big: 10n },
    new Map([['k', 1]]),
    new Set(['a']),
    { value: Number.POSITIVE_INFINITY },
    new Uint8Array([1, 2]),
  ];
  for (const value of values) {
    const text = encodeValue(value);
    expect(text.includes(':'), String(text)).toBe(false);
    expect(decodeValue(text)).toStrictEqual(asV8(value));
  }
  // A function (a `toJSON` too) is kept by neither: that write is not recorded (it runs again).
  expect(() => encodeValue({ toJSON: () => 'JSON would call it' })).toThrow();
  // A class instance: node:v8 keeps its fields as a plain object, and so is it read back.
  class Row {
    id = 'r';
  }
  expect(encodeValue(new Row()).startsWith('j:')).toBe(false);
  expect(decodeValue(encodeValue(new Row()))).toStrictEqual(asV8(new Row()));
});

it('reads the records an earlier version kept (node:v8 in base64)', () => {
  const value = { claim_id: 'c1', files: ['a.ts'] };
  expect(decodeValue(serialize(value).toString('base64'))).toStrictEqual(value);
});

it('a value deeper than it reads as plain data goes through node:v8', () => {
  let deep: unknown = 'leaf';
  for (let i = 0; i < 40; i++) deep = { d: deep };
  const text = encodeValue(deep);
  expect(text.startsWith('j:')).toBe(false);
  expect(decodeValue(text)).toStrictEqual(deep);
});
