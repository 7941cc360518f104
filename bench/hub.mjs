// The hub over HTTP: N client processes, each with its own MCP session on one hub, loop
// claim → check → release for 5 s after a warm-up (bench/warm-up.mjs); throughput and per-call
// p50/p99, beside the same loop of N clients over stdio (each with its own server) in the same run.
// Rate limits are lifted in the bench's home (config hub.requests_per_second), since every client
// here is one agent at full speed.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanup, gitRepo, percentile, runWorker, tempDir } from './common.mjs';
import { CLI } from './servers.mjs';
import { WARM_MS } from './warm-up.mjs';

const ECHO_SERVER = fileURLToPath(new URL('./http-echo-server.mjs', import.meta.url));
const HTTP_CLIENT = fileURLToPath(new URL('./http-client-worker.mjs', import.meta.url));
const STDIO_CLIENT = fileURLToPath(new URL('./client-worker.mjs', import.meta.url));

export function startHub(home, echo = false, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      echo ? [ECHO_SERVER] : [CLI, 'hub', '--listen', '127.0.0.1:0', '--toolsets', 'collab', '--json'],
      {
        env: { ...process.env, SESSION_COLLAB_HOME: home, ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
        detached: process.env.HUB_SETSID === '1',
      },
    );
    child.stdout.once('data', (d) => resolve({ child, ...JSON.parse(String(d).split('\n')[0]) }));
    child.once('exit', (code) => reject(new Error(`hub exited (${code})`)));
  });
}

const summary = (results, seconds) => {
  const latencies = results.flatMap((r) => r.latencies ?? []).sort((a, b) => a - b);
  const errors = {};
  for (const r of results) for (const [k, v] of Object.entries(r.errors)) errors[k] = (errors[k] ?? 0) + v;
  const ids = results.flatMap((r) => r.ids);
  return {
    opsPerSecond: (results.reduce((n, r) => n + r.cycles, 0) * 3) / seconds,
    p50: latencies.length ? percentile(latencies, 50) : null,
    p99: latencies.length ? percentile(latencies, 99) : null,
    errors,
    duplicates: ids.length - new Set(ids).size,
  };
};

/** A home for a hub whose per-agent rate limit is lifted (each client here is one agent at full speed). */
function unlimitedHome(prefix) {
  const home = tempDir(prefix);
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({ hub: { requests_per_second: 100000, burst: 100000 } }),
  );
  return home;
}

/**
 * `clients` HTTP client processes, split in turn across the MCP endpoints `urls` and the project
 * folders `repos`, starting together in 2 s and looping for `seconds`; `mode` is 'mcp', or 'echo'
 * for the bare echo server.
 */
async function httpClients(urls, repos, clients, seconds, mode) {
  const start = Date.now() + 2000 + WARM_MS;
  const deadline = start + seconds * 1000;
  const results = await Promise.all(
    Array.from({ length: clients }, (_, i) =>
      runWorker([
        HTTP_CLIENT,
        urls[i % urls.length],
        repos[i % repos.length],
        String(i),
        String(start),
        String(deadline),
        mode,
      ]),
    ),
  );
  return summary(results, seconds);
}

export async function stopHub(hub) {
  hub.child.kill('SIGTERM');
  await new Promise((r) => hub.child.once('exit', r));
}

/**
 * One round over HTTP: `clients` processes on one hub for `seconds` (with `echo`, on a bare Hono
 * server that echoes each request: the floor of HTTP on this machine).
 */
export async function hubRound(clients = 8, seconds = 5, echo = false) {
  const home = unlimitedHome('bench-hub-');
  const repo = gitRepo();
  const hub = await startHub(home, echo);
  try {
    return await httpClients([hub.mcp], [repo], clients, seconds, echo ? 'echo' : 'mcp');
  } finally {
    await stopHub(hub);
    cleanup(home, repo);
  }
}

/** The PostgreSQL the tests use (trust auth); override with SESSION_COLLAB_TEST_PG_URL. */
const PG_URL = process.env.SESSION_COLLAB_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A fresh database on it for one round, and a function that drops it; null without PostgreSQL. */
export async function freshDatabase() {
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch {
    return null;
  }
  const name = `collab_bench_${process.pid}_${Date.now()}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/**
 * Team mode: `replicas` hubs on one fresh PostgreSQL database, the same client processes split
 * across them in turn, and across `projects` repositories (their writes lock their own project).
 * Null when no PostgreSQL answers.
 */
export async function teamRound(clients = 8, seconds = 5, replicas = 2, projects = 1, sample = false) {
  const database = await freshDatabase();
  if (!database) return null;
  const repos = Array.from({ length: projects }, () => gitRepo());
  const homes = Array.from({ length: replicas }, () => unlimitedHome('bench-replica-'));
  const hubs = [];
  let sampler = null;
  try {
    for (const home of homes)
      hubs.push(await startHub(home, false, { SESSION_COLLAB_DATABASE_URL: database.url }));
    if (sample) sampler = await sampleWriteLocks(database.url);
    const result = await httpClients(
      hubs.map((h) => h.mcp),
      repos,
      clients,
      seconds,
      'mcp',
    );
    return sampler ? { ...result, locks: await sampler.stop() } : result;
  } finally {
    await sampler?.stop();
    for (const hub of hubs) await stopHub(hub);
    cleanup(...repos, ...homes);
    await database.drop();
  }
}

/**
 * How many write transactions hold their exclusive lock at the same moment, sampled from
 * PostgreSQL's lock table as fast as one connection reads it: with every write serialised behind
 * one lock, never more than one; with a lock per project, as many as projects are written at once.
 */
async function sampleWriteLocks(url) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const counts = [];
  let going = true;
  const loop = (async () => {
    while (going) {
      const { rows } = await client.query(
        `SELECT count(*)::int AS n FROM pg_locks
         WHERE locktype = 'advisory' AND mode = 'ExclusiveLock' AND granted
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      );
      counts.push(rows[0].n);
      await new Promise((r) => setTimeout(r, 1));
    }
  })();
  let result = null;
  return {
    async stop() {
      if (result) return result;
      going = false;
      await loop;
      await client.end();
      const writing = counts.filter((n) => n > 0);
      result = {
        samples: counts.length,
        writing: writing.length,
        together: writing.filter((n) => n >= 2).length,
        max: Math.max(0, ...counts),
      };
      return result;
    },
  };
}

/** The same loop over stdio: `clients` processes, each with its own server, one database. */
export async function stdioRound(clients = 8, seconds = 5) {
  const home = tempDir('bench-home-');
  const repo = gitRepo();
  try {
    const start = Date.now() + 3000 + WARM_MS;
    const deadline = start + seconds * 1000;
    const results = await Promise.all(
      Array.from({ length: clients }, (_, i) =>
        runWorker([STDIO_CLIENT, 'ours', home, repo, String(i), String(start), String(deadline)]),
      ),
    );
    return summary(results, seconds);
  } finally {
    cleanup(home, repo);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'projects') {
  // `node bench/hub.mjs projects [clients]`: team mode with the clients over 4 projects, 2 replicas
  // against 1, and over 1 project, alternating, 2 rounds each.
  const clients = Number(process.argv[3] ?? 8);
  const kinds = {
    'one project, 2 replicas': [1, 2],
    '4 projects, 1 replica': [4, 1],
    '4 projects, 2 replicas': [4, 2],
    '4 projects, 2 replicas, write locks sampled': [4, 2, true],
  };
  const rounds = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
  for (let i = 0; i < 2; i++)
    for (const kind of i % 2 ? Object.keys(kinds).reverse() : Object.keys(kinds)) {
      process.stderr.write(`  ${kind}, ${clients} clients, round ${i + 1}…\n`);
      const [projects, replicas, sample] = kinds[kind];
      rounds[kind].push(await teamRound(clients, 5, replicas, projects, sample === true));
    }
  console.log(JSON.stringify(rounds, null, 1));
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const clients = Number(process.argv[2] ?? 8);
  const rounds = { http: [], stdio: [], echo: [], team: [] };
  for (let i = 0; i < 2; i++)
    for (const kind of i % 2 ? ['team', 'echo', 'stdio', 'http'] : ['http', 'stdio', 'echo', 'team']) {
      process.stderr.write(`  ${kind}, ${clients} clients, round ${i + 1}…\n`);
      rounds[kind].push(
        kind === 'stdio'
          ? await stdioRound(clients)
          : kind === 'team'
            ? await teamRound(clients)
            : await hubRound(clients, 5, kind === 'echo'),
      );
    }
  console.log(JSON.stringify(rounds, null, 1));
}
