// Checks the layer rules (docs/architecture.md, "Where a change goes"): which src/ folders each folder may import, and that
// only mcp/, http/ and cli/ import the MCP SDK. Exits 1 and names every violation.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const SRC = resolve('src');

/** Folder → folders it may import from (besides itself). */
const ALLOWED = {
  core: [],
  store: ['core'],
  integrations: ['core'],
  app: ['core', 'store', 'integrations', 'features'],
  // Services see the app only through its leaves: the context they are built on, and settings.
  features: [
    'core',
    'store',
    'integrations',
    'app/context.ts',
    'app/config.ts',
    'app/telegram-config.ts',
    'app/home.ts',
    'app/log.ts',
  ],
  mcp: ['core', 'integrations', 'app', 'features'],
  http: ['core', 'app', 'features', 'mcp'],
  cli: ['core', 'integrations', 'app', 'features', 'mcp', 'http'],
  'lib.ts': ['app', 'features', 'mcp', 'integrations', 'core', 'store/sqlite.ts'],
};
const SDK_ALLOWED = new Set(['mcp', 'http', 'cli']);
/** core/ is pure: no I/O, no database, no SDK. */
const CORE_FORBIDDEN =
  /^(node:)?(fs|child_process|net|http|https|os|worker_threads)(\/|$)|^better-sqlite3$|^node:sqlite$|^@modelcontextprotocol\//;

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const topOf = (path) => relative(SRC, path).split(sep)[0];
const problems = [];
/**
 * The store is reached through services only: tool modules, the MCP layer and commands get
 * services (features/tool-context.ts `Services`), never `.store.`.
 */
const noStore = (file) => ['mcp', 'cli', 'http', 'lib.ts'].includes(topOf(file)) || /-tools\.ts$/.test(file);
for (const file of files(SRC)) {
  const from = topOf(file);
  const source = readFileSync(file, 'utf8');
  if (noStore(file)) {
    for (const [i, line] of source.split('\n').entries())
      if (/\.store\./.test(line))
        problems.push(
          `${relative(process.cwd(), file)}:${i + 1}: reaches the store (.store.); call a service instead`,
        );
  }
  for (const match of source.matchAll(
    /\b(?:import|export)\s+(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  )) {
    const spec = match[1] ?? match[2];
    const where = relative(process.cwd(), file);
    if (spec.startsWith('@modelcontextprotocol/') && !SDK_ALLOWED.has(from)) {
      problems.push(`${where}: imports the MCP SDK (${spec}); only mcp/, http/ and cli/ may`);
    }
    if (from === 'core' && CORE_FORBIDDEN.test(spec))
      problems.push(`${where}: core/ must stay pure but imports ${spec}`);
    if (!spec.startsWith('.')) continue;
    const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
    const to = topOf(target);
    if (to === from) continue;
    const rel = relative(SRC, target).split(sep).join('/');
    const allowed = ALLOWED[from] ?? [];
    if (!allowed.some((a) => a === to || a === rel))
      problems.push(`${where}: ${from}/ may not import ${rel}`);
  }
}
// The commands that run on every edit or commit (dist/hot.cjs) and the relay clients spawn
// (dist/relay.cjs) must stay light: nothing they import, directly or not, may load the MCP SDK,
// zod, commander or the mcp/ layer.
const HOT_ENTRIES = [resolve(SRC, 'cli', 'hot-main.ts'), resolve(SRC, 'cli', 'relay-main.ts')];
const HEAVY = /^(@modelcontextprotocol\/|zod$|zod\/|commander$)/;
const seen = new Set();
const stack = HOT_ENTRIES.map((entry) => [entry, [relative(SRC, entry)]]);
while (stack.length > 0) {
  const [file, chain] = stack.pop();
  if (seen.has(file)) continue;
  seen.add(file);
  const source = readFileSync(file, 'utf8');
  for (const match of source.matchAll(
    /\bimport\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|\bexport\s+(?!type\b)[^'";]*?\sfrom\s+['"]([^'"]+)['"]/g,
  )) {
    const spec = match[1] ?? match[2];
    if (HEAVY.test(spec)) problems.push(`hot path ${chain.join(' → ')} imports ${spec}`);
    if (!spec.startsWith('.')) continue;
    const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
    if (topOf(target) === 'mcp')
      problems.push(`hot path ${chain.join(' → ')} imports ${relative(SRC, target)}`);
    stack.push([target, [...chain, relative(SRC, target)]]);
  }
}

if (problems.length > 0) {
  console.error(`Layer rules (docs/architecture.md) broken:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  process.exit(1);
}
console.log('Layer rules hold.');
