// A write of a recorded call is known by its place in the code (store/call-records-store.ts), read
// from its function's text without the names the minifier chose. The server (dist/main.cjs), a hub
// (dist/hub.cjs) and a hook (dist/hot.cjs) are minified apart: a call one began and another runs
// again must know each write alike, or it is done twice. Every function of the built bundles, read
// with TypeScript's parser: one the server's bundle and another share (the same properties and
// strings, in the same order, once in each) reads alike in both.
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { expect, it } from 'vitest';
import { placeText } from '../../src/store/call-records-store.js';
import { requireBuild } from '../helpers/stdio.js';

/** What no minifier changes in a function: its properties and its strings, in order. */
function signature(fn: ts.Node): string {
  const parts: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAccessExpression(node)) parts.push(`.${node.name.text}`);
    else if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))
      parts.push(JSON.stringify(node.text));
    else if (ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node))
      parts.push(JSON.stringify(node.text));
    ts.forEachChild(node, visit);
  };
  visit(fn);
  return parts.join(' ');
}

/** A bundle's functions (not its modules' wrappers) with four properties or more, by signature, those found once. */
function functionsIn(bundle: string): Map<string, string> {
  const text = readFileSync(new URL(`../../dist/${bundle}`, import.meta.url), 'utf8');
  const source = ts.createSourceFile(bundle, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const found = new Map<string, string[]>();
  const visit = (node: ts.Node) => {
    if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
      const written = text.slice(node.getStart(source), node.end);
      const key = signature(node);
      if (written.length < 4_000 && !written.includes('"use strict"') && key.split(' .').length > 4)
        found.set(key, [...(found.get(key) ?? []), written]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return new Map([...found].filter(([, all]) => all.length === 1).map(([key, [one]]) => [key, one!]));
}

it('each function the server, a hub and a hook share reads alike in their bundles', () => {
  requireBuild();
  const server = functionsIn('main.cjs');
  expect(server.size).toBeGreaterThan(500);
  for (const [name, bundle] of [
    ['hub', 'hub.cjs'],
    ['hook', 'hot.cjs'],
  ] as const) {
    const shared = [...functionsIn(bundle)].filter(([key]) => server.has(key));
    expect(shared.length, name).toBeGreaterThan(50);
    // `delivering`'s write (inbox-service.ts), passed to the store as a value, among them.
    expect(
      shared.some(([key]) => key.includes('.markRead') && key.includes('.claimWaits')),
      name,
    ).toBe(true);
    expect(
      shared
        .filter(([key, text]) => placeText(text) !== placeText(server.get(key)!))
        .map(([, text]) => text.slice(0, 200)),
      name,
    ).toEqual([]);
  }
});
