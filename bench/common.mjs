// Shared helpers for the benchmarks: temp homes, percentiles, the built library.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const lib = await import(new URL('../dist/lib.js', import.meta.url).href);
const TOOLS = await lib.allTools();

export function tempDir(prefix) {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

export function cleanup(...dirs) {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

export const homePaths = lib.homeAt;

export function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return percentile(s, 50);
}

/** A tool call through the same path as a served request (validation, service, output schema). */
export function tool(app, connection, name, args) {
  const d = TOOLS.find((t) => t.name === name);
  const result = lib.callTool(app, connection, d, args);
  if (result.isError) throw new Error(`${name}: ${result.content[0].text}`);
  return result.structuredContent;
}
