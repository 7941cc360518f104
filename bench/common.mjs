// Shared helpers for the benchmarks: temp homes, percentiles, the built library.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

export { stdioServer } from './stdio-client.mjs';

export const lib = await import(new URL('../dist/lib.js', import.meta.url).href);
const TOOLS = await lib.allTools();

export function tempDir(prefix) {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/**
 * A git repository in a fresh temporary folder, as a client meets one: not made this instant. A
 * folder changed within the clock's slack of a session's read of its copy counts as maybe changed
 * after it (src/features/changes/freshness.ts), and every check of a path under it would read each
 * such session's copy again (a git process each: 17-19 checks of 17-27 ms at 10,000 claims, where
 * the 100 seeded sessions read theirs at once).
 */
export function gitRepo() {
  const dir = tempDir('bench-repo-');
  execFileSync('git', ['init', '-q', dir]);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60);
  return dir;
}

/** `git` with a fixed author and committer (a benchmark's commits), its output as text. */
export function git(cwd, ...args) {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'b',
      GIT_AUTHOR_EMAIL: 'b@b',
      GIT_COMMITTER_NAME: 'b',
      GIT_COMMITTER_EMAIL: 'b@b',
    },
  });
}

/**
 * Removes the folders. A machine's server that a run started for one of them (a home's hub.json
 * names it, and its environment names that home) writes there until it exits: it is stopped first.
 */
export function cleanup(...dirs) {
  for (const d of dirs) {
    stopServerOf(d);
    rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  }
}

/** Stops the machine's server of `home`, if one runs for it, and waits up to 5 s for it to exit. */
function stopServerOf(home) {
  const pid = serverOf(home);
  const ours = () => {
    try {
      return readFileSync(`/proc/${pid}/environ`, 'latin1')
        .split('\0')
        .includes(`SESSION_COLLAB_HOME=${home}`);
    } catch {
      return false;
    }
  };
  if (!pid || !ours()) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; waited < 5_000 && ours(); waited += 20) Atomics.wait(pause, 0, 0, 20);
}

export const homePaths = lib.homeAt;

/** docs/benchmarks.md (`doc`) with the section under `heading` replaced by `section` (added at the end if absent). */
export function withSection(doc, heading, section) {
  const start = doc.indexOf(heading);
  if (start === -1) return `${doc.trimEnd()}\n\n${section}`;
  const next = doc.indexOf('\n## ', start + heading.length);
  return `${doc.slice(0, start)}${section}${next === -1 ? '' : `\n${doc.slice(next + 1)}`}`;
}

/**
 * A benchmark over fetched repositories run as a command, `node bench/<script> [--record] <git
 * dir>...`: `measure` over them, `print` what it found, and with `--record` its section of
 * docs/benchmarks.md (`heading`) rewritten from `section`.
 */
export async function repositoriesCommand({ script, examples, measure, print, heading, section }) {
  const record = process.argv.includes('--record');
  const repos = process.argv.slice(2).filter((a) => a !== '--record');
  if (repos.length === 0) {
    process.stderr.write(
      `Usage: node bench/${script} [--record] <git dir or worktree>...\n  e.g. clones of ${examples}\n`,
    );
    process.exit(2);
  }
  const result = await measure(repos, (s) => process.stderr.write(`${s}\n`));
  print(result);
  if (record) {
    const file = new URL('../docs/benchmarks.md', import.meta.url);
    writeFileSync(file, withSection(readFileSync(file, 'utf8'), heading, section(result)));
    process.stderr.write(`docs/benchmarks.md: its section "${heading.replace(/^## /, '')}" updated.\n`);
  }
}

/** The `## ` sections of a markdown document, each with its heading, in order (what precedes the first left out). */
export function sectionsOf(doc) {
  return doc
    .split(/\n(?=## )/)
    .filter((part) => part.startsWith('## '))
    .map((part) => `${part.trimEnd()}\n`);
}

export function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return percentile(s, 50);
}

/** A tool call through the same path as a served request (validation, service, output schema). */
export async function tool(app, connection, name, args) {
  const d = TOOLS.find((t) => t.name === name);
  const result = await lib.callTool(app, connection, d, args);
  if (result.isError) throw new Error(`${name}: ${result.content[0].text}`);
  return result.structuredContent;
}

/** One bare `node -e 0` spawn, in ms: Node's own start on this machine, right now. */
export function bareNode() {
  const t = performance.now();
  execFileSync(process.execPath, ['-e', '0']);
  return performance.now() - t;
}

/** A process's memory in MiB: `pss` (its private pages and its share of shared ones) or `rss`. */
export function memoryMb(pid, which = 'pss') {
  try {
    const text =
      which === 'pss'
        ? readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')
        : readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = (which === 'pss' ? /^Pss:\s+(\d+)/m : /^VmRSS:\s+(\d+)/m).exec(text);
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** The pid of the machine's server of `home` (hub.json), or null. */
export function serverOf(home) {
  try {
    return JSON.parse(readFileSync(join(home, 'hub.json'), 'utf8')).pid;
  } catch {
    return null;
  }
}

/** The machine's load averages (1, 5, 15 minutes), for the record. */
export function load() {
  return loadavg().map((n) => n.toFixed(2));
}

/** Runs a benchmark worker (a node script) in its own process; resolves with the JSON it prints. */
export function runWorker(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args);
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(err))));
  });
}
