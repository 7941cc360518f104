/**
 * Every tool's listed schema, one file per tool in __toolsnaps__/, so that a schema change shows
 * in review as a change to that tool's file. A missing or different snapshot fails; after a
 * deliberate change, `npm run toolsnaps` rewrites them.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { allTools } from '../../src/mcp/registry.js';
import { toolDefinitions } from '../../src/mcp/server.js';

const DIR = new URL('./__toolsnaps__/', import.meta.url);
const update = process.env.UPDATE_TOOLSNAPS === '1';
const definitions = toolDefinitions(await allTools());

describe('tool schema snapshots', () => {
  it.each(definitions.map((d) => [d.name, d] as const))('%s', (name, definition) => {
    const file = new URL(`${name}.json`, DIR);
    const text = `${JSON.stringify(definition, null, 2)}\n`;
    if (update) {
      mkdirSync(DIR, { recursive: true });
      writeFileSync(file, text);
      return;
    }
    expect(existsSync(file), `no snapshot for ${name}: run npm run toolsnaps`).toBe(true);
    expect(text, `${name} changed: if deliberate, run npm run toolsnaps`).toBe(readFileSync(file, 'utf8'));
  });

  it('has no snapshot of a tool that no longer exists', () => {
    const names = new Set(definitions.map((d) => `${d.name}.json`));
    const stale = readdirSync(DIR).filter((f) => !names.has(f));
    if (update) for (const f of stale) rmSync(new URL(f, DIR));
    else expect(stale).toEqual([]);
  });
});
