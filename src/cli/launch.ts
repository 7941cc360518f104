/**
 * The `session-collab` executable. It runs the bundled CLI (dist/main.cjs) through V8's code cache:
 * `serve` is spawned once per client session, and compiling the bundle (MCP SDK and zod included)
 * is half of its start-up time. The first `serve` to exit saves the compiled code in the home
 * folder; later starts reuse it. A missing, stale or rejected cache only costs that time back.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { resolveHome } from '../app/home.js';

const bundle = join(__dirname, 'main.cjs');
const source = readFileSync(bundle, 'utf8');
const { size, mtimeMs } = statSync(bundle);
const cacheDir = join(resolveHome().home, 'cache');
const cacheFile = join(
  cacheDir,
  `main-${process.version}-${process.arch}-${size}-${Math.round(mtimeMs)}.v8cache`,
);

let cached: Buffer | undefined;
try {
  cached = readFileSync(cacheFile);
} catch {
  cached = undefined;
}
const script = new Script(Module.wrap(source), {
  filename: bundle,
  ...(cached ? { cachedData: cached } : {}),
});

if (process.argv[2] === 'serve' && (!cached || script.cachedDataRejected)) {
  // Saved at exit, so that the code `serve` ran is compiled in it too. Atomic: many may race.
  process.once('exit', () => {
    try {
      mkdirSync(cacheDir, { recursive: true });
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      writeFileSync(tmp, script.createCachedData());
      renameSync(tmp, cacheFile);
      // Caches of other builds or Node versions are dead weight.
      for (const name of readdirSync(cacheDir)) {
        if (name.endsWith('.v8cache') && join(cacheDir, name) !== cacheFile)
          rmSync(join(cacheDir, name), { force: true });
      }
    } catch {
      // Best effort: without a cache the next start is only slower.
    }
  });
}

const main = new Module(bundle, module);
main.filename = bundle;
main.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(__dirname);
script.runInThisContext()(main.exports, Module.createRequire(bundle), main, bundle, __dirname);
