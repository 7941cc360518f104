// A write of a recorded call is known by its place in the code (store/call-records-store.ts), read
// from its function's text without the names the minifier chose. The server (dist/main.cjs), a hub
// (dist/hub.cjs) and a hook (dist/hot.cjs) are minified apart: a call one began and another runs
// again must know each write alike, or it is done twice. Every function given to a `write` in the
// built bundles, read with TypeScript's parser.
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { expect, it } from 'vitest';
import { placeText } from '../../src/store/call-records-store.js';
import { requireBuild } from '../helpers/stdio.js';

/** The functions given to `.write(...)` in a bundle: by their place text, each with its properties in order. */
function writesIn(bundle: string): Map<string, string> {
  const text = readFileSync(new URL(`../../dist/${bundle}`, import.meta.url), 'utf8');
  const source = ts.createSourceFile(bundle, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const writes = new Map<string, string>();
  const visit = (node: ts.Node) => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'write'
    ) {
      const fn = node.arguments[0];
      if (fn && (ts.isArrowFunction(fn) || ts.isFunctionExpression(fn))) {
        const written = text.slice(fn.getStart(source), fn.end);
        writes.set(placeText(written), (written.match(/(?<!\.)\.[A-Za-z_$][\w$]*/g) ?? []).join(''));
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return writes;
}

it('each write the server, a hub and a hook share reads alike in their three bundles', () => {
  requireBuild();
  const server = writesIn('main.cjs');
  const others = { hub: writesIn('hub.cjs'), hook: writesIn('hot.cjs') };
  expect(server.size).toBeGreaterThan(50);
  for (const [name, writes] of Object.entries(others)) {
    expect(writes.size, name).toBeGreaterThan(20);
    // A write whose properties are a server's write's reads as that write.
    const serverByProperties = new Set(server.values());
    const shared = [...writes].filter(([, properties]) => serverByProperties.has(properties));
    expect(shared.length, name).toBeGreaterThan(20);
    expect(
      shared.filter(([place]) => !server.has(place)).map(([place]) => place.slice(0, 200)),
      name,
    ).toEqual([]);
  }
});
