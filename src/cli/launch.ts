/**
 * The `session-collab` executable. It picks the bundle for the command (dist/relay.cjs for `serve`,
 * dist/hot.cjs for the commands that run on every edit or commit, dist/main.cjs for the rest) and runs it through V8's
 * code cache: compiling a bundle is a large part of a short process's life, and `serve` is spawned
 * once per client session, a hook once per edit. The code cache is saved in the home folder when a
 * process of the kind that matters exits (so that the code it ran is compiled in it too) and
 * reused by later ones; a missing, stale or rejected cache only costs that time back. The relay
 * (18 KB) runs without one: it compiles in less time than loading what a cache needs (node:vm,
 * node:zlib) and checking it takes (its cold start 4–9 ms less CPU, measured with `perf stat`).
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { join } from 'node:path';
import type { Script } from 'node:vm';
import { resolveHome } from '../app/home.js';
import { cacheChecksum } from './code-cache-checksum.js';

const command = process.argv[2];
const first =
  command === 'serve'
    ? 'relay'
    : command === 'hook' && !['--help', '-h', undefined].includes(process.argv[3])
      ? 'hook'
      : command === 'guard' && process.argv[3] === 'check'
        ? 'hot'
        : 'main';

/**
 * Runs the bundle `name` (dist/<name>.cjs) through its code cache. A bundle may run another in
 * the same process (the hook's first step hands over to the whole hook) through the global
 * `Symbol.for('session-collab.run-bundle')`.
 */
function run(name: string): void {
  const bundle = join(__dirname, `${name}.cjs`);
  if (name === 'relay') {
    require(bundle);
    return;
  }
  // The bundles are ASCII (esbuild escapes the rest; scripts/build.mjs checks it), so reading them
  // as latin1 gives the same text without decoding UTF-8: a few ms of every start.
  const source = readFileSync(bundle, 'latin1');
  const { size, mtimeMs } = statSync(bundle);
  const cacheDir = join(resolveHome().home, 'cache');
  const tag = `${process.version}-${process.arch}-${size}-${Math.round(mtimeMs)}`;
  const cacheFile = join(cacheDir, `${name}-${tag}.v8cache`);

  /**
   * The cache file is a checksum of V8's data (16 bytes) followed by the data: V8 does not check the
   * data itself, and damaged data can crash the process. A file that fails the check is
   * deleted. A process that loads a cache leaves a marker until it has run the bundle's top level;
   * a marker left by a process that is gone means loading crashed it: that cache is not used again.
   */
  const marker = `${cacheFile}.loading-${process.pid}`;
  let cached: Buffer | undefined;
  try {
    if (crashedBefore()) rmSync(cacheFile, { force: true });
    const file = readFileSync(cacheFile);
    const data = file.subarray(16);
    if (file.length > 16 && cacheChecksum(data).equals(file.subarray(0, 16))) {
      cached = data;
      writeFileSync(marker, '');
    } else rmSync(cacheFile, { force: true });
  } catch {
    cached = undefined;
  }
  const { Script: VmScript } = Module.createRequire(__filename)('node:vm') as { Script: typeof Script };
  const script = new VmScript(Module.wrap(source), {
    filename: bundle,
    ...(cached ? { cachedData: cached } : {}),
  });

  if (name !== 'main' && (!cached || script.cachedDataRejected)) {
    process.once('exit', () => {
      try {
        mkdirSync(cacheDir, { recursive: true });
        const tmp = `${cacheFile}.${process.pid}.tmp`;
        const data = script.createCachedData();
        writeFileSync(tmp, Buffer.concat([cacheChecksum(data), data]));
        renameSync(tmp, cacheFile); // atomic: many processes may race
        // Caches of other builds or Node versions of this bundle are dead weight.
        for (const file of readdirSync(cacheDir)) {
          if (file.startsWith(`${name}-`) && !file.startsWith(`${name}-${tag}.v8cache`)) {
            rmSync(join(cacheDir, file), { force: true });
          }
        }
      } catch {
        // Best effort: without a cache the next start is only slower.
      }
    });
  }

  /** Whether a process that loaded this cache died while loading it (its marker is still there). */
  function crashedBefore(): boolean {
    const prefix = `${name}-${tag}.v8cache.loading-`;
    let crashed = false;
    for (const file of readdirSync(cacheDir)) {
      if (!file.startsWith(prefix)) continue;
      const pid = Number(file.slice(prefix.length));
      try {
        process.kill(pid, 0);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ESRCH') {
          crashed = true;
          rmSync(join(cacheDir, file), { force: true });
        }
      }
    }
    return crashed;
  }

  const main = new Module(bundle, module);
  main.filename = bundle;
  main.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(__dirname);
  script.runInThisContext()(main.exports, Module.createRequire(bundle), main, bundle, __dirname);
  if (cached) rmSync(marker, { force: true });
}

(globalThis as Record<symbol, unknown>)[Symbol.for('session-collab.run-bundle')] = run;
run(first);
