// Bundles the CLI into dist/ with esbuild: one minified file starts much faster than loading the
// SDK's modules one by one, and src/cli/launch.ts runs it through V8's code cache. SQLite is Node's
// own node:sqlite; better-sqlite3, the driver where Node has none (Node 20), stays in node_modules
// and is loaded from there only then (src/store/sqlite-better.ts).
//   dist/cli.cjs   the executable (bin): the launcher
//   dist/main.cjs  the whole CLI; commands load their modules lazily
//   dist/hot.cjs   the commands that run on every edit or commit (hook, guard check), on their own
//   dist/relay.cjs `serve` as clients spawn it: the relay to the machine's server
//   dist/hub.cjs   the hub's commands (hub, dashboard, token), required by main.cjs when one runs
//   dist/lib.js    the application as a library (benchmarks)
//   dist/tool-definitions.json  every tool's listed schema, for `serve` to read instead of building
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/**
 * zod re-exports every message locale (`z.locales`, ~260 kB minified); we only ever use English,
 * which zod configures itself. Loading the other fifty languages costs start-up time on every
 * spawn of `serve`, so the bundle's locale index holds English only.
 */
const englishOnlyZodLocales = {
  name: 'english-only-zod-locales',
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) => {
      if (!args.importer.includes(join('node_modules', 'zod'))) return undefined;
      return { path: join(dirname(args.importer), '..', 'locales', 'index.js'), namespace: 'zod-locales' };
    });
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(join(dirname(args.path), 'en.js'))};`,
      resolveDir: dirname(args.path),
    }));
  },
};

/**
 * The hub's commands (src/cli/hub.ts: the HTTP server, Hono, the dashboard) go in a bundle of their
 * own, dist/hub.cjs, which main.cjs requires when one of them runs: every spawn of `serve` reads
 * main.cjs, and should not pay for the hub's code.
 */
const hubApart = {
  name: 'hub-apart',
  setup(b) {
    b.onResolve({ filter: /^\.\/hub\.js$/ }, (args) =>
      args.importer.endsWith(join('src', 'cli', 'main.ts'))
        ? { path: './hub.cjs', external: true }
        : undefined,
    );
  },
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  // grammY (loaded only when a Telegram bot is configured) stays in node_modules: minified, the
  // class names node-fetch checks its abort signal by are lost.
  // pg (team mode) likewise: loaded from node_modules only when a database URL is set. And Kysely,
  // loaded only when a portable migration is compiled (src/store/migrations/portable.ts).
  external: ['grammy', 'pg', 'kysely'],
  define: { __VERSION__: JSON.stringify(pkg.version) },
  // BUILD_MINIFY=0 keeps names and lines, for a CPU profile (bench/README: profiling).
  minify: process.env.BUILD_MINIFY !== '0',
  legalComments: 'none',
  logLevel: 'warning',
  // ES modules first: jsonc-parser's CommonJS build is a UMD that requires its parts at run time,
  // which a bundle cannot follow.
  mainFields: ['module', 'main'],
  plugins: [englishOnlyZodLocales],
};

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await Promise.all([
  build({
    ...common,
    entryPoints: ['src/cli/launch.ts'],
    outfile: 'dist/cli.cjs',
    format: 'cjs',
    banner: { js: '#!/usr/bin/env node' },
  }),
  build({
    ...common,
    entryPoints: ['src/cli/main.ts'],
    outfile: 'dist/main.cjs',
    format: 'cjs',
    plugins: [...common.plugins, hubApart],
  }),
  build({ ...common, entryPoints: ['src/cli/hub.ts'], outfile: 'dist/hub.cjs', format: 'cjs' }),
  build({ ...common, entryPoints: ['src/cli/hot-main.ts'], outfile: 'dist/hot.cjs', format: 'cjs' }),
  // A hook's first step: asks the machine's server, else hands over to dist/hot.cjs.
  build({ ...common, entryPoints: ['src/cli/hook-first.ts'], outfile: 'dist/hook.cjs', format: 'cjs' }),
  build({ ...common, entryPoints: ['src/cli/relay-main.ts'], outfile: 'dist/relay.cjs', format: 'cjs' }),
  // The process a long-lived server starts its programs from (src/integrations/spawner.ts).
  build({
    ...common,
    entryPoints: ['src/integrations/spawner-process.ts'],
    outfile: 'dist/spawner.cjs',
    format: 'cjs',
  }),
  // The thread a long-lived server checkpoints its SQLite file on (src/store/checkpoints.ts).
  build({
    ...common,
    entryPoints: ['src/store/checkpoint-worker.ts'],
    outfile: 'dist/checkpointer.cjs',
    format: 'cjs',
  }),
  build({
    ...common,
    entryPoints: ['src/lib.ts'],
    outfile: 'dist/lib.js',
    format: 'esm',
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; import { fileURLToPath as __fileURLToPath } from 'node:url'; const require = __createRequire(import.meta.url); const __filename = __fileURLToPath(import.meta.url);",
    },
  }),
]);
chmodSync('dist/cli.cjs', 0o755);
// The launcher reads the bundles as latin1 (src/cli/launch.ts): they must hold ASCII only.
// (A build for a profile keeps comments, some of them not ASCII: it is not for the launcher's speed.)
for (const file of common.minify
  ? ['dist/main.cjs', 'dist/hot.cjs', 'dist/hook.cjs', 'dist/relay.cjs']
  : []) {
  const at = readFileSync(file).findIndex((byte) => byte > 0x7f);
  if (at !== -1) throw new Error(`${file} holds a non-ASCII byte at ${at}: the launcher reads it as latin1`);
}

// Every tool's listed schema, worked out once here rather than by each `serve` at start (building
// JSON Schema from zod is the largest part of a first tools/list). `serve` reads this file when it
// runs from dist/; from source it computes them.
const lib = await import(new URL('../dist/lib.js', import.meta.url).href);
const definitions = Object.fromEntries(lib.toolDefinitions(await lib.allTools()).map((d) => [d.name, d]));
writeFileSync(new URL('../dist/tool-definitions.json', import.meta.url), JSON.stringify(definitions));
