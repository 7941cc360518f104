// `npm run bench`: the figures of DESIGN.md §6 as a client sees them, printed as a table.
// `npm run bench -- --record` also writes them to docs/benchmarks.md.
// Every figure is taken over real stdio (or real hook processes) with a minimal JSON-RPC client,
// paired in the same run with a bare `node -e 0` and, when PEER_DIR points at a built
// leaf76/session-collab-mcp, with that peer, alternating; ratios are ours ÷ theirs.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  bareNode,
  cleanup,
  gitRepo,
  load,
  median,
  memoryMb,
  percentile,
  runWorker,
  sectionsOf,
  serverOf,
  stdioServer,
  tempDir,
} from './common.mjs';
import { driverBench } from './driver-bench.mjs';
import { hooks } from './hooks.mjs';
import { hubRound, stdioRound, teamRound } from './hub.mjs';
import { landBench } from './land.mjs';
import { describeHistory, HISTORY_HEADING, historySection, mergeHistory } from './merge-history.mjs';
import { predict } from './predict.mjs';
import { semanticBench } from './semantic.mjs';
import {
  describeSemanticHistory,
  SEMANTIC_HISTORY_HEADING,
  semanticHistory,
  semanticHistorySection,
} from './semantic-history.mjs';
import { CHECK_TARGETS, ours, peer } from './servers.mjs';
import { WARM_MS } from './warm-up.mjs';

const CLIENT = fileURLToPath(new URL('./client-worker.mjs', import.meta.url));
const record = process.argv.includes('--record');
const progress = (s) => process.stderr.write(`${s}\n`);
const PEER = process.env.PEER_DIR ? peer(process.env.PEER_DIR) : null;
if (process.env.PEER_DIR && !PEER) {
  progress(`PEER_DIR=${process.env.PEER_DIR} holds no built peer (dist/cli.js): run its npm run build.`);
  process.exit(2);
}
const servers = PEER ? [ours, PEER] : [ours];
const loads = [load()];

/**
 * Spawn a server, write initialize + a tool call at once, time until the tool result arrives.
 */
function coldStartOnce(target, home, repo, call) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(target.command[0], target.command.slice(1), {
      cwd: repo,
      env: { ...process.env, ...target.env(home) },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let buffer = '';
    // NaN: the process ended without a tool result (its server died, say); counted as a failed start.
    let elapsed = Number.NaN;
    child.on('exit', () => resolve(elapsed));
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      const answer = buffer.split('\n').find((line) => line.includes('"id":2'));
      if (answer) {
        if (answer.includes('"result"') && !answer.includes('"isError":true'))
          elapsed = performance.now() - started;
        child.stdin.end();
        buffer = '';
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

/**
 * Cold start: spawn → initialize → `collab_session_list` (a tool both servers have, no arguments),
 * ours, the peer and a bare `node -e 0` in turn, 21 rounds after a warm-up, each server on its own
 * home; and ours on a fresh home (no database, no code cache yet), median of 5.
 */
async function coldStart(targets = servers) {
  const servers = targets;
  const repo = gitRepo();
  const call = { name: 'collab_session_list', arguments: {} };
  const homes = new Map(servers.map((s) => [s, tempDir('bench-home-')]));
  for (const s of servers) await coldStartOnce(s, homes.get(s), repo, call);
  const times = new Map(servers.map((s) => [s, []]));
  const bare = [];
  for (let i = 0; i < 21; i++) {
    for (const s of i % 2 ? [...servers].reverse() : servers)
      times.get(s).push(await coldStartOnce(s, homes.get(s), repo, call));
    bare.push(bareNode());
  }
  const fresh = [];
  for (let i = 0; i < 5; i++) {
    const home = tempDir('bench-home-');
    fresh.push(await coldStartOnce(ours, home, repo, call));
    cleanup(home);
  }
  cleanup(repo, ...homes.values());
  const ok = (list) => list.filter((t) => !Number.isNaN(t));
  return {
    peer: null,
    ...Object.fromEntries(servers.map((s) => [s.name, median(ok(times.get(s)))])),
    failed: Object.fromEntries(servers.map((s) => [s.name, times.get(s).length - ok(times.get(s)).length])),
    bare: median(bare),
    fresh: median(ok(fresh)),
  };
}

/**
 * `collab_check` as a client sees it with `claims` live claims held by 100 other sessions: the
 * servers answer in turn, up to 1,000 checks each (or 20 s of checks, for a server that is slow at
 * this size); the server's RSS after them.
 */
async function checkAt(claims, targets = servers) {
  const servers = targets;
  const repo = gitRepo();
  const runs = [];
  for (const s of servers) {
    const home = tempDir('bench-home-');
    await s.seed(home, repo, claims);
    const server = stdioServer(s.command, { cwd: repo, env: { ...process.env, ...s.env(home) } });
    const sid = await s.startSession(server, repo, 'probe');
    runs.push({ s, home, server, sid, times: [], spent: 0 });
  }
  for (const run of runs)
    for (let i = 0; i < 20; i++)
      await run.s.check(run.server, run.sid, CHECK_TARGETS[i % CHECK_TARGETS.length]);
  for (let i = 0; i < 1000; i++) {
    for (const run of runs) {
      if (run.spent > 20_000) continue;
      const r = await run.s.check(run.server, run.sid, CHECK_TARGETS[i % CHECK_TARGETS.length]);
      const error = run.s.errorText(r);
      if (error) throw new Error(`${run.s.name} collab_check: ${error}`);
      run.times.push(r.ms);
      run.spent += r.ms;
    }
  }
  // Then a claim, a check of it and its release, timed together, up to 200 times (or 10 s).
  // The server that holds the claims: ours, the machine's server its relay attached to.
  const serverRss = (run) =>
    run.s.machineServer ? memoryMb(serverOf(run.home), 'rss') : run.server.rssMb('now');
  for (const run of runs) Object.assign(run, { cycles: [], cycleSpent: 0, rss: serverRss(run) });
  for (let i = 0; i < 200; i++) {
    for (const run of runs) {
      if (run.cycleSpent > 10_000) continue;
      const t = performance.now();
      const files = [`cycle/f${i}.ts`];
      const claimed = await run.s.claim(run.server, run.sid, files);
      const id = run.s.claimId(claimed);
      if (!id) throw new Error(`${run.s.name} collab_claim: ${run.s.errorText(claimed)}`);
      await run.s.check(run.server, run.sid, files);
      const released = await run.s.release(run.server, run.sid, id);
      const error = run.s.errorText(released);
      if (error) throw new Error(`${run.s.name} collab_release: ${error}`);
      const elapsed = performance.now() - t;
      run.cycles.push(elapsed);
      run.cycleSpent += elapsed;
    }
  }
  const out = { claims };
  for (const run of runs) {
    run.times.sort((a, b) => a - b);
    run.cycles.sort((a, b) => a - b);
    out[run.s.name] = {
      calls: run.times.length,
      p50: percentile(run.times, 50),
      p99: percentile(run.times, 99),
      rss: run.rss,
      cycles: run.cycles.length,
      cycle50: percentile(run.cycles, 50),
    };
    await run.server.close();
    cleanup(run.home);
  }
  cleanup(repo);
  return out;
}

/**
 * Eight clients, each its own process with its own server over stdio, on one database: claim →
 * check → release for 5 s; every call counts as one op. Ours and the peer take turns (two rounds
 * each); afterwards every claim id must be unique and every claim completed.
 */
async function throughput(target, processes = 8, seconds = 5) {
  const home = tempDir('bench-home-');
  const repo = gitRepo();
  const start = Date.now() + 3000 + WARM_MS;
  const deadline = start + seconds * 1000;
  // Ours: the machine's server the relays share does the work; its CPU over the run is counted.
  const shared = { cpu: null, pss: null };
  const sample = (at, take) =>
    setTimeout(() => {
      const pid = serverOf(home);
      if (pid) take(pid);
    }, at - Date.now());
  const timers = target.machineServer
    ? [
        sample(start, (pid) => {
          shared.cpu = -cpuMsOf(pid);
        }),
        sample(deadline, (pid) => {
          shared.cpu += cpuMsOf(pid);
          shared.pss = memoryMb(pid, 'pss');
        }),
      ]
    : [];
  const results = await Promise.all(
    Array.from({ length: processes }, (_, i) =>
      runWorker([CLIENT, target.name, home, repo, String(i), String(start), String(deadline)]),
    ),
  );
  for (const t of timers) clearTimeout(t);
  const cycles = results.reduce((n, r) => n + r.cycles, 0);
  const errors = {};
  for (const r of results) for (const [k, v] of Object.entries(r.errors)) errors[k] = (errors[k] ?? 0) + v;
  const ids = results.flatMap((r) => r.ids);
  const lost = await target.notCompleted(home, ids);
  const crashes = target.machineServer ? serverCrashes(home) : 0;
  cleanup(home, repo);
  const relayCpu = median(results.map((r) => r.cpuPerCall));
  return {
    opsPerSecond: (cycles * 3) / seconds,
    cycles,
    errors,
    busy: Object.entries(errors)
      .filter(([k]) => /busy|locked/i.test(k))
      .reduce((n, [, v]) => n + v, 0),
    lost,
    duplicates: ids.length - new Set(ids).size,
    rss: median(results.map((r) => r.rss)),
    pss: median(results.map((r) => r.pss)),
    serverPss: shared.pss,
    crashes,
    // Per call: what a client's own `serve` spent, plus the shared server's share (unknown when the
    // server it began with died meanwhile).
    cpuPerCall:
      relayCpu + (shared.cpu === null || Number.isNaN(shared.cpu) ? 0 : shared.cpu / Math.max(1, cycles * 3)),
  };
}

/** A process's CPU time (user + system), ms; NaN once it is gone. */
function cpuMsOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** How many times the machine's server of `home` died on a native assertion or signal (its stderr log). */
function serverCrashes(home) {
  try {
    return (readFileSync(join(home, 'logs', 'server-stderr.log'), 'utf8').match(/Native stack trace/g) ?? [])
      .length;
  } catch {
    return 0;
  }
}

async function throughputRounds(targets = servers) {
  const servers = targets;
  const rounds = new Map(servers.map((s) => [s, []]));
  for (let i = 0; i < 2; i++)
    for (const s of i % 2 ? [...servers].reverse() : servers) {
      progress(`  ${s.name}, round ${i + 1}…`);
      rounds.get(s).push(await throughput(s));
    }
  const summary = (list) => ({
    opsPerSecond: list.reduce((n, r) => n + r.opsPerSecond, 0) / list.length,
    range: list.map((r) => Math.round(r.opsPerSecond)),
    busy: list.reduce((n, r) => n + r.busy, 0),
    lost: list.reduce((n, r) => n + r.lost, 0),
    duplicates: list.reduce((n, r) => n + r.duplicates, 0),
    errors: Object.assign({}, ...list.map((r) => r.errors)),
    rss: median(list.map((r) => r.rss)),
    pss: median(list.map((r) => r.pss)),
    serverPss: median(list.map((r) => r.serverPss ?? 0)) || null,
    cpuPerCall: median(list.map((r) => r.cpuPerCall)),
    crashes: list.reduce((n, r) => n + r.crashes, 0),
  });
  return { peer: null, ...Object.fromEntries(servers.map((s) => [s.name, summary(rounds.get(s))])) };
}

/** The default `tools/list` result as a client receives it, JSON bytes / 4. */
async function listSizes() {
  const repo = gitRepo();
  const out = {};
  for (const s of servers) {
    const home = tempDir('bench-home-');
    const server = stdioServer(s.command, { cwd: repo, env: { ...process.env, ...s.env(home) } });
    const bytes = JSON.stringify(await server.list()).length;
    out[s.name] = { bytes, tokens: Math.round(bytes / 4) };
    await server.close();
    cleanup(home);
  }
  cleanup(repo);
  return out;
}

if (process.argv.includes('--drivers')) {
  await driverBench({ coldStart, checkAt, throughputRounds, progress, record, loads });
  process.exit(0);
}
// Only the throughput of 8 clients (what a change to the request path is measured with), printed
// as JSON, nothing recorded.
if (process.argv.includes('--throughput')) {
  const tp = await throughputRounds();
  const pick = ({ opsPerSecond, range, busy, lost, duplicates, cpuPerCall, crashes, errors }) => ({
    opsPerSecond: Math.round(opsPerSecond),
    range,
    busy,
    lost,
    duplicates,
    cpuPerCall: Number(cpuPerCall.toFixed(3)),
    crashes,
    errors,
  });
  const out = { ours: pick(tp.ours), ...(tp.peer ? { peer: pick(tp.peer) } : {}) };
  if (tp.peer) out.ratio = Number((tp.ours.opsPerSecond / tp.peer.opsPerSecond).toFixed(2));
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  process.exit(0);
}
if (!PEER) progress('PEER_DIR not set: the side-by-side figures with the peer are left out.');
progress(`cold start: ${servers.map((s) => s.name).join(', ')} and bare node in turn, 21 rounds…`);
const cold = await coldStart();
loads.push(load());
const scale = [];
for (const claims of [100, 10_000, 100_000]) {
  progress(`collab_check over stdio with ${claims.toLocaleString('en')} live claims…`);
  scale.push(await checkAt(claims));
}
loads.push(load());
progress('hook processes with 1,000 live claims (40 rounds)…');
const hook = await hooks(servers);
progress('conflict prediction, a pair of sessions with 2,000-line diffs…');
const prediction = await predict();
const semantic = semanticBench();
progress('landing: 8 clones ask at once, beside plain git landing the same branches…');
const landing = await landBench(2);
// Prediction on real merge history: repositories a person fetched (none are downloaded here).
const HISTORY_REPOS = (process.env.MERGE_HISTORY_REPOS ?? '').split(':').filter(Boolean);
const history = HISTORY_REPOS.length > 0 ? await mergeHistory(HISTORY_REPOS, progress) : null;
if (!history)
  progress(
    'merge history: skipped (MERGE_HISTORY_REPOS=dir1:dir2… names clones of real repositories; the recorded section is kept).',
  );
// Semantic conflicts on real merge history: the same, compiled (tsc, javac); minutes per repository.
const SEMANTIC_REPOS = (process.env.SEMANTIC_HISTORY_REPOS ?? '').split(':').filter(Boolean);
const semanticHistoryRun = SEMANTIC_REPOS.length > 0 ? await semanticHistory(SEMANTIC_REPOS, progress) : null;
if (!semanticHistoryRun)
  progress(
    'semantic history: skipped (SEMANTIC_HISTORY_REPOS=dir1:dir2… names clones of real repositories; the recorded section is kept).',
  );
const size = await listSizes();
loads.push(load());
// Last: 16 busy processes on the machine leave its load high for a while after.
progress('8 clients, each with its own server over stdio: claim + check + release for 5 s…');
const tp = await throughputRounds();
loads.push(load());
progress('the hub over HTTP: 8 clients, each its own MCP session on one hub, beside 8 over stdio…');
const hubRounds = { http: [], stdio: [], echo: [], team: [], team4x1: [], team4x2: [] };
const hubKinds = ['http', 'stdio', 'echo', 'team', 'team4x1', 'team4x2'];
for (let i = 0; i < 2; i++)
  for (const kind of i % 2 ? [...hubKinds].reverse() : hubKinds) {
    progress(`  ${kind}, round ${i + 1}…`);
    const round =
      kind === 'stdio'
        ? await stdioRound(8)
        : kind === 'team'
          ? await teamRound(8)
          : kind === 'team4x1' || kind === 'team4x2'
            ? await teamRound(8, 5, kind === 'team4x1' ? 1 : 2, 4)
            : await hubRound(8, 5, kind === 'echo');
    if (round) hubRounds[kind].push(round);
  }
// Once more with 4 projects on 2 replicas, PostgreSQL's lock table sampled (not timed: the
// sampling costs the database): how many write transactions hold their lock at one moment.
progress('  team mode, 4 projects, 2 replicas, write locks sampled…');
const locked = (await teamRound(8, 5, 2, 4, true))?.locks ?? null;
loads.push(load());

const fmt = (n, d = 1) => (n === null || n === undefined ? '–' : n.toFixed(d));
const ms = (n, d = 1) => (n === null || n === undefined ? '–' : `${fmt(n, d)} ms`);
const ratio = (a, b) => (a === null || b === null || b === undefined ? '–' : fmt(a / b, 2));
const rows = [];
const row = (figure, o, p, r, target, ok) => rows.push({ figure, o, p, r, target, ok });

row(
  "cold start: spawn → initialize → first tool result, the machine's server running (median of 21)",
  `${ms(cold.ours)} (fresh home, the server started too: ${ms(cold.fresh)})`,
  ms(cold.peer),
  `${ratio(cold.ours, cold.peer)} · bare + ${fmt(cold.ours - cold.bare, 0)} ms`,
  '≤ 0.7× the peer; ≤ bare + 20 ms',
  cold.ours <= cold.bare + 20 && (cold.peer === null || cold.ours <= 0.7 * cold.peer),
);
for (const r of scale) {
  const p = r.peer;
  row(
    `\`collab_check\` round trip, ${r.claims.toLocaleString('en')} live claims: p50 / p99 (calls)`,
    `${ms(r.ours.p50, 2)} / ${ms(r.ours.p99, 2)} (${r.ours.calls})`,
    p ? `${ms(p.p50, 2)} / ${ms(p.p99, 2)} (${p.calls})` : '–',
    p ? `${ratio(r.ours.p50, p.p50)} / ${ratio(r.ours.p99, p.p99)}` : '–',
    r.claims >= 10_000 ? 'p99 ≤ 2 ms' : '',
    r.claims >= 10_000 ? r.ours.p99 <= 2 : null,
  );
}
for (const r of scale) {
  const p = r.peer;
  row(
    `claim → check → release of a new file, ${r.claims.toLocaleString('en')} live claims: p50 (cycles)`,
    `${ms(r.ours.cycle50, 2)} (${r.ours.cycles})`,
    p ? `${ms(p.cycle50, 2)} (${p.cycles})` : '–',
    p ? ratio(r.ours.cycle50, p.cycle50) : '–',
    '',
    null,
  );
}
for (const r of scale) {
  row(
    `server RSS after the 1,000 checks, ${r.claims.toLocaleString('en')} claims (ours: the machine's server)`,
    `${fmt(r.ours.rss, 0)} MiB`,
    r.peer ? `${fmt(r.peer.rss, 0)} MiB` : '–',
    r.peer ? ratio(r.ours.rss, r.peer.rss) : '–',
    // One server for every session of the machine: the memory target is per session (the PSS row).
    'reported (per session: see the PSS row)',
    null,
  );
}
const tpText = (t) =>
  `${Math.round(t.opsPerSecond).toLocaleString('en')} ops/s (${t.range.join(', ')}), ${t.busy} busy, ${t.lost} lost, ${t.duplicates} dup`;
row(
  'claim + check + release, 8 clients × own `serve` over stdio (ours: relays to one server), one DB (mean of 2 rounds)',
  tpText(tp.ours),
  tp.peer ? tpText(tp.peer) : '–',
  tp.peer ? ratio(tp.ours.opsPerSecond, tp.peer.opsPerSecond) : '–',
  '≥ 2× the peer, 0 busy, nothing lost',
  tp.ours.busy === 0 &&
    tp.ours.lost === 0 &&
    tp.ours.duplicates === 0 &&
    (tp.peer === null || tp.ours.opsPerSecond >= 2 * tp.peer.opsPerSecond),
);
const mean = (list, key) => list.reduce((n, r) => n + r[key], 0) / list.length;
const hubFigure = (list) =>
  `${Math.round(mean(list, 'opsPerSecond')).toLocaleString('en')} ops/s (${list.map((r) => Math.round(r.opsPerSecond)).join(', ')}), p50 / p99 ${ms(mean(list, 'p50'), 2)} / ${ms(mean(list, 'p99'), 2)}, ${list.reduce((n, r) => n + Object.values(r.errors).reduce((a, b) => a + b, 0), 0)} errors`;
row(
  'hub over HTTP: claim + check + release, 8 client processes × own MCP session on one hub (mean of 2 rounds)',
  hubFigure(hubRounds.http),
  `stdio, same run: ${hubFigure(hubRounds.stdio)}`,
  `HTTP ÷ stdio: ${ratio(mean(hubRounds.http, 'opsPerSecond'), mean(hubRounds.stdio, 'opsPerSecond'))} ops · ${ratio(mean(hubRounds.http, 'p50'), mean(hubRounds.stdio, 'p50'))} p50 · ${ratio(mean(hubRounds.http, 'p99'), mean(hubRounds.stdio, 'p99'))} p99`,
  'recorded beside stdio',
  null,
);
row(
  'team mode: the same 8 clients split across 2 hub replicas on one PostgreSQL (mean of 2 rounds)',
  hubRounds.team.length > 0 ? hubFigure(hubRounds.team) : 'skipped: no PostgreSQL answered',
  `1 hub on SQLite, same run: ${hubFigure(hubRounds.http)}`,
  hubRounds.team.length > 0
    ? `2 replicas ÷ 1 hub: ${ratio(mean(hubRounds.team, 'opsPerSecond'), mean(hubRounds.http, 'opsPerSecond'))} ops · ${ratio(mean(hubRounds.team, 'p50'), mean(hubRounds.http, 'p50'))} p50 · ${ratio(mean(hubRounds.team, 'p99'), mean(hubRounds.http, 'p99'))} p99`
    : '–',
  'recorded beside 1 hub',
  null,
);
row(
  'team mode, the 8 clients over 4 projects: 2 hub replicas on one PostgreSQL (mean of 2 rounds)',
  hubRounds.team4x2.length > 0 ? hubFigure(hubRounds.team4x2) : 'skipped: no PostgreSQL answered',
  hubRounds.team4x1.length > 0 ? `1 replica, same run: ${hubFigure(hubRounds.team4x1)}` : '–',
  hubRounds.team4x2.length > 0 && hubRounds.team4x1.length > 0
    ? `2 replicas ÷ 1: ${ratio(mean(hubRounds.team4x2, 'opsPerSecond'), mean(hubRounds.team4x1, 'opsPerSecond'))} ops · ${ratio(mean(hubRounds.team4x2, 'p50'), mean(hubRounds.team4x1, 'p50'))} p50`
    : '–',
  'writes of different projects not serialised: 2 replicas ÷ 1 ≥ 1',
  hubRounds.team4x2.length > 0 && hubRounds.team4x1.length > 0
    ? mean(hubRounds.team4x2, 'opsPerSecond') >= 0.95 * mean(hubRounds.team4x1, 'opsPerSecond')
    : null,
);
row(
  'team mode, 4 projects, 2 replicas: write transactions holding their lock at the same moment (PostgreSQL lock table sampled through a 5 s round)',
  locked
    ? `${locked.together.toLocaleString('en')} of ${locked.writing.toLocaleString('en')} samples with a write under way had 2 or more (at most ${locked.max}); ${locked.samples.toLocaleString('en')} samples`
    : 'skipped: no PostgreSQL answered',
  '–',
  '–',
  'more than one at once: writes of different projects not serialised',
  locked ? locked.max >= 2 : null,
);
row(
  'the floor: the same 8 clients and requests against a bare Hono server that echoes them (mean of 2)',
  hubFigure(hubRounds.echo),
  '–',
  `hub ÷ floor: ${ratio(mean(hubRounds.http, 'opsPerSecond'), mean(hubRounds.echo, 'opsPerSecond'))} ops · ${ratio(mean(hubRounds.http, 'p50'), mean(hubRounds.echo, 'p50'))} p50`,
  'hub ≥ 0.7 of the floor (ops)',
  mean(hubRounds.http, 'opsPerSecond') >= 0.7 * mean(hubRounds.echo, 'opsPerSecond'),
);
row(
  'CPU per call in the throughput run (the peer: its server; ours: the relay and its share of the shared server)',
  ms(tp.ours.cpuPerCall, 2),
  tp.peer ? ms(tp.peer.cpuPerCall, 2) : '–',
  tp.peer ? ratio(tp.ours.cpuPerCall, tp.peer.cpuPerCall) : '–',
  '',
  null,
);
row(
  'memory per client session: PSS of its `serve` after the throughput run (ours: the relay; median of the 8)',
  `${fmt(tp.ours.pss, 1)} MiB (RSS ${fmt(tp.ours.rss, 0)} MiB)`,
  tp.peer ? `${fmt(tp.peer.pss, 1)} MiB (RSS ${fmt(tp.peer.rss, 0)} MiB)` : '–',
  tp.peer ? ratio(tp.ours.pss, tp.peer.pss) : '–',
  '≤ 0.6× the peer',
  tp.peer === null ? null : tp.ours.pss <= 0.6 * tp.peer.pss,
);
row(
  "the machine's server all 8 relays share: its PSS after the throughput run",
  `${fmt(tp.ours.serverPss, 1)} MiB`,
  '–',
  tp.peer
    ? `ours, 8 sessions in all ÷ the peer's 8: ${ratio(tp.ours.serverPss + 8 * tp.ours.pss, 8 * tp.peer.pss)}`
    : '–',
  'reported',
  null,
);
row(
  'PreToolUse hook process, 1,000 live claims, denies (median of 40)',
  ms(hook['ours pre']),
  ms(hook['peer pre']),
  `${ratio(hook['ours pre'], hook['peer pre'] ?? null)} · bare + ${fmt(hook['ours pre'] - hook.bare, 0)} ms`,
  '≤ bare + 25 ms',
  hook['ours pre'] <= hook.bare + 25,
);
row(
  "PreToolUse hook process, the same claims, the machine's server running: it asks the server over its socket (median of 40)",
  ms(hook['ours pre, server running']),
  '–',
  `${ratio(hook['ours pre, server running'], hook['peer pre'] ?? null)} · bare + ${fmt(hook['ours pre, server running'] - hook.bare, 0)} ms`,
  '≤ bare + 25 ms',
  hook['ours pre, server running'] <= hook.bare + 25,
);
row(
  'PreToolUse hook process in team mode, asking the hub replica on its machine (PostgreSQL), same claims (median of 40)',
  hook['ours team pre'] === undefined ? 'skipped: no PostgreSQL answered' : ms(hook['ours team pre']),
  '–',
  hook['ours team pre'] === undefined ? '–' : `bare + ${fmt(hook['ours team pre'] - hook.bare, 0)} ms`,
  '≤ bare + 25 ms',
  hook['ours team pre'] === undefined ? null : hook['ours team pre'] <= hook.bare + 25,
);
row(
  "Stop hook process at a turn's end, nothing new (the turn ends at once), the machine's server running (median of 40)",
  ms(hook['ours stop, server running']),
  '–',
  `bare + ${fmt(hook['ours stop, server running'] - hook.bare, 0)} ms`,
  '≤ bare + 25 ms',
  hook['ours stop, server running'] <= hook.bare + 25,
);
row(
  'PostToolUse hook process after a Read, nothing to deliver (median of 40)',
  ms(hook['ours post']),
  '–',
  `bare + ${fmt(hook['ours post'] - hook.bare, 0)} ms`,
  '≤ bare + 25 ms',
  hook['ours post'] <= hook.bare + 25,
);
row(
  'PostToolUse hook process after an Edit of a 1,000-line TypeScript file: the edit recorded, its reading asked of the serving process (median of 40)',
  ms(hook['ours post edit']),
  '–',
  `bare + ${fmt(hook['ours post edit'] - hook.bare, 0)} ms`,
  '≤ bare + 25 ms',
  hook['ours post edit'] <= hook.bare + 25,
);
row(
  'PreToolUse hook process before an Edit of a 1,000-line TypeScript file one method of which another session holds: the parser loaded, the file read before and after, let through with a note (median of 40)',
  ms(hook['ours pre symbol']),
  '–',
  `bare + ${fmt(hook['ours pre symbol'] - hook.bare, 0)} ms`,
  'none set (parser loaded only for a file held in part)',
  null,
);
row(
  'conflict prediction for one pair of sessions with 2,000-line diffs (two clones): the comparison alone, p50 / p99 (200)',
  `${fmt(prediction.compare.p50, 2)} / ${fmt(prediction.compare.p99, 2)} ms`,
  '–',
  '',
  'p99 ≤ 50 ms',
  prediction.compare.p99 <= 50,
);
row(
  'the same pair as a client sees it: `collab_check` without files over stdio, its worktree read again each call (git lists what changed; nothing written since, nothing diffed), p50 / p99 (40)',
  `${fmt(prediction.check.p50, 1)} / ${fmt(prediction.check.p99, 1)} ms`,
  '–',
  `p99 ${ratio(prediction.check.p99, prediction.bare)} of bare node`,
  'p99 ≤ 200 ms',
  prediction.check.p99 <= 200,
);
row(
  "the same, the caller's file written again before each check (diffed, parsed, merged by git anew), p50 / p99 (20)",
  `${fmt(prediction.written.p50, 1)} / ${fmt(prediction.written.p99, 1)} ms`,
  '–',
  `p99 ${ratio(prediction.written.p99, prediction.bare)} of bare node`,
  'p99 ≤ 200 ms',
  prediction.written.p99 <= 200,
);
for (const [language, r] of Object.entries(semantic.byLanguage))
  row(
    `semantic conflicts (an interface changed under the other session's new use; git merges, the build breaks), ${language}, hand-made cases (\`bench/semantic.mjs\`): precision / recall (cases, of which breaking)`,
    `${fmt(r.precision * 100, 1)} % / ${fmt(r.recall * 100, 1)} % (${r.cases}, ${r.positives})`,
    '–',
    `one pair p99 ${fmt(semantic.p99, 2)} ms`,
    'precision ≥ 95 %, recall ≥ 90 %',
    r.precision >= 0.95 && r.recall >= 0.9,
  );
row(
  `landing: ${landing.pieces} clones ask at once, no check (\`bench/land.mjs\`, median of 2): all landed, wall time, per landing`,
  `${fmt(landing.ours.wall / 1000, 2)} s, ${fmt(landing.ours.wall / landing.pieces, 0)} ms each (${landing.ours.landed} landed, ${landing.ours.commits} commits on the target)`,
  '–',
  `plain git (fetch, rebase, push, branch after branch): ${fmt(landing.floor.wall / 1000, 2)} s; ours ÷ git ${ratio(landing.ours.wall, landing.floor.wall)}; bare node ${fmt(landing.bare, 0)} ms`,
  'reported',
  null,
);
row(
  'default `tools/list` as received (JSON bytes / 4)',
  `${size.ours.tokens} tokens`,
  size.peer ? `${size.peer.tokens} tokens` : '–',
  size.peer ? ratio(size.ours.tokens, size.peer.tokens) : '–',
  '≤ 2,000 tokens',
  size.ours.tokens <= 2000,
);

const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}, ${process.platform}`;
const peerVersion = PEER
  ? JSON.parse(readFileSync(`${process.env.PEER_DIR}/package.json`, 'utf8')).version
  : null;
const table = [
  `| figure | ours | ${PEER ? `peer ${peerVersion}` : 'peer'} | ratio (ours ÷ peer) · vs bare node | target | met |`,
  '|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.figure} | ${r.o} | ${r.p} | ${r.r} | ${r.target} | ${r.ok === null ? '' : r.ok ? 'yes' : '**no**'} |`,
  ),
].join('\n');
const context = `bare \`node -e 0\` in the same runs: ${ms(cold.bare)} (cold start rounds), ${ms(hook.bare)} (hook rounds); load average (1/5/15 min) during the run: ${loads.map((l) => l.join('/')).join(' → ')}`;
const unmatched = Object.entries({ ours: tp.ours.errors, peer: tp.peer?.errors ?? {} })
  .filter(([, e]) => Object.keys(e).length > 0)
  .map(([k, e]) => `${k}: ${JSON.stringify(e)}`);
console.log(`\nMachine: ${machine}\n${context}\n\n${table}\n`);
if (history) console.log(`Prediction on real merge history:\n${describeHistory(history)}\n`);
if (semanticHistoryRun)
  console.log(`Semantic conflicts on real merge history:\n${describeSemanticHistory(semanticHistoryRun)}\n`);
if (unmatched.length) console.log(`Errors during the throughput runs: ${unmatched.join('; ')}\n`);
if (record) {
  const doc = `# Benchmarks

Run with \`npm run bench\` (prints this table) or \`npm run bench -- --record\` (rewrites this file);
with \`PEER_DIR=/path/to/built/session-collab-mcp\` the peer (leaf76/session-collab-mcp, cloned and
built in a temporary folder, never in this repository) runs side by side. The benchmarks build first
and use the bundled \`dist/\`; they are never assertions in the test suite.

Every figure is what a client sees: real processes over real stdio, spoken to by a minimal JSON-RPC
client (no SDK on the client side, so that neither server pays for it). Ours and the peer take
turns within one run, and a bare \`node -e 0\` is timed between rounds: on this shared 2-core machine
an absolute time moves by 10–20 % from one run to the next, and by more when the host is busy, so
the ratios are the figures to read.

- **cold start**: spawn → \`initialize\`, \`notifications/initialized\` and a \`collab_session_list\`
  call written at once → the tool result. Ours is \`serve\`, the relay (its bundle through V8's code
  cache), attaching to the machine's server, which runs, as it does once any client has started
  it; "fresh home" is a first start: the relay starts the server, before the code caches and the
  database exist (median of 5).
- **collab_check**: \`claims\` live claims (files and folder globs across 100 packages) held by 100
  live sessions, written straight to each server's tables; a probe session checks a held file, a
  file inside a held folder, a free file and two at once, in turn; up to 1,000 checks per server
  (20 s of checks at most: the peer at 100,000 claims stops there), the two servers alternating
  call by call. RSS is the server's resident memory after those calls (ours: the machine's server,
  which holds the claims; its relay is a few MiB).
- **throughput**: 8 client processes, each starting its own \`serve\` over stdio (as real clients
  do: ours a relay, the 8 sharing the machine's server; the peer a server each) on one database,
  loop claim → check → release for 5 s, after 5 s of the same loop to warm up (two files per
  claim, one shared by all, so claims overlap as in real work; the peer's claims pass
  \`allow_conflicts\` to behave as ours, which are advisory). Every call counts as one op; two rounds each, alternating. Afterwards every
  claim id must be unique and every claim completed in the database. Memory per session is the
  proportional set size (PSS: private pages plus a share of shared ones) of each client's \`serve\`;
  ours also reports the shared server's PSS. CPU per call counts, for ours, the relay's and the
  shared server's share.
- **hook**: the PreToolUse hook process with a Claude Code \`Edit\` input for a file another session
  holds (each run must deny), 20 other sessions holding 1,000 claims. And ours after every tool call
  (PostToolUse after a Read when the session has nothing new: no output), and after an Edit of a
  1,000-line TypeScript file (another line each run); and before an Edit of such a file while
  another session holds one of its methods (\`src/held.ts#Model50.save\`): the hook parses it. And
  the deny again while the machine's server runs: the hook asks it over its socket; and, the
  server running, the Stop hook at a turn's end with nothing new (the turn ends at once).
- **semantic conflicts** (\`bench/semantic.mjs\`): hand-made cases, every change of a definition
  (a parameter added, an optional one added, one with a default, removed, retyped, the return
  retyped, renamed, removed, the body only; the same for a method) against every use (a named,
  aliased or namespace import, from a parent folder, another module's function of the same name,
  a local one, a comment, an instance of the imported class, an instance passed as a typed
  parameter; in Java a package imported whole, a static import, a full name, an overload added,
  varargs; in Go variadic parameters and a value made there; in Rust an alias and a full path), in
  TypeScript, Python, Java, Go and Rust. Truth: whether the merged code stops compiling or
  importing, said per kind of change and of use; \`node bench/semantic.mjs --compile\` checks it
  with \`javac\` and \`rustc\` where the machine has them (Go's is by construction). And on real history (\`bench/semantic-history.mjs\`, with
  \`SEMANTIC_HISTORY_REPOS\`): merges git makes cleanly, compiled (its section below).
- **prediction** (\`bench/predict.mjs\`): two clones, a \`serve\` in each; each session changed 2,002
  lines of a 7,000-line TypeScript file (286 hunks; 36 functions in the same lines). The comparison alone
  (the two change sets as git prints them), and \`collab_check\` without files as a client sees it.
- **landing** (\`bench/land.mjs\`): a bare origin and 8 clones, each one commit ahead on a branch of
  its own, no \`land.check\`; 8 \`serve\` processes (relays to one machine server) call \`collab_land\`
  at once and the queue lands them one at a time. Beside it, on a fresh copy of the same setup, a
  script landing the same branches with plain git (fetch, rebase, push; again when refused). What
  the queue costs over the git it must run anyway (a real check's time is the project's).
- **tools/list**: the default toolset's \`tools/list\` result as the server sends it, bytes / 4.
- **hub over HTTP**: 8 client processes, each a minimal Streamable HTTP client (\`fetch\`, no SDK)
  with its own MCP session on one \`session-collab hub\`, loop claim → check → release for 5 s,
  after 5 s of the same loop to warm up (\`bench/warm-up.mjs\`: the clients' own calls speed up
  several times over their first seconds); beside them, in the same run and alternating, the same
  loop by 8 clients over stdio (each with its own server, one database). p50/p99 are per call as the client times it. The bench's home
  lifts the hub's per-agent rate limit (each client is one agent at full speed).
  The floor beside them: the same clients sending the same requests to a bare Hono server on
  \`@hono/node-server\` (what the hub is built on) that only echoes them.
  \`node bench/hub.mjs [clients]\` runs this part alone.
- **team mode**: the same 8 clients split in turn across 2 \`session-collab hub\` replicas (each its
  own process and home folder) on one fresh database of the machine's PostgreSQL 15 (loopback),
  beside the 1 hub on SQLite of the same run, alternating; left out, saying so, without PostgreSQL.
  And the same 8 clients over 4 projects (2 each), on 2 replicas and on 1: each project's writes
  lock only that project, so a second replica must not slow them down (\`node bench/hub.mjs
  projects\` runs these alone).

Recorded ${new Date().toISOString().slice(0, 10)} on ${machine}.
${context}.

${table}
${unmatched.length ? `\nErrors during the throughput runs: ${unmatched.join('; ')}\n` : ''}
`;
  // The sections after the table: this run's where it measured them (merge history and semantic
  // history need fetched repositories), every other one as it is in the file (what the gaps are
  // made of, the SQLite drivers, landing, hand-made cases: written by hand or by their own runs).
  const before = readFileSync(new URL('../docs/benchmarks.md', import.meta.url), 'utf8');
  const fresh = new Map([
    [HISTORY_HEADING, history ? historySection(history) : null],
    [SEMANTIC_HISTORY_HEADING, semanticHistoryRun ? semanticHistorySection(semanticHistoryRun) : null],
  ]);
  const heading = (section) => section.split('\n')[0];
  const kept = sectionsOf(before).map((section) => fresh.get(heading(section)) ?? section);
  for (const [h, section] of fresh) if (section && !kept.some((k) => heading(k) === h)) kept.push(section);
  writeFileSync(
    new URL('../docs/benchmarks.md', import.meta.url),
    [doc, ...kept]
      .map((part) => part.trimEnd())
      .join('\n\n')
      .concat('\n'),
  );
  progress('docs/benchmarks.md updated.');
}
