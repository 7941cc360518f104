// A write of a recorded call is known by its function's text without the names a minifier
// chooses, so that the server's bundle, a hub's and a hook's (minified apart) know one write alike.
import { expect, it } from 'vitest';
import { placeText } from '../../src/store/call-records-store.js';

it('the same code minified apart reads alike; a property, a string or a shape apart does not', () => {
  // One closure as two bundles minified it (seen in dist/main.cjs and dist/hub.cjs).
  const main =
    'async()=>{let a=await e.messages.inboxOf(s,!0,r);return await e.messages.markRead(a.map(m=>m.id),s.id,i,n),a}';
  const hub =
    'async()=>{let c=await t.messages.inboxOf(o,!0,l);return await t.messages.markRead(c.map(p=>p.id),o.id,u,f),c}';
  expect(placeText(main)).toBe(placeText(hub));
  expect(placeText(main)).toContain('.markRead(');
  expect(placeText(main.replace('markRead', 'markSeen'))).not.toBe(placeText(hub));
  expect(placeText('()=>e.run("DELETE FROM a",[t])')).not.toBe(placeText('()=>e.run("DELETE FROM b",[t])'));
  expect(placeText('()=>e.run(t)')).not.toBe(placeText('()=>e.run(t,n)'));
  // Spread names, templates and their expressions, quotes inside them, private names. (The texts
  // are functions as a bundle holds them: their `${` is the template's.)
  const tick = '`';
  const template = (a: string, b: string, f: string, p: string) =>
    `(...${a})=>${f}(...${a},${tick}it's \${${a}.id} of \${${b}}${tick},this.#${p})`;
  expect(placeText(template('a', 'b', 'f', 'e'))).toBe(placeText(template('q', 'z', 'g', 't')));
  expect(placeText(`()=>${tick}\${a.id}${tick}`)).not.toBe(placeText(`()=>${tick}\${a.name}${tick}`));
  // A name a minifier may choose though JavaScript knows the word (`of`, `async`), in one bundle
  // and not the other; objects' keys (never renamed) kept; a division after `++`.
  expect(placeText('()=>!of(t)&&e.get(t)')).toBe(placeText('()=>!r(n)&&o.get(n)'));
  expect(placeText('()=>e.put({a:t})')).not.toBe(placeText('()=>e.put({b:t})'));
  expect(placeText('()=>e.put(n?t:r,{a:t})')).toBe(placeText('()=>o.put(u?s:l,{a:s})'));
  expect(placeText("()=>{i++/2;return e.get('x')}")).toBe(placeText("()=>{n++/2;return t.get('x')}"));
  // Numbers and keywords stay.
  expect(placeText('()=>a?1e3:void 0')).toBe('()=>_?1e3:void 0');
});
