// `npm run bench`: the figures of DESIGN.md §6 on this machine, printed as a table.
// `npm run bench -- --record` also writes them to docs/benchmarks.md.
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { cleanup, homePaths, lib, median, percentile, stdioServer, tempDir, tool } from './common.mjs';

const CLI = fileURLToPath(new URL('../dist/cli.cjs', import.meta.url));
const WORKER = fileURLToPath(new URL('./worker.mjs', import.meta.url));
const record = process.argv.includes('--record');
const progress = (s) => process.stderr.write(`${s}\n`);

function gitRepo() {
  const dir = tempDir('bench-repo-');
  execFileSync('git', ['init', '-q', dir]);
  return dir;
}

/**
 * Spawn `serve` (or, with `server`, another command), send initialize + a tool call at once, time
 * until the tool result arrives.
 */
function coldStartOnce(home, repo, server = null) {
  const command = server?.command ?? [process.execPath, CLI, 'serve'];
  const call = server?.call ?? { name: 'collab_check', arguments: { files: ['src/a.ts'] } };
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command[0], command.slice(1), {
      cwd: repo,
      env: { ...process.env, SESSION_COLLAB_HOME: home, ...(server?.env?.(home) ?? {}) },
    });
    let buffer = '';
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      for (const line of buffer.split('\n')) {
        if (line.includes('"id":2')) {
          const elapsed = performance.now() - started;
          child.stdin.end();
          child.on('exit', () => resolve(elapsed));
          return;
        }
      }
    });
    child.on('error', reject);
    const send = (m) => child.stdin.write(`${JSON.stringify(m)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: call });
  });
}

async function coldStart() {
  const repo = gitRepo();
  // First start on a machine: no database, no code cache yet.
  const first = [];
  for (let i = 0; i < 5; i++) {
    const fresh = tempDir('bench-home-');
    first.push(await coldStartOnce(fresh, repo));
    cleanup(fresh);
  }
  const home = tempDir('bench-home-');
  await coldStartOnce(home, repo); // creates the database and the code cache; not counted
  const times = [];
  for (let i = 0; i < 20; i++) times.push(await coldStartOnce(home, repo));
  const bare = [];
  for (let i = 0; i < 10; i++) {
    const t = performance.now();
    execFileSync(process.execPath, ['-e', '0']);
    bare.push(performance.now() - t);
  }
  cleanup(home, repo);
  return { median: median(times), first: median(first), bare: median(bare) };
}

function checkLatency() {
  const home = tempDir('bench-home-');
  const repo = gitRepo();
  const app = new lib.App({ paths: homePaths(home), config: lib.DEFAULT_CONFIG });
  // 100 sessions × 100 claims: files spread over packages, plus some directory globs.
  const connections = [];
  for (let s = 0; s < 100; s++) {
    const c = new lib.Connection(app, app.sessions, {
      cwd: repo,
      client: () => 'bench',
      server: lib.ownProcess(),
    });
    tool(app, c, 'collab_session_start', { name: `s${s}`, project_root: repo });
    connections.push(c);
  }
  let claims = 0;
  for (let s = 0; s < 100; s++) {
    for (let k = 0; k < 100; k++) {
      const files =
        k % 10 === 0 ? [`packages/p${s}/src/m${k}/**`] : [`packages/p${s}/src/m${k % 10}/file${k}.ts`];
      tool(app, connections[s], 'collab_claim', { files, intent: `work ${s}/${k}` });
      claims++;
    }
  }
  const probe = new lib.Connection(app, app.sessions, {
    cwd: repo,
    client: () => 'bench',
    server: lib.ownProcess(),
  });
  tool(app, probe, 'collab_session_start', { name: 'probe', project_root: repo });
  const targets = [
    ['packages/p42/src/m3/file33.ts'],
    ['packages/p7/src/m0/deep/x.ts'],
    ['packages/p99/README.md'],
    ['src/unclaimed.ts', 'packages/p1/src/m1/file11.ts'],
  ];
  for (let i = 0; i < 200; i++) tool(app, probe, 'collab_check', { files: targets[i % targets.length] });
  const times = [];
  for (let i = 0; i < 4000; i++) {
    const t = performance.now();
    tool(app, probe, 'collab_check', { files: targets[i % targets.length] });
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  app.close();
  cleanup(home, repo);
  return { claims, p50: percentile(times, 50), p99: percentile(times, 99) };
}

/**
 * With PEER_DIR pointing at a built peer (leaf76/session-collab-mcp), cold start side by side:
 * spawn → initialize → `collab_session_list` (a tool both have, with no arguments), the two servers
 * alternating, 20 starts each after a warm-up, each on its own home.
 */
async function coldStartVsPeer(peerDir) {
  const repo = gitRepo();
  const homes = { ours: tempDir('bench-home-'), peer: tempDir('bench-home-') };
  const call = { name: 'collab_session_list', arguments: {} };
  const servers = {
    ours: { command: [process.execPath, CLI, 'serve'], call },
    peer: {
      command: [process.execPath, `${peerDir}/dist/cli.js`],
      call,
      env: (home) => ({ SESSION_COLLAB_DB: `${home}/peer.db` }),
    },
  };
  for (const k of ['ours', 'peer']) await coldStartOnce(homes[k], repo, servers[k]);
  const times = { ours: [], peer: [] };
  for (let i = 0; i < 20; i++)
    for (const k of i % 2 ? ['ours', 'peer'] : ['peer', 'ours'])
      times[k].push(await coldStartOnce(homes[k], repo, servers[k]));
  cleanup(homes.ours, homes.peer, repo);
  return { ours: median(times.ours), peer: median(times.peer) };
}

/**
 * `collab_check` as a client sees it: a server over stdio, `claims` live claims held by 100 other
 * sessions, 1,000 checks one after another; the server's RSS after them.
 */
async function checkOverStdio(claims) {
  const home = tempDir('bench-home-');
  const repo = gitRepo();
  const app = new lib.App({ paths: homePaths(home), config: lib.DEFAULT_CONFIG });
  const sessions = [];
  for (let s = 0; s < 100; s++) {
    const c = new lib.Connection(app, app.sessions, {
      cwd: repo,
      client: () => 'bench',
      server: lib.ownProcess(),
    });
    sessions.push(tool(app, c, 'collab_session_start', { name: `s${s}`, project_root: repo }).session_id);
  }
  const project = app.sessions.get(sessions[0]).project_id;
  app.store.write(() => {
    for (let k = 0; k < claims; k++) {
      const s = k % 100;
      const pattern =
        k % 10 === 0 ? `packages/p${s}/src/m${k}/**` : `packages/p${s}/src/m${k % 10}/file${k}.ts`;
      app.store.claims.insert(
        {
          id: `c${k}`,
          session_id: sessions[s],
          project_id: project,
          intent: `work ${k}`,
          scope: 'small',
          exclusive: 0,
          created_at: app.now(),
          expires_at: null,
        },
        [{ pattern, base: pattern.replace(/\/\*\*$/, '') }],
      );
    }
  });
  app.store.db.pragma('wal_checkpoint(TRUNCATE)');
  app.close();
  const server = stdioServer([process.execPath, CLI, 'serve'], {
    cwd: repo,
    env: { ...process.env, SESSION_COLLAB_HOME: home },
  });
  const targets = [
    ['packages/p42/src/m3/file3.ts'],
    ['packages/p7/src/m0/deep/x.ts'],
    ['packages/p99/README.md'],
    ['src/unclaimed.ts', 'packages/p1/src/m1/file11.ts'],
  ];
  for (let i = 0; i < 50; i++) await server.call('collab_check', { files: targets[i % targets.length] });
  const times = [];
  for (let i = 0; i < 1000; i++)
    times.push((await server.call('collab_check', { files: targets[i % targets.length] })).ms);
  times.sort((a, b) => a - b);
  const rss = server.rssMb('now');
  await server.close();
  cleanup(home, repo);
  return { claims, p50: percentile(times, 50), p99: percentile(times, 99), rss };
}

async function throughput(processes = 8, seconds = 5) {
  const home = tempDir('bench-home-');
  const repo = gitRepo();
  new lib.App({ paths: homePaths(home), config: lib.DEFAULT_CONFIG }).close(); // create the schema once
  const start = Date.now() + 1500;
  const deadline = start + seconds * 1000;
  const results = await Promise.all(
    Array.from(
      { length: processes },
      (_, i) =>
        new Promise((resolve, reject) => {
          const child = spawn(process.execPath, [
            WORKER,
            home,
            repo,
            String(i),
            String(start),
            String(deadline),
          ]);
          let out = '';
          let err = '';
          child.stdout.on('data', (d) => {
            out += d;
          });
          child.stderr.on('data', (d) => {
            err += d;
          });
          child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(err))));
        }),
    ),
  );
  const cycles = results.reduce((n, r) => n + r.cycles, 0);
  const busy = results.reduce((n, r) => n + r.busy, 0);
  const ids = results.flatMap((r) => r.ids);
  const db = new Database(homePaths(home).database, { readonly: true });
  const completed = db.prepare("SELECT COUNT(*) AS n FROM claims WHERE status = 'completed'").get().n;
  db.close();
  cleanup(home, repo);
  const lost = ids.length - completed;
  return {
    processes,
    opsPerSecond: (cycles * 3) / seconds,
    cycles,
    busy,
    lost,
    duplicates: ids.length - new Set(ids).size,
  };
}

/**
 * The hook processes, with 1,000 live claims of 20 other sessions: a PreToolUse decision (deny),
 * and a PostToolUse after a Read with nothing to deliver.
 */
function hookLatency() {
  const home = tempDir('bench-home-');
  const repo = gitRepo();
  const app = new lib.App({ paths: homePaths(home), config: lib.DEFAULT_CONFIG });
  for (let s = 0; s < 20; s++) {
    const c = new lib.Connection(app, app.sessions, {
      cwd: repo,
      client: () => 'bench',
      server: lib.ownProcess(),
    });
    tool(app, c, 'collab_session_start', { name: `s${s}`, project_root: repo });
    for (let k = 0; k < 50; k++)
      tool(app, c, 'collab_claim', { files: [`pkg${s}/src/file${k}.ts`], intent: `work ${s}/${k}` });
  }
  app.close();
  const input = JSON.stringify({
    session_id: 'bench-hook',
    transcript_path: '/dev/null',
    cwd: repo,
    hook_event_name: 'PreToolUse',
    tool_name: 'Edit',
    tool_input: { file_path: `${repo}/pkg7/src/file7.ts`, old_string: 'a', new_string: 'b' },
    tool_use_id: 'toolu_bench',
  });
  const env = { ...process.env, SESSION_COLLAB_HOME: home };
  const pre = timeHook(env, 'pre-tool-use', input, (out) => out.includes('"permissionDecision":"deny"'));
  // After every tool call: nothing new for the session, so nothing is added (the common case).
  const postInput = JSON.stringify({
    ...JSON.parse(input),
    session_id: 'bench-post',
    hook_event_name: 'PostToolUse',
    tool_name: 'Read',
    tool_input: { file_path: `${repo}/README.md` },
    tool_response: {},
  });
  const post = timeHook(env, 'post-tool-use', postInput, (out) => out === '');
  cleanup(home, repo);
  return { pre, post };
}

/** Median time of 40 runs of one hook, with a bare `node -e 0` timed between runs. */
function timeHook(env, event, input, ok) {
  const run = () => {
    const t = performance.now();
    const out = execFileSync(process.execPath, [CLI, 'hook', event], { input, env, encoding: 'utf8' });
    const ms = performance.now() - t;
    if (!ok(out)) throw new Error(`hook ${event} answered unexpectedly: ${out}`);
    return ms;
  };
  run(); // saves the code cache (and starts the session); not counted
  const times = [];
  const bare = [];
  for (let i = 0; i < 40; i++) {
    times.push(run());
    const t = performance.now();
    execFileSync(process.execPath, ['-e', '0']);
    bare.push(performance.now() - t);
  }
  return { median: median(times), bare: median(bare) };
}

async function listSize() {
  const json = JSON.stringify({ tools: lib.toolDefinitions(await lib.selectTools(['collab'])) });
  return { bytes: json.length, tokens: Math.round(json.length / 4) };
}

progress('cold start (20 spawns)…');
const cold = await coldStart();
const peerDir = process.env.PEER_DIR;
let vsPeer = null;
if (peerDir) {
  progress(`cold start side by side with the peer in ${peerDir}…`);
  vsPeer = await coldStartVsPeer(peerDir);
} else progress('PEER_DIR not set: the side-by-side figures with the peer are left out.');
progress('collab_check with 10,000 live claims…');
const check = checkLatency();
progress('collab_check over stdio with 10,000 and 100,000 live claims (1,000 calls each)…');
const stdio10k = await checkOverStdio(10_000);
const stdio100k = await checkOverStdio(100_000);
progress('8 processes: claim + check + release for 5 s…');
const tp = await throughput();
progress('hook processes: PreToolUse and PostToolUse with 1,000 live claims (40 runs each)…');
const hook = hookLatency();
const size = await listSize();

const fmt = (n, d = 1) => n.toFixed(d);
const rows = [
  [
    'cold start: spawn of `serve` → first tool result (median of 20)',
    `${fmt(cold.median)} ms (first start, no code cache yet: ${fmt(cold.first)} ms; bare \`node -e 0\`: ${fmt(cold.bare)} ms)`,
    '≤ 120 ms',
    cold.median <= 120,
  ],
  ...(vsPeer
    ? [
        [
          'cold start side by side with the peer (spawn → `collab_session_list`, alternating, median of 20)',
          `ratio ${fmt(vsPeer.ours / vsPeer.peer, 2)} (ours ${fmt(vsPeer.ours)} ms, peer ${fmt(vsPeer.peer)} ms)`,
          '≤ 1.0× the peer',
          vsPeer.ours <= vsPeer.peer,
        ],
      ]
    : []),
  [
    `\`collab_check\` with ${check.claims.toLocaleString('en')} live claims`,
    `p50 ${fmt(check.p50, 3)} ms, p99 ${fmt(check.p99, 3)} ms`,
    'p99 ≤ 2 ms',
    check.p99 <= 2,
  ],
  ...[stdio10k, stdio100k].map((r) => [
    `\`collab_check\` client round trip over stdio, ${r.claims.toLocaleString('en')} live claims (1,000 calls)`,
    `p50 ${fmt(r.p50, 2)} ms, p99 ${fmt(r.p99, 2)} ms; server RSS after: ${fmt(r.rss, 0)} MiB`,
    'p99 ≤ 2 ms',
    r.p99 <= 2,
  ]),
  [
    `claim + check + release, ${tp.processes} processes on one DB`,
    `${Math.round(tp.opsPerSecond).toLocaleString('en')} ops/s (${tp.cycles} cycles), ${tp.busy} busy errors, ${tp.lost} lost, ${tp.duplicates} duplicated`,
    '≥ 3,000 ops/s, 0 busy, nothing lost',
    tp.opsPerSecond >= 3000 && tp.busy === 0 && tp.lost === 0 && tp.duplicates === 0,
  ],
  [
    'PreToolUse hook process, 1,000 live claims (median of 40)',
    `${fmt(hook.pre.median)} ms (bare \`node -e 0\` in the same runs: ${fmt(hook.pre.bare)} ms; ratio ${fmt(hook.pre.median / hook.pre.bare, 2)})`,
    '≤ bare + 25 ms',
    hook.pre.median <= hook.pre.bare + 25,
  ],
  [
    'PostToolUse hook process after a Read, nothing to deliver (median of 40)',
    `${fmt(hook.post.median)} ms (bare \`node -e 0\` in the same runs: ${fmt(hook.post.bare)} ms; ratio ${fmt(hook.post.median / hook.post.bare, 2)})`,
    '≤ bare + 25 ms',
    hook.post.median <= hook.post.bare + 25,
  ],
  [
    'default toolset `tools/list` (JSON bytes / 4)',
    `${size.tokens} tokens (${size.bytes} bytes)`,
    '≤ 2,000 tokens',
    size.tokens <= 2000,
  ],
];
const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}, ${process.platform}`;
const table = [
  '| figure | measured | target | met |',
  '|---|---|---|---|',
  ...rows.map(([name, value, target, ok]) => `| ${name} | ${value} | ${target} | ${ok ? 'yes' : '**no**'} |`),
].join('\n');
console.log(`\nMachine: ${machine}\n\n${table}\n`);
if (record) {
  const doc = `# Benchmarks

Run with \`npm run bench\` (prints this table) or \`npm run bench -- --record\` (rewrites this file).
The benchmarks build first and use the bundled \`dist/\`; they are never assertions in the test suite.

- **cold start**: \`session-collab serve\` spawned 20 times; each time \`initialize\` and a \`collab_check\`
  call are written at once and the clock stops when the tool result arrives. The executable runs the
  bundle through V8's code cache, which the first \`serve\` to exit saves in the home folder; the
  figure in brackets is a first start on a fresh home (median of 5), before that cache exists.
- **collab_check**: 100 sessions × 100 claims (files and directory globs across 100 packages), 4,000
  checks through the full tool path (input validation, liveness, glob matching, output schema), in
  process. **Over stdio**: the same kind of claims (10,000 and 100,000, held by 100 live sessions)
  and a real \`serve\` spoken to in bare JSON-RPC (no SDK client, so the client costs nothing), 1,000
  checks one after another, timed at the client; the server's RSS after them.
- **throughput**: 8 processes, each its own connection to one database file, loop
  claim → check → release for 5 s; every call counts as one op. Afterwards every claim id must be
  unique and every claim completed.
- **hook**: \`session-collab hook pre-tool-use\` spawned 40 times with a Claude Code PreToolUse
  input for a file another session holds (each run answers \`deny\`), 20 other sessions holding
  1,000 claims; a bare \`node -e 0\` is timed between runs, for the machine's own spawn cost. The
  same for \`hook post-tool-use\` after a Read when the session has nothing new (it runs after every
  tool call: an indexed read, a heartbeat, no output).
- **tools/list**: the default toolset's \`tools/list\` result as JSON, bytes / 4.
- **side by side with the peer** (only when \`PEER_DIR\` points at a built leaf76/session-collab-mcp,
  e.g. cloned and built in a temporary folder, never in this repository): cold start of both
  servers, alternating in one run, as a ratio.

Recorded ${new Date().toISOString().slice(0, 10)} on ${machine}. On this shared 2-core machine the
process timings move by 10–20 % between runs, and more when the host is busy (a bare \`node -e 0\` spawn has measured 53–134 ms); the
bare spawn is timed in the same run to show how much of a figure is Node's own start.

${table}
`;
  writeFileSync(new URL('../docs/benchmarks.md', import.meta.url), doc);
  progress('docs/benchmarks.md updated.');
}
