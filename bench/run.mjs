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
## What the gaps are made of

Measured while working on them (2026-11-24, same machine; commands in \`bench/\` and the notes of
the performance issue). Ratios hold from run to run; absolute times move with the host's load.

- **One server per machine** (2026-11-25). Per call, one client doing 3,000 \`collab_check\`s
  through its relay (CPU times from /proc, a throwaway script): the relay 0.12–0.14 ms, the server
  0.66–0.70 ms, the client 0.10 ms; the round trip 0.76–0.82 ms. The relay hop adds ~0.15 ms at
  p50 and nothing measurable at p99: at 10,000 claims, \`serve --in-process\` had p50/p99 0.84/4.1 ms
  and the relay 1.0/4.2 ms in the same runs. A client's start is now bare node + 8–13 ms (0.71–0.72
  of the peer, which starts in bare + ~40 ms with no SDK): the relay's own bundle (16 KB, 2–3 ms
  less than from the hooks' bundle), its connection and hello, and the session's start in the
  server (a write); "fresh home" adds the server's own start once (~400 ms).
- **Throughput** (2026-11-27, Node 24) is bound by the machine's server's one event loop: at
  ~800 ops/s it is busy ~1.2 ms per op, and more than half of that is SQLite (a CPU profile of the
  server under 8 clients, by source: SQLite's statements and commits 54 %, Node's streams and
  sockets ~15 %, zod 3 %, the SDK 2 %, our own code under 10 %). Each cut, measured with
  \`npm run bench -- --throughput\` (the 8 clients beside the peer) and, per statement, a timing
  wrapper around each prepared statement of a profiling build (\`BUILD_MINIFY=0\`), 8 clients ×
  600 cycles:
  - *Checkpoints on a thread of their own* (\`store/checkpoints.ts\`): a commit that crossed 1,000
    pages of write-ahead log copied them into the file itself; commits averaged 343 µs, 196–230 µs
    since (125 µs with no checkpoint at all, which grows the log without end: 759 MB in 16 s).
    The 8 clients: 0.86 → 0.93–1.08 of the peer (the peer itself moves 767–890 ops/s between runs).
  - *Live patterns through their own index*: SQLite read a base's patterns through the index of
    every pattern ever claimed there (claim history, live or not): 78 → 16 µs a read, 4 a cycle;
    123 → 9 µs after 9,600 claims, and it no longer grows with history.
  - *A check's freshness in three statements*: what its own and up to 8 other copies were read at,
    25 → 4 statements a check; and a whole read of a worktree asked for while one is under way
    waits for it (8 sessions checking at once started up to 64 git reads).
  - *Each file stat once a check*, whatever the number of sessions in one folder (16 → 2 here).
  - What a write done once costs (\`call_records\`): an insert per write transaction (~5 µs) and a
    delete per answered call (~10 µs), ~2 % of the server's SQLite time.
  - Tried and dropped: *group commit* (the writes asked for in one turn of the event loop in one
    \`BEGIN … COMMIT\`, each in a savepoint): commits 12,226 → 4,947, but each took 546 µs (the
    pages they change are not shared), and claims, held longer, overlapped more (notifications
    ×3): 705 against 721 ops/s without.
  How far apart runs are this afternoon: the recorded table's 0.58 was the low end; \`--throughput\`
  runs of the same build gave 0.75–1.08, and an A/B of the build before the last two cuts against
  this one 571/724 against 661/587 ops/s (rounds of one run differed by up to 1.6×, while the
  host's bare \`node -e 0\` went from ~40 ms to 88–118 ms).
  Where 2× the peer is: with the server's loop saturated at ~1.2 ms per op, 2× (~1,700 ops/s)
  needs the whole path (client, relay, server) under ~1 ms of CPU per op on 2 cores. What is left
  to cut, by size: the commits themselves (~0.2 ms a write, WAL appends of ~20 pages), reading
  whole session rows (\`SELECT *\`: node:sqlite makes an object of every column; 4.6 reads a
  cycle, and the 7 neighbours a check looks at cost 160–240 µs), and a second server thread (a
  worker with its own connection serving half the relays: reads in parallel, writes taking turns
  on the file's lock), which only pays once the clients and relays leave it a core.
  On a quicker host (2026-11-27 evening: bare \`node -e 0\` 30 ms against 118) the recorded run gave
  1.04 of the peer (1,510 against 1,447 ops/s) and \`--throughput\` runs 1.08. Per op, the peer's
  whole machine spends ~1.2 ms (its server 1.0–1.1 ms of CPU, 2 cores full); ours 0.94 ms (the
  relay 0.14–0.21, the server the rest). 2× the peer is ~0.6 ms of CPU per op for client, relay and
  server together; SQLite alone is ~0.33 ms of it in our server (per statement, under 8 clients
  over 5 s: 6,099 commits at 125 µs, the neighbours' session rows 135 µs a check, 1.6 session
  reads a call at 17 µs). The server's one loop is what saturates: in runs of 2026-11-27 (night)
  the machine was 74–79 % busy (\`/proc/stat\` over the 5 s), so a second server thread could use
  the rest, a third more at best, not 2×; what would get there is fewer SQL statements and commits
  per call (one write per claim or release, session rows kept in memory between calls of a
  connection) and less of the SDK's and our own work per call.
- **collab_check at 10,000 claims** (2026-11-27, night; runs of 3 × 1,000 checks, 100 live
  sessions): before each check the server judged the copies of up to 8 other sessions of the
  machine, and reading them was most of the check: their whole rows, sorted among all 100 sessions
  of the project (0.19 ms a check), then a stat and the path joins of every missing file's folders
  per session (22 KB of garbage a check). Now it reads their liveness and worktree only (the whole
  row when one is read again), keeps the list for a second, and stats each file once per worktree
  in a check: p50 0.9 → 0.6 ms, p99 3.0–3.5 → 2.2–2.8 ms after warm-up (the first 1,000 calls,
  which the table's figure is, still carry JIT compilation). What is left of the tail: young-
  generation collections (3–6 ms, every ~400 ms under this load; the live heap stays at ~50 MB)
  and the server's timers.
- **The server's long background work** (2026-11-28; 3 × 1,000 checks right after the server
  starts, at 10,000 claims, three runs each way): the watcher of writes no hook saw held the
  server's loop for 100–130 ms in its first look at what is held (a glob compiled for each of the
  2,000 patterns it reads, each pattern's session judged alive with a \`kill(pid, 0)\`, then the held
  files and folders listed), and again, shorter, whenever claims changed; SQLite's quick check of
  the file (every 10 minutes) held it 20 ms (~200 ms at 100,000 claims). Now the quick check runs
  on the checkpointer's thread with its connection, the watcher compiles a glob only when a path is
  matched against it, judges each session once, and does the rest in slices of 1 ms
  (\`features/slices.ts\`) between which calls are answered. The slowest of the first 1,000 calls:
  103–128 ms → 10–13 ms; p99 of the next 2,000: 1.27–1.95 → 1.47–1.83 ms; the server's RSS at
  10,000 claims 211 → 146 MiB. Slicing alone (globs still compiled up front) had made it worse for
  p99 (4.4–4.6 ms for the first 1,000): the same 100 ms spread over 30 calls.
  The recorded run's p99 at 10,000 claims (20.6 ms) is this host's noise: the same loop beside the
  peer right after gave 1.98–2.75 ms, whether the two servers' calls alternate one by one or by
  hundreds.
- **Where 2× the peer and 0.7 of the HTTP floor are** (2026-11-28, AMD EPYC host; throwaway
  harnesses: the machine's server under \`--cpu-prof\` with 8 client workers, profiles filtered
  to the 5 s of load and summed by bundled module; a timing wrapper on every \`node:sqlite\`
  statement). Per op, 8 clients: the server 0.54–0.62 ms of CPU, each relay 0.13–0.17, each client
  0.12–0.16; the server's loop saturates at 1,800–2,000 ops/s while the machine is 77–82 % busy.
  The server's CPU: SQLite 58 % (BEGIN/COMMIT 22 %, reads 29 %, writes 7 %), the socket write of
  each answer 8 %, garbage collection 4 %, process and file probes (\`kill(pid, 0)\`, stat) 5 %, the
  SDK 4 %, zod 4 %, our own code ~10 %. A claim's commit writes 12 pages to the log (the claim and
  its 4 indexes, its files and their 4, an event and its sequence), a release 8; each page costs
  ~5 µs here (node:sqlite alone: 10 pages 53 µs, 29 pages 144 µs), so a commit is ~115 µs
  whichever process makes it. The same calls made in one process with no transport cost 0.27 ms
  of CPU per op (40 statements and 2 commits a cycle); with one client over the relay 0.45 ms, and
  under 8 clients each statement takes about twice as long (caches shared with 16 other processes
  on 2 cores). The peer did 1,936–1,975 ops/s in these runs: 2× is ~3,900 ops/s, ~0.5 ms of CPU
  per op for client, relay and server together, of which the client alone is 0.12–0.16 ms. Cuts of
  a few per cent each do not get there, and a second server thread adds at most what the machine
  has left (~20 %). 8 \`serve --in-process\` (the peer's shape: a server and a connection per
  client) did 1,409 ops/s against the peer's 1,936 in the same minutes (1.18 ms of CPU per call:
  each connection's page cache is dropped at every other's commit). Two machine's servers on one database (a
  second home whose \`registry.db\` links to the first's), 4 clients each, against one server with all 8
  in turn, three rounds: 1,598–1,701 against 1,820–1,936 ops/s, and 0.70–0.73 ms of the two servers'
  CPU per op against 0.54: a second thread with a connection of its own would lose as much, and one
  that leaves SQLite to the first could take the ~42 % of the server's work that is not SQLite, for
  at most the ~20 % of the machine still idle.
  The hub over HTTP costs 1.04–1.23 ms of CPU per op on one loop: the answer's \`writev\` on a TCP
  socket alone is 0.25 ms (the echo server pays it too: its whole cost is 0.34 ms per op), SQLite
  ~0.3 ms, Web \`Request\`/\`Response\`, Hono and the SDK's transport ~0.2 ms. 0.7 of the floor
  (~1,700 ops/s) would need ≤ 0.59 ms per op: less than the database and the write take.
- **The request path, cut** (2026-11-28, second session; a 2 × Intel Xeon host where the peer
  does ~1,250 ops/s with 8 clients and our server's loop saturated at ~1,000–1,200). First, where a
  call's server time goes, by taking pieces out of a throwaway build (the 8 clients, server CPU per
  op): validating each result against its output schema 0.06 ms, the envelope's reads
  (notifications, unread messages) 0.05, recording each write for a call sent again 0.07, reading
  other sessions' copies before a check 0.12; all four 0.34 of ~1.0 ms. None of them is optional
  (each is a feature), so what was cut is how they are done, each measured with one client
  through the machine's server (\`serve\` and a claim → check → release loop, the server's CPU per
  call from /proc, builds run alternately, 7 runs each: the host moves ±15 % from run to run):
  - *Calls answered without the SDK's machinery for each request* (\`mcp/direct-calls.ts\`): a
    plain \`tools/call\` of a tool that does not wait, on a connection that negotiated a 2024/2025
    revision, is answered by our handler straight from the transport: no era checks, request
    context, abort controller or result encoding (the identity for those revisions). The SDK
    still answers the handshake, the listing, tools that wait and every malformed request.
    0.87 → 0.76 ms of server CPU per call.
  - *The dashboard's live feed describes no event while no page listens*: it read every claim
    event's claim (and its patterns) every 200 ms, 8 statements of a cycle's 52.
  - *A check predicts from the session row it read*, *the records of answered calls go 16 at a
    time* (not a \`DELETE\` with every write), *what landed work meets is read by an index in its
    order* (no sort). With the above: 0.86 → 0.72 ms of server CPU per call (44 statements a
    cycle).
  - Tried and dropped: *the server's own commits checkpointing every 4,000 pages while the thread
    copies the log* (SQLite's 1,000 otherwise): a commit under one busy client ~110 → ~86 µs
    (timing wrapper, 3 runs each), but the log would then sit over 1,000 pages most of the time,
    and every other process's commit (a hook's) checkpoints whenever it does.
  The 8 clients (\`npm run bench -- --throughput\`, same host, same hour): 0.78 → 1.01 of the peer
  (1,002 against 1,281 ops/s → 1,252 against 1,234), CPU per call, relay and server together,
  1.32 → 1.03 ms (the peer 1.38–1.43). The hub over HTTP answers the same plain calls as one JSON
  body, without the transport's event stream: 8 clients 470 → 550 ops/s; the floor moved too
  (1,270–1,750 ops/s), so the ratio stays ~0.35. There the answer's TCP write is 21 % of the hub's
  CPU (~0.45 ms a call on this host), SQLite 26 %, Web \`Request\`/\`Response\`, undici's headers and
  Hono most of the rest: 2 ms of CPU per call on one loop against 0.7 ms for the same call over
  stdio. What is left in the stdio server, one client (0.67–0.72 ms a call, 25 % of it idle):
  SQLite is half of its busy time (the commits 16 %: a claim writes 17 pages to the log, a release
  13; each statement costs 10–20 µs in the flow of a call against 2–5 µs in a loop of itself),
  the socket write 6 %, the SDK's parse of each message 3 %. \`collab_check\` at 10,000 and 100,000
  claims (3 × 1,000 checks after warm-up): p50 0.6–0.8 ms, p99 1.5–4.1 ms from round to round.
  This host is slower all round (bare \`node -e 0\` 39–43 ms against 25–27 on the AMD host), and
  the hooks that run without a server scale with it: PreToolUse bare + 31–35 ms, PostToolUse + 28–34,
  the same before this session's changes as after (A/B of \`node bench/hooks.mjs\`, pre 33.3 and
  34.6 against 34.7 ms); with the machine's server running, bare + 18–21 ms.
- **The log copied off the event loop** (2026-11-28, third session; an AMD EPYC host whose speed
  moved through the day: the peer did 1,100–1,750 ops/s with the 8 clients). Each statement of
  the server timed under the 8 clients (a wrapper around each prepared statement, 5 s): the
  commits' mean was twice their median (p50 58 µs, p99 2.7–3.1 ms, the slowest 48–430 ms). About
  1 % of commits crossed SQLite's 1,000 pages of log and copied and synced it on the server's own
  thread: the checkpointer's copies beside a stream of commits never copy what came meanwhile, and
  only a log copied whole starts over. Now, past 1,000 pages, the checkpointer asks the server's
  writes to pause (shared memory; a write waits at its start, asynchronously, while reads and
  answers go on), copies the rest and lets them go; the server's own connection copies only past
  20,000 pages, should the pauses fail (\`test/e2e/log-restart.test.ts\` reads the log's length off
  its index while 4 clients write: it starts over 16 times in 30,000 pages, and reaches 19,934
  pages with the pauses taken out). Commits per 5 s: 1,095 → 474 ms, p99 2.7 → 0.37 ms; the 8
  clients, four alternating pairs of 8 s: 1,383 → 1,590 ops/s (+15 %). The log's file stays at
  10–13 MB under that load.
  - Tried and dropped: *group commit* (the writes of one turn of the event loop in one
    transaction, a savepoint each, every answer after the shared commit): per call 19 → 13 log
    writes and 13 → 7 file locks (\`strace -c\`), but no throughput past the host's noise (+4 %,
    mean of 4 alternating pairs): the savepoints cost what the shared pages save, and a read
    between a group's writes would see what a failing commit then drops.
  - *Limits written into the statement*: SQLite runs a statement whose \`LIMIT\` is a bound value
    ~10 µs longer than the same statement with the number in its text, with either driver (a read
    by primary key 2.8 → 13 µs in a loop; \`LIMIT 1\` against \`LIMIT ?\`). The SQLite side now writes
    a whole-number limit in (\`store/sql.ts\`, at most 1,000 such texts). What landed work meets,
    read at every check: p50 38 → 4 µs under the 8 clients. (Since replaced: every placeholder is
    prepared as \`+?\`, above; what cost the time was SQLite planning the statement again.)
  - *The hub reads a POST body of declared length whole*, which \`@hono/node-server\` does straight
    from Node's stream; asking for the body's stream first (as it did, to count its bytes) made a
    Web \`Request\` and a Web stream of every request: 5.7 % → 1.2 % of the hub's busy time, and 8
    HTTP clients 832 → 920 ops/s (3 alternating pairs of \`hubRound\`). A body sent in chunks, with
    no length, is still read a chunk at a time up to the limit.
  The session's changes together, alternating builds 4 × 6 s with the 8 clients (same host, same
  hour): 1,346 → 1,446 ops/s, server CPU per call 0.70 → 0.66 ms.
  Three recorded runs this session show how far this host moves: with the pauses (before the
  limits) 8 clients 1,442 against 1,206 (1.19), \`collab_check\` p99 4.12 ms at 10,000 claims and
  2.52 at 100,000, PreToolUse without a server bare + 20 ms, hub ÷ floor 0.42; with the limits too,
  in a slow hour, 1,149 against 946 (1.21), p99 15.39 and 4.29 ms, bare + 29 ms, 0.44; with the
  hub's bodies too (the table above) 1,376 against 1,119 (1.23), p99 5.17 and 3.20 ms, bare + 30 ms,
  hub ÷ floor 0.61 (614 against 1,006 ops/s). Each run's load average climbed to ~5 by its end.
  - Where 2× is, measured this time: the 8 clients' CPU per call, ours (client, relay, server)
    0.11–0.17 + 0.13–0.20 + 0.44–0.56 ms against the peer's client and server 0.11–0.17 + 0.94–1.47;
    the server's loop is saturated (~1,800–2,300 calls/s at 0.44–0.56 ms) with ~20 % of the machine
    idle. Twice the peer needs all processes under ~0.5 ms a call together and the server's share
    spread over both cores; a second connection (thread or process) loses its page cache at every
    commit of the other (measured before, above). Half of the server's busy time is SQLite (16
    statements a call, ~0.23 ms with the commit), the answer's socket write 9 %.
- **A host three times slower, and where a check's tail is** (2026-12-06, thirteenth session; an
  AMD EPYC host where bare \`node -e 0\` took 86–102 ms, against 25 ms on the fastest host recorded).
  - The recorded table is this host's: the 8 clients 2.61 of the peer (2,080 against 797 ops/s;
    rounds of 1,858 and 2,302), cold start 0.68 of the peer, the PreToolUse hook with the machine's
    server running bare + 19 ms. Without a server the hook is bare + 62 ms: 1.01 of the peer's
    hook and 1.61 of bare node. Our costs grow with the host; a target in ms over bare node does
    not. A \`--throughput\` run the same hour: 2.32 (2,306 against 995 ops/s).
  - \`collab_check\` at 10,000 claims is slower than at 100,000 only in the table (p50 1.15 against
    0.43 ms; 1.51 against 0.57 in the run before). The two servers alternate call by call: at
    10,000 the peer spends 6.7 ms a call between two of ours, and at 100,000 it stops after its 20 s
    and ours runs alone. Ours alone, 800 checks a size: p50 0.46–0.56 ms at 100, 10,000 and 100,000
    claims alike.
  - The tail, ours alone, 12,000 checks at 10,000 claims: p50 0.26–0.29 ms, p99 1.73–2.13 ms (2.5–3.1
    while another process ran tests). About 1 % of calls take over 2 ms, spread evenly over the
    run (10–15 in every 500 ms): not the first calls (warm-up), not the watcher's 250-ms ticks.
    The server's scavenges (\`--trace-gc\`): 65 in 4.8 s, 0.7–1.2 ms each (~52 KB allocated a
    check). A young generation twice as large (\`--min-semi-space-size=32\`) made them 28 and left
    the slow calls as many (121 against 125). The tail is the host scheduling three processes a
    call (client, relay, server) on 2 cores, not the server's collector. Nothing changed.
  - A check that ran git at every call, found on the way: in a loop of 8 clients against a
    profiling build (\`BUILD_MINIFY=0\`: slower at first), 6 runs of 11 fell to 33–155 ops/s (against
    2,100–2,800), the server at 150–290 ms of CPU a second and its spawner running \`git diff\` and
    \`git ls-files\` at every check. The files checked (\`shared/N.ts\`) do not exist; such a file is
    judged by its nearest folder, here the repository's top, which changed a few ms after the
    sessions' whole reads began. A file read again and found as it was left no row, so nothing said
    when it was read, and every later check read it again, in every neighbour's copy. A file found
    unchanged is now marked so, with when it was read (f58d154): 5 runs of 5 at 1,750–2,700 ops/s
    since. The shipped build's timing did not set it off in these runs nor in the bench's.
  - A machine's server's start: 660 ms of CPU to its first answer where the database exists, 800
    ms in a new home (Kysely loaded and the migrations run: ~200 ms), ~1 s in all after 10 s. Of
    it: the main thread loading main.cjs, then hub.cjs (no code cache for either), ~300 ms; the
    log copier's worker thread ~100 ms. Node's compile cache (\`NODE_COMPILE_CACHE\`) gave ~50 ms,
    within this host's noise. Nothing changed.
- **Pages a commit writes, the log's pauses, and warm rounds** (2026-11-29, twelfth session; an AMD
  EPYC host much slower and noisier than the day before: a bare loop of 3·10⁸ additions took
  950–1,600 ms from one run to the next, and the peer did 728–850 ops/s in the 8-client rounds
  where the last recorded run had 1,525).
  - **Which pages a commit writes.** 8 connections in one process (\`dist/lib.js\`) loop claim →
    check → release as the bench's clients do, with the log never copied; then the log's frame
    headers are read back and each page is named by its b-tree (SQLite's \`dbstat\`). Over the last
    300 commits: 8 calls a commit, 56.3 pages a commit.
    - By b-tree: the notifications' id index 9.5; \`notifications_by_session\` 8.6;
      \`claims_by_session\` 7.5; \`claim_files_by_base\` 5.2; \`claim_files\`' key 4.9; the claims' id
      index 3.4; the notifications table 2.5; \`claims_by_project\` 2.4; \`claims_in_list_order\` 1.7;
      \`events\` and \`claim_files_by_project\` 1.6 each; \`claim_files\` 1.5; \`claims\` 1.4;
      \`sqlite_sequence\`, \`projects\`, \`claim_files_live\` and \`notifications_coalesce\` 1.0 each; the
      schema's first page 0.7.
    - A random id puts each new row's index entry on a page of its own. Nobody names a
      notification by the start of its id (they are not among the kinds a caller may shorten), so
      notification ids are now ordered by time (UUID v7): 47.7 pages a commit, the id index ~1.
    - Claims keep random ids: a caller names a claim by its first characters, and ids made in the
      same minute would all start alike.
    - The indexes keyed by session (notifications, claims) write about one page per session a
      commit; their queries need them, so they stay.
    - Statements a call, timed in the same loop (µs a call): the notification's insert 19.7 and its
      delivery's update 27.8 (82.6 each, 1 call in 3), the envelope's read of the news 14.8, the
      claim's candidates 14.8, the claimed patterns' inserts 12.9, the claim's insert 14.4 and its
      release's update 15.6; 7.6 statements a call in all. Writes cost what their indexes cost.
  - **The log's pauses.** Under the 8 stdio clients (1,200–1,700 ops/s on this host) the machine's
    server's writes waited for the checkpointer's pause 23–27 times in each 4-s round: 155–191 ms in
    all (3–5 % of the round), 12–17 ms at most. With the pause at 4,000 pages of log instead of
    1,000: 10–11 pauses, 74–98 ms; 1,408 and 1,354 ops/s against 1,172 and 1,322, within this
    host's noise. Not kept: between 1,000 and 4,000 pages a hook's commit (at SQLite's default of
    1,000) would copy the log itself.
  - **Where a stdio call's CPU goes**, per call: the relay 0.24–0.31 ms, the machine's server
    0.45–0.54 ms (1,506 and 1,835 ops/s). A relay's share is its four reads and writes a call and
    the two wake-ups; the server's is the tool's work, 0.36–0.39 ms of it in one process without
    any socket (the loop above, at 2,055–2,788 calls/s).
  - **Profilers on a busy host.** \`--cpu-prof\` samples wall-clock time: with the cores shared, the
    hub's socket write looked like 16–25 % of it. \`perf record\`, which samples the CPU, puts it at
    3.8 %: the rest was the hub waiting for a core while the client it had just woken ran.
    - V8's compiler threads were 10 % of the hub's CPU between the 25th and the 40th second of a
      round slowed to ~340 calls/s: still compiling after ~8,000 calls. With \`--trace-opt\`, no
      function was optimised more than a few times: warm-up, not a loop.
  - **Warm rounds.** The throughput rounds (stdio, HTTP, the floor, team mode) now count their
    calls after 5 s of the same loop (\`bench/warm-up.mjs\`), every server alike: what long-lived
    clients see. The 5-s rounds from a cold start had the hub at 0.57–0.76 of the floor, where warm
    clients put it at ~0.5 (the bullet below).
  - **The recorded table of this session** was run on this host: bare \`node -e 0\` 49.7–55.8 ms
    against 25.5–26.2 in the run before, the peer 929 ops/s against 1,525. Everything is about twice
    as slow, so the targets in milliseconds over bare node fail where their ratios to the peer did
    not move (the PreToolUse hook that denies: 1.03 of the peer, 1.04 before). Read the ratios.
    - 8 clients over stdio: 1.68 of the peer (1,562 against 929 ops/s), where the run before had
      2.15. \`--throughput\` alone, alternating the bench's cold rounds (the build before the
      warm-up) with the warm ones: cold 1.73 and 1.74, warm 1.98 and 1.73. So the warm-up does not
      move it; this host does. CPU a call: ours 0.94 ms (relay and server), the peer 1.71, against
      0.41 and 1.07 the day before. Ours grew 2.3 times, the peer's 1.6: our call crosses two more
      processes (four reads and writes, four wake-ups, against two) and writes its log page by page,
      two system calls a page; this host's system calls and wake-ups cost more than its
      computation does.
    - The hub: 0.59 of the floor with warm clients (639 against 1,082 ops/s).
  - **What the targets need, as measured here.** The throughput ratio is about
    (the peer's CPU a call + a client's) ÷ (ours + a client's): (1.71 + ~0.3) ÷ (0.94 + ~0.3) here,
    (1.07 + ~0.15) ÷ (0.41 + ~0.15) the day before. 2× on this host needs ours at ~0.7 ms, a quarter
    less; 0.7 of the floor needs the hub's own CPU a call a third lower with warm clients. Neither
    is a cut of the request path (the floor's whole server is 0.09 ms a call): the tool's work is
    SQLite's writes of rows and their indexes (above) and the log's pages, then a long flat tail of
    JavaScript.
- **The floor's clients warm up; the suite four files at a time** (2026-11-29, eleventh session;
  an AMD EPYC host, bare \`node -e 0\` 25–30 ms).
  - The 8 clients of a hub round count their calls second by second (a one-off script, the same
    loop as \`bench/http-client-worker.mjs\`, 8 s a round). Against the echo:
    518, 1,871, 1,955, 2,907, 3,234, 3,147, 3,370, 3,600 calls. Against the hub, twice:
    747, 1,125, 1,359, 1,205, 1,557, 1,780, 1,513, 1,637, and 864, 1,103, 1,392, 1,219, 1,654,
    1,794, 1,662, 1,722.
    - Both rise for seconds, the echo's more: the clients' own JavaScript (\`fetch\`) warms up.
    - Over the first 5 s, the length of the bench's rounds, the hub is at 0.57 of the echo. Over
      the last 3 s it is at 0.49.
    - So the 5-s rounds flatter the hub. Warm clients put the floor higher still.
  - CPU a call from /proc, 7-s rounds, alternating echo and hub twice:
    - client against the echo 0.67–0.69 ms, the echo's server 0.09;
    - client against the hub 0.74–0.78, the hub 0.43–0.44;
    - 2,406 and 2,514 ops/s against 1,444 and 1,506 (0.60 both times);
    - the machine busy 97 % against 89–90 %.
    - 0.7 needs the hub's own share near 0.25 ms a call. The echo's request path is 0.09 ms of
      it, so the tool work itself (~0.3 ms a call in either server) must halve: the rest of the
      request path cannot make it up.
  - The 8 clients over stdio, counted the same way (10-s rounds, ours, the peer, the peer, ours):
    ours 2,283, 3,477, 3,958, 3,607, 3,823, 3,891, 3,664, 3,683, 3,808, 3,847 calls a second;
    the peer 1,533, 1,544, 1,620, 1,879, 1,905, 1,951, 1,836, 1,941, 1,937, 1,901; then the
    peer 1,479–2,042 and ours 2,530–3,659.
    - The two pairs are 2.00 and 1.85 over 10 s: 2.02 and 1.94 over the first 5 s, 1.98 and 1.76
      over the last 5.
    - 2× the peer holds in some rounds and not in others in this hour. The machine's server does
      the work of every call on one thread, so every cut of its CPU a call shows in full.
  - \`perf record\` of the hub (a bundle built with \`BUILD_MINIFY=0\`, \`--perf-basic-prof\`): the main
    thread 86 % of the samples, V8's helper threads 10 %, the checkpointer 4 %.
    - The Host check parsed the Host header as a URL at every request: 2.1 % of the samples.
      A Host found allowed is now remembered (up to 64 per hub).
    - The rest is flat, as before. In inclusive terms:
      - the HTTP parser's dispatch 10 %;
      - writing the answer 9 % (mostly the socket write);
      - SQLite's steps 18 % (the checkpointer's included);
      - claim paths' stats 2.6 %;
      - the envelope 3.5 %.
  - \`--cpu-prof\` of the machine's server under the 8 stdio clients (non-minified bundle; the
    profiler samples wall-clock time, and slows the run to ~1,900 calls a second). Of its busy
    samples:
    - writing each answer to its relay's socket: 16 % (\`writeUtf8String\`: the write and, likely,
      the relay it wakes taking the core);
    - reading requests: 9 %;
    - SQLite's statements: 30 % (BEGIN and COMMIT 9 %);
    - the call's own JavaScript: the rest, spread thin (\`callTool\` 9 % inclusive, the envelope
      6 %, zod 3 %).
    - The relays at nice 5 (to spare the server that wake-up) changed nothing measurable:
      3,000–3,700 calls a second either way, in four alternating 8-s rounds.
  - The suite four files at a time: 302, 306 and 320 s in three full runs with every test passing,
    the cores busy 96 % of the time. That is against 335 s with three. In a fourth run (316 s) the
    Telegram takeover test waited in vain for its third poller; it was not reproduced since.
    - The soak paces its load except around each kill: 33 s of CPU for both backends, against 64.
    - The tests of real processes no longer load the in-process app through their helpers (a
      file's import 1.7 s, now 0.3 s).
- **The hub's request path, and the log under a slow disk** (2026-11-29, tenth session; an AMD
  EPYC host, bare \`node -e 0\` 25–30 ms). Read with \`perf record -g -p\` (cpu-clock, every thread
  of the process, 4 s under the 8 clients).
  - CPU a call: the hub 0.59 ms (976 ops/s), the machine's server over stdio 0.33 ms (2,931 ops/s),
    the Hono echo 0.12 ms. SQLite's steps cost about the same in both servers (0.13 against
    0.11 ms a call); the hub's extra ~0.25 ms is JavaScript spread thin: async functions entered
    (14 µs a call against 4), property stores and loads, llhttp, Web \`Request\`/\`Response\`, zod.
  - A prototype answering plain tool calls straight from \`node:http\` (no Hono, no Web
    \`Request\`/\`Response\`) gained 10–13 % in two of three runs (0.61–0.64 of the floor against
    0.56–0.64 in the same runs). Not kept: a second request path whose every guard (Host and
    Origin, tokens, rate, size) must stay equal to the first's, for a tenth.
  - Where 0.7 is: both rounds keep the machine busy (the hub's 84–87 %, the echo's ~95 %), so the
    ratio is about (C + E) ÷ (C′ + H) × the busy ratio. Here C and C′ are the CPU a bench client
    spends per call against the echo and against the hub; E and H are the servers' own CPU per call.
    Per call, from /proc over 5 s of the 8 clients, two rounds each: C 1.01–1.03 ms, C′ 1.05–1.14,
    E 0.12, H 0.47–0.50. That gives 0.64 and 0.68 in those rounds, and 0.67 over four alternating
    pairs an hour later.
    The clients' cost moves with the hour (0.66–0.92 ms in the session before), and the ratio
    with it: 0.7 holds in every hour once H is ~0.3 ms.
    Latency a call by kind in a hub round: check p50 4.0 ms, claim and release 6.4; the
    difference is the write group's commit.
  - Whether a request needs a token is a kept read now (while no token exists, a request reads
    SQLite's data version, not the tokens' count, and inside a write group nothing): within the
    noise (0.59 of the floor before, 0.56–0.64 after).
  - The write-ahead log under the relay soak (the withdrawn notification change was blamed for its
    growth): the checkpointer, logging each tick, saw the server append 1,000–2,000 pages every
    50 ms (~21 pages a claim cycle, 13.7 a commit: by b-tree \`claims_by_session\` 1.6,
    \`claims_by_project\` 1.5, events 1.1, claims 1.1, claim_files and its live index 1.0 each,
    \`sqlite_sequence\` 1.0, \`call_records\` and its key 1.0 each) and start it over 15–20 times a
    second. One checkpoint whose sync took 293 ms let it reach 4,200 pages; with both cores kept
    busy by two other processes, 10,000 (40 MB). Its length is the disk's sync time times the
    write rate, not the code's: CI saw 37.9 MB with the change already withdrawn. The soak now
    asserts that the log keeps starting over across the kills (salt-1 of its header, which each
    restart adds one to: 413 in one run, 20 asked), not a length.
  - The test suite three files at a time: 324–327 s against 403 s with two, every test passing.
  - The record above: the 8 clients 2.15 (3,275 against 1,525 ops/s), cold start 0.56× the peer,
    the PreToolUse hook bare + 25 ms alone and + 10 with the server; the hub 0.76 of a floor that
    was low in that run (1,414 and 1,823 ops/s against 1,862–2,393 in the rounds an hour before,
    the hub's own 1,118 and 1,357 as before): the noise, not a change. \`collab_check\` p99 at
    100,000 claims 2.06 ms (1.96 in the record before), at 10,000 1.98.
  - Those 2 ms calls at 100,000 claims are the JIT warming up. The machine's server is new for
    each claim count, and the 1,000 checks follow 20 warm-up calls. \`perf record -F 4999\` on
    the server (\`--perf-basic-prof\`), matched against the times of the calls over 1.5 ms (19 of
    1,000; p99 2.11 ms): every one fell in the first ~550 ms, while the server's JavaScript still
    ran baseline code (Sparkplug, \`^\`: 73 of 134 samples in those calls; 543 of 1,464 in the whole
    run). After that it ran optimized code and no call took 1.5 ms. GC played no part
    (\`--trace-gc\`: scavenges of 0.1–0.3 ms, no full collection).
- **Reads kept while nothing they read changed** (2026-11-28, ninth session; an AMD EPYC host,
  bare \`node -e 0\` 25–30 ms, the peer 1,630–1,890 ops/s with the 8
  clients). Measured with callgrind as before (one client, main-thread instructions per call).
  - Where a call's instructions went: skipping the session row a call reads first
    (\`Connection.current\`) cut 27 K of 424 K a call; skipping a check's change-set reads (the
    others' freshness, its own change set and files, landed meetings) cut 99 K + 69 K a check. Those
    tables are written by hooks and refreshes, not by claims: read again and again unchanged.
  - \`sql.kept()\` (store/reads-kept.ts) answers such a read from what it returned before while
    SQLite's \`data_version\` says no other connection committed and this connection wrote none of
    its tables (each statement's INSERT INTO / UPDATE / DELETE FROM, and what the schema's triggers
    and foreign-key actions write in turn; a rollback, a CREATE or a statement it cannot read
    forgets everything). Used by the session row, the active-session count and a check's change
    sets; PostgreSQL reads each time. 424 K → 390–397 K a call (−7 %); statements a cycle under the
    8 clients 33 → 24 (\`PRAGMA data_version\` included: 1.7, nearly free inside a group's
    transaction, ~2.4 µs outside one, mostly the read transaction's locks).
  - On SQLite a claim reads its candidates inside its write, once: the mark, the count of
    releases since and the patterns added since (three statements a claim) were there for a
    database whose writers run in parallel (PostgreSQL keeps them). 390–397 K → 384–386 K.
  - Tried and withdrawn: a notification inserted at once (\`ON CONFLICT DO NOTHING\` on the index
    of pending ones), the pending one read only when the insert was refused (statements a cycle
    24 → 20.5). Under the relay soak (the server SIGKILLed every 5 s) the write-ahead log then grew
    to 44–134 MB in 3 runs of 7 (none of 9 before it); why is not known.
  - Checked and not kept: a cached \`data_version\` for a whole loop iteration (no change in
    instructions: its cost is the kernel's lock calls; and unsafe when a timer's read comes
    before a message whose sender committed first); a larger young generation (+1 %); dropping
    \`claim_files_by_project\` (the claim's mark then scans: 4.5× the instructions); 1 KB pages
    instead of 4 KB (a fresh database: within the count's spread); the relays at nice 10 (2 pairs,
    within the host's swing).
  - The 8 clients after the first two: \`--throughput\` 2.02, 1.96 and 2.01 (3,504 and 3,410 against
    1,802 and 1,636 ops/s), the record above 2.03; with the withdrawn notification insert too, in a
    noisier hour, 1.74 (2,749 and 3,036 against 1,652 and 1,666) and 2.05 (2,926 and 2,291 against
    1,304 and 1,235): our rounds swing by a quarter where the peer's move by 1–5 %. The machine's server is the bound: 87–92 % of a core
    busy (0.23–0.30 ms a call) while the machine is 81–84 % busy (ours, client + relay + server,
    0.40–0.54 ms a call against the peer's 1.01–1.17, whose run keeps the machine 94 % busy).
    The server's loop is seldom idle (0.07 voluntary switches a call) and taken from the CPU
    0.24–0.30 times a call: what it lacks of a whole core is the time others run in its place.
    Twice the peer with a margin needs the server's share spread over both cores: the JavaScript
    around its statements moved to another thread, or a second connection whose page cache
    survives the other's commits (SQLite empties a connection's cache when another commits).
  - The hub over HTTP (0.51 of the Hono floor recorded): its loop is not the bound there. Per call
    (8 clients, /proc over 6 s) the hub spends 0.44–0.53 ms, the echo 0.09–0.11, and the machine is
    89–98 % busy in both; the bench's HTTP clients (\`fetch\`) spend 0.92 ms a call against the hub
    and 0.66 against the echo. With the clients' own share that much larger against the hub, 0.7
    of the floor would need the hub at about the echo's own cost (~0.1 ms a call).
  - Closing the store now commits a write group still open: a \`land\` in a terminal printed
    "landed" (its wait read the landing inside the uncommitted group) and then closed the file,
    which rolled the landing back (the intermittent failure of land.test).
- **Temporary b-trees, liveness answers held, and where a call's CPU goes** (2026-11-28, eighth
  session; an AMD EPYC host three to four times slower than the last record's: bare
  \`node -e 0\` 80–111 ms against 28–30, the peer 687–946 ops/s with the 8 clients against 1,599,
  the test suite 920 s against ~400). Read with \`strace -f\` on the machine's server under the 8
  clients (3 s) and \`perf record -e cpu-clock\` (no hardware counters in this VM).
  - Per call the server made ~4.8 log frames (two \`pwrite\`s each), 3.3 \`fcntl\`, 2 \`statx\` (a claim's
    paths: is it a folder), one \`read\`, one \`write\`, and 3 \`kill(pid, 0)\` with 3 \`getpid\`: every
    check and every answer asked whether the same few client processes still run. An answer now
    holds 25 ms (\`integrations/process-probe.ts\`), less than any process takes to start, so a hook
    run after its client exited still finds it gone (200 ms broke that: a test's hook, run at once,
    was refused for the client just gone). Within the noise on this host; 6 syscalls a call fewer.
  - A group commit (~5 writes) wrote 51 pages to the log; by index, pages a commit:
    \`claims_by_session\` 7.1, \`notifications_by_session\` 6.4, \`claim_files_by_base\` 6.1, the primary
    keys of \`claim_files\` 4.5, \`notifications\` 3.7 and \`claims\` 3.1 (random UUIDs), the events and
    \`claims_by_project\` 2.4 each. The two by session hold every state (a release moves its claim's
    entry from active to completed): partial indexes of the live rows would write ~1–2 pages each,
    but the queries over history and the sessions' cascade read them too. Not done.
  - Where the server's CPU goes (perf, its threads, 8 clients): kernel 25 % (log \`pwrite\` 5 %, the
    answer's socket \`write\` 4 %, most of it waking the relay, the checkpointer's \`fsync\` 3 %),
    SQLite 20 %, V8 builtins 16 % and runtime 14 % (no one function over 1 %), compiled JavaScript
    10 %, malloc 4 %, JSON 3.5 %, GC 1.3 % on the loop (its helper threads besides). The loop is
    taken from the CPU 0.35–0.45 times a call (involuntary switches; 0.06 voluntary: it never waits
    for work); relays at nice 10 changed neither that nor the throughput (3 pairs).
  - Temporary b-trees, found by counting instructions rather than time: the machine's server under
    \`valgrind --tool=callgrind --separate-threads=yes\`, one client looping claim → check →
    release, counted over 20 s after a warm-up (\`callgrind_control -i on\`, then \`-d\`), divided by
    the calls made meanwhile (the claims created in the window, from the database). Its main
    thread's instructions per call repeat within ~1.5 % (wall-clock figures on this host swing
    ±25 %); the kernel's share is not counted. 4.4 b-trees a call were opened and dropped
    (\`sqlite3BtreeOpen\`), each zeroing a 4 KB page (\`memset\` under \`getPageNormal\`: 6.3 % of the
    thread's instructions): SQLite builds one for \`x IN (SELECT value FROM json_each(?))\`, for
    every CHECK written \`x IN ('a', 'b', 'c')\` (three values or more) on each row written, for
    RETURNING rows and for an UPDATE of the column its loop reads by. Per cycle: the live-pattern
    read at a path's bases (2), the three reads of the neighbours' freshness (5, DISTINCT
    included), the claim's insert (3 CHECKs) and release (1), the expiry run before every claim (3).
    Cut in turn (instructions a call, 2 runs each): the lists walked first
    (\`FROM json_each(?) CROSS JOIN …\`, each value sought in the index; CROSS JOIN keeps the planner
    from reading the table and the list for each row) 542–546 K → 490–494 K; whether any claim is
    due read first, through the index of expiring claims, 483–496 K (within the count's spread);
    the CHECK lists of claims and notifications as comparisons (migration 29 builds the two tables
    anew, rowids kept) 484–487 K → 454–455 K; a claim's few patterns ordered in JavaScript rather
    than by SQLite's sorter, 466 → 450 K. In all 542 → 450 K (−17 %); with 8 clients under
    valgrind 782 → 660 K (−16 %). The notifications' delivery (one \`UPDATE … RETURNING\`, 2
    b-trees) and PostgreSQL are as they were.
    The 8 clients beside the peer after these cuts (\`--throughput\`, two runs minutes apart): 2.62
    (1,911 against 730 ops/s; our rounds 2,164 and 1,658) and 1.74 (1,405 against 809; 1,153 and
    1,657), CPU per call 0.74 and 1.03 against 2.19 and 2.01 ms; before them, 1.72 (1,165 against
    678; 739 and 1,591). Our two rounds differ by up to a third where the peer's differ by 3–5 %:
    one server takes every client's calls, so whatever slows it (the host, a collection, a pause
    for the log's copy) slows them all.
    Recorded after them (\`--record\` on this host, not kept as the table above, made on a host 3–4×
    faster; bare \`node -e 0\` 96–102 ms): the 8 clients 1.96 (1,649 against 843 ops/s; rounds
    1,800 and 1,499), the hub 0.81 of the Hono floor, cold start 0.68× the peer (bare + 14 ms), PreToolUse with the server bare + 26 ms and without it + 59 (every
    hook figure is bare node's 100 ms and more here), \`collab_check\` p99 4.27 ms at 10,000 claims
    (the peer's 10.88).
  - Recorded on this host before the b-trees were cut (not kept as the table above, made on a host
    3–4× faster): the 8 clients
    1,127 against 687 ops/s (1.64; 1.80 in a \`--throughput\` run an hour before, 1,638 against 910),
    CPU per call 1.26 against 2.60 ms (0.49); the hub 0.71 of the Hono floor (397 against 556);
    cold start 0.65× the peer, bare + 0 ms; PreToolUse with the server bare + 19 ms, without it
    bare + 50; \`collab_check\` p99 5.22 ms at 10,000 claims (the peer's 17.14). Where the machine is
    the bound, the ratio is (the peer's 2.60 + a client's) ÷ (ours + a client's): 2× needs ours,
    relay and share of the server, 10–17 % under 1.26 ms.
- **Writes committed together** (2026-11-28, seventh session; an AMD EPYC host, bare \`node -e 0\`
  25–90 ms, the peer 1,450–1,750 ops/s with the 8 clients). Each cut measured as CPU per call of the
  machine's server under the 8 clients, builds alternating (\`/proc/<pid>/stat\` over 5 s, 3 pairs
  or more), and per statement with a preload timing node:sqlite's statements in the server.
  - A commit took 66 µs, 0.85 of them a call: 56 µs of the server's 169 µs a call in SQLite. It
    writes each page the transaction changed to the log, two \`pwrite\`s a page (a claim 14 pages, a
    release 10: the claims and their files, their indexes, the event, the call's record), and every
    read outside a transaction took and dropped a lock of the shared memory (18 \`fcntl\` a call).
    The writes a connection begins within two turns of the event loop now share one transaction
    (\`store/write-groups.ts\`), each still deciding on what those before it wrote, each answered once
    the group is committed. Under the 8 clients ~4 writes a group: 0.21 commits a call, 6.6 log
    pages a call (13.6 before), 3 \`fcntl\` (18); SQLite 169 → 116 µs a call. Server CPU per call
    0.39 → 0.35 ms with the group committed at the end of its own turn, → 0.33 ms a turn later;
    four or eight turns did no better.
  - A savepoint around each write of a group (so that one that fails takes back only its own)
    made SQLite copy every page a write changed: an insert of a claim 27 → 32 µs, of a
    notification 14 → 42; nothing was left of the gain. A write that fails having changed rows
    rolls its group back instead, and the others run again.
  - The news every answer carries and whether the session has deliveries to act on come from one
    statement, after the call: 0.323 → 0.316 ms (4 pairs; within the noise, one statement less).
  - Tried and dropped: two machine servers on one database file, 4 relays each: 2,300 ops/s against
    2,450–2,900 for one, each server's CPU per call up (0.45 against 0.36–0.40 ms): each commit of
    one empties the other's page cache.
  - What a recorded write returned went through node:v8's serializer (7.5 µs a write, ~300 bytes,
    timed in the server); a value JSON keeps exactly now goes as JSON (\`j:\`), any other as before:
    0.309 → 0.292 ms (4 pairs). A write's step was found by hashing its function's text, a new
    string at every call (2.6 µs for 1.8 KB in a loop); it is now compared with the known texts of
    its length (0.1 µs). A delivery of notifications read them and marked each one seen: one
    \`UPDATE … RETURNING\` now.
  - A claim compiled each of its paths to a glob automaton, to refuse one too large before
    anything is written, literal paths too: in the bench every claim names a new file, so each
    built a one-off automaton, and the cache of compiled globs (20,000) filled with them and was
    emptied. A literal path (nothing in it can be too large) is now compiled when it is matched
    only: server CPU per call 0.312 → 0.279 ms (4 pairs). Found with V8's sampling heap profiler in
    the server (63 KB allocated a call; compiling one-off globs was 6.6 % of it).
  - Texts built anew at every run (statements written with \`\${…}\`, a write's function text) were
    hashed whole at every lookup; they are now found by length, then compared
    (\`core/texts-by-length.ts\`). The times shown lately are kept as text; whether a neighbour's
    copy is stale before a check is asked synchronously. Each within the noise.
  - Where the rest goes, by leaving each part out of a build (not kept; 3–6 pairs each): the call
    records 0.05 ms of the server's 0.33 ms a call (before JSON), delivering notifications 0.05
    (claims of the shared files notify the holders: a quarter of the answers carry one, ~1 KB
    against 263 bytes), the check's look at the neighbours' changes 0.03, next steps ~0.01. The
    answer's socket write is 11 % of the server, SQLite 43 % (\`run\`, \`exec\`, \`all\`, \`get\`).
  - Recorded twice. With the groups (load average 1.3–2.9, bare \`node -e 0\` 25–27 ms): the 8
    clients 2,980 against the peer's 1,668 ops/s (1.79; 1.33 on the same host before the groups,
    \`--throughput\`), CPU per call 0.45 against 0.99 ms; the hub 1,335 against the Hono floor's 2,151
    (0.62; 0.51 before); cold start 0.55× the peer, bare + 8 ms; \`collab_check\` p99 1.92 / 2.03 ms
    at 10,000 / 100,000 claims; PreToolUse bare + 23 ms without the server, + 11 with it. With the
    later cuts too (the table above; bare \`node -e 0\` 30–31 ms, every figure of both servers ~15 %
    slower than in the first): the 8 clients 3,126 against 1,702 (1.84), CPU per call 0.42 against
    1.01 ms; the hub 0.57 of the floor (its two rounds 1,295 and 892 ops/s); cold start 0.57×, bare
    + 8 ms; \`collab_check\` p99 2.47 / 2.18 ms (2.52 at 100 claims, the peer's 1.98); every hook
    within bare + 25 ms. With the globs and the smaller cuts (the table above; bare \`node -e 0\`
    28–30 ms): the 8 clients 2,920 against 1,599 (1.83; its two rounds 2,609 and 3,230; 1.88 in a
    \`--throughput\` run minutes before), CPU per call 0.49 against 1.05 ms; the hub 0.56 of the
    floor; cold start 0.55×, bare + 8 ms; \`collab_check\` p99 2.57 / 2.41 ms at 10,000 / 100,000
    claims (2.23 at 100, the peer's 1.82); PostToolUse after an Edit bare + 26 ms, every other
    hook within bare + 25. The p99 at 10,000 claims is the host's: this session's first build with
    the groups and its last, 1,000 checks each in one run, alternating, gave 2.45 and 1.66 ms, then
    2.66 and 2.61 ms (p50 0.45–0.49 ms in all four).
- **Rows from arrays, a relay that reads ids, and the tail at 10,000 claims** (2026-11-28, sixth
  session; an Intel Xeon host, bare \`node -e 0\` 26–28 ms, the peer 1,800–1,900 ops/s with the 8
  clients). Each cut measured as CPU per call of the machine's server and of a relay under the 8
  clients, builds alternating (\`/proc/<pid>/stat\` over 5 s; 3 pairs or more).
  - node:sqlite made every column's name a string again for every row it returned as an object
    (\`ColumnNameToName\`, with the hashing and interning under it, in \`perf\`): a session's row of
    24 columns read in 5.5 µs, of which reading it 2.5. Statements that name their columns now
    return arrays, made into objects by a function built once per statement (\`store/sqlite-node.ts\`):
    3.1 µs. A \`*\` statement keeps node:sqlite's objects, since its columns are the table's as it is
    when it runs (a newer version's migration may change them under a running server); the hot
    session, claim and change-set reads name theirs. Server CPU per call 0.41 → 0.37 ms, the 8
    clients 2,540 → 2,820 ops/s.
  - A claim of several paths reads the live patterns at all their ancestors in one statement; a
    release answers from the row it read and what it wrote, not from the claim read again; a check
    normalises its paths once: 0.380 → 0.372 ms.
  - The relay read every line from the server as JSON to know which request it answers; it now reads
    the id from the line's start as the server writes responses (\`{"jsonrpc":"2.0","id":…,"result"\`),
    parsing any other line as before: relay CPU per call 0.109 → 0.102 ms.
  - The machine's server starts with a 64 MiB old generation: the default limit, reached while the
    first calls load and compile the code, cost one of them a full collection of 5–12 ms. 1,000
    checks at 10,000 claims beside the peer, 5 runs each: slowest call 5.2–12.3 → 3.1–5.1 ms, p99
    1.70–1.95 → 1.59–1.90 ms, RSS 143 → 145 MiB.
  - \`collab_check\` p99 at 10,000 claims was 17–22 ms in the recorded runs and ~2 ms alone: the
    bench made its repository with \`git init\` the moment before 100 seeded sessions read their
    copies, within the freshness slack of the folder's change (50 ms), so every check of a path
    under it read each copy again (a git process each): 17–19 checks of 17–27 ms. The bench's
    repositories are now made 60 ms before use, as a client meets one.
  - The git processes a long-lived server starts now start from a spawner process of its own
    (\`integrations/spawner.ts\`): a start forked the server, 1.4 ms of its event loop each (p50, up to
    6 ms at 136 MiB; 219 processes and 323 ms in one such check run), every session's call waiting.
  - Tried and dropped (no change past the noise): a 100 ms memory of a process's answer to signal 0
    (3 % of the server in V8's profile, which samples on the signals syscalls return to: \`perf\` and
    the CPU clock said nothing changed); young generations of 32 and 64 MiB; checkpoints every 200 ms
    instead of 50, and a log started over at 4,000 pages instead of 1,000.
  - Where the time goes now (the 8 clients, \`perf\` on the server with its JavaScript named): per
    call 0.37 ms in the server (SQLite ~42 %: ~13 statements and 0.86 commits a call, a claim's
    commit 12 pages and a release's 8, 2 writes each; commits 10 % of the server), 0.10 ms in the
    relay (a third of it the kernel switching processes), ~0.24 ms in the bench's client. Twice the
    peer here needs relay and server at ~0.31 ms a call together.
  - Recorded on this host (the table above; bare \`node -e 0\` 28–29 ms, load average 2–5): the 8
    clients 2,580 against the peer's 1,702 ops/s (1.52), CPU per call 0.52 against 0.99 ms; the hub
    1,107 against the Hono floor's 2,183 (0.51); cold start 0.67× the peer and bare + 16 ms;
    \`collab_check\` p99 2.13 / 2.38 ms at 10,000 / 100,000 claims (p50 0.54 / 0.42 ms), 1.68 ms at
    100; every hook within bare + 25 ms (PreToolUse bare + 22 without the server, + 11 with it); a
    session's \`serve\` 0.45× the peer's memory. The run before it, in a quieter half hour: p99 1.75
    / 1.66 ms (met), cold start 0.57×, the 8 clients 1.50× (2,851 against 1,900). The two runs
    before the bench's repositories were made older: p99 18.96 and 22.23 ms at 10,000 claims.
- **Planned again on every run, and read again at once** (2026-11-28, fifth session; an AMD EPYC
  host whose bare \`node -e 0\` took 60–100 ms, the peer 750–970 ops/s with the 8 clients).
  - SQLite planned most of the store's statements again on every run. SQLite 3.54 (node:sqlite in
    Node 22 and 24) marks a statement to be prepared again when a value is bound to a parameter its
    planner looked into (a \`col = ?\` on a primary key, in a join or with an ORDER BY; a \`LIMIT ?\`,
    which 3.53 under better-sqlite3 looks into as well), and node:sqlite clears a statement's
    bindings before each run, which counts as binding. Found with \`perf\` on the hub (native frames,
    \`--perf-basic-prof\` for the JavaScript above them): \`sqlite3Reprepare\` was 7.5 % of its busy
    time, under statements of every kind. The store now prepares each placeholder as \`+?\`
    (\`store/sql.ts\`, \`sqliteText\`): the same value to SQLite, no bare parameter to its planner, the
    same plans (\`EXPLAIN QUERY PLAN\`). In a loop: a read by primary key 2.4 → 1.0 µs, by an index
    with ORDER BY 8.3 → 3.0 µs, with \`LIMIT ?\` 3.2 → 1.3 µs (better-sqlite3: 3.8 → 1.2 µs);
    \`sqlite3Reprepare\` in the hub 7.5 → 0.1 %. The 8 clients, 2 alternating pairs, the peer in each
    run: 944 → 1,150 ops/s, ours ÷ the peer 1.17 → 1.37 and 1.47, CPU per call 1.49 → 1.23 ms. This
    replaces the limits written into a statement's text (below), whose cost was this one.
  - Sessions that checked at once before any of their copies had been read read each copy several
    times: a check reads the copies it finds never read, and every check that asked the store while
    the first read was under way (~100 ms here: four git processes) read the copy again once it was
    done. 21 whole reads (84 git processes) for 8 sessions in the hub's first seconds, where a
    \`spawn\` costs the hub 9–15 ms (fork of a process of 150–450 MB, measured in a loop). A whole read
    this process recorded since the store was asked now counts as the store's
    (\`ChangesService.wholeReadAt\`): 8 reads. A repository without a commit takes the empty tree's id
    without running git. The hub under the 8 HTTP clients, 3 alternating pairs: 352 → 453 ops/s, its
    CPU per call 2.19 → 1.59 ms (test: \`test/features/changes.test.ts\`, 4 sessions × 3 checks at once
    read each copy once; 7 and 9 times before).
  - \`serve\` runs its relay without V8's code cache: the 18 KB relay compiles in less time than
    loading node:vm and node:zlib and checking a cache take. Its cold start, 3 runs of 25
    interleaved starts measured as CPU (\`perf stat -e task-clock\`, the wall clock being too noisy on
    this host): 4–9 ms less. The hook's first step keeps its cache (no difference measured).
  - Where the machine's server's time goes now (the 8 clients; statements timed in the server, \`perf\`
    beside): ~0.84 ms a call, of which SQLite ~40 % — commits 0.11 ms a call (0.9 commits a call:
    claim, release, and a notification marked seen; ~28 log-page writes each, \`strace -c\`), 15
    statements of 10–25 µs —, the socket's writes ~6 %, file stats and process probes ~3 % each.
    The relays 0.27–0.40 ms a call. Twice the peer on this host needs relay and server at ~0.7 ms a
    call together: what is left to cut is pages per commit (a claim touches ~14 b-trees: its table
    and 5 indexes, the files' table and 4, the events, the call's record) and statements per call.
  - \`collab_check\` at 10,000 claims (3 × 1,000 checks from the server's start): p50 0.73–0.93 ms,
    p99 2.5–3.8 ms after the first 1,000, 5.3–6.0 ms in them, with ~100 calls over 2 ms: the first
    ~100 as the code warms, the rest in bursts. Background work started 20 × later (an experiment
    build): 59 slow calls, p99 5.0 ms; not what makes the tail.
  - Recorded on this host (the table above; bare \`node -e 0\` 95–107 ms in the run, load average
    up to 4.8): the 8 clients 1,311 against the peer's 871 ops/s (1.50), CPU per call 0.99 against
    1.77 ms; the hub 421 against the Hono floor's 786 (0.54; an hour before, in a loaded run, 312
    against 454: 0.69); cold start 0.69× the peer and bare + 12 ms (met); \`collab_check\` p99 4.49 /
    3.98 ms at 10,000 / 100,000 claims (p50 1.42 / 0.76 ms); PreToolUse with the server bare + 26
    ms, without it bare + 56; the Stop hook bare + 25 (met); a session's \`serve\` 0.50× the peer's
    memory (met). Team mode 100 ops/s (the earlier run's 41 was this host's PostgreSQL in a loaded
    minute: 2 alternating pairs of \`teamRound\` gave 67 before this session's changes, 87–92 after).
- **The watcher's long turns, and the relay's lines** (2026-11-28, fourth session; an AMD EPYC host
  about half as fast as the day's earlier ones: bare \`node -e 0\` 40 ms, the peer 741 ops/s with
  the 8 clients, \`collab_check\` p50 0.7–1.0 ms at 10,000 claims).
  - At 10,000 claims the watcher of writes no hook saw still held the loop at times: the claimed
    folders not created yet (up to 500) were polled every second with an error thrown for each
    (6.4 ms at once on this host; now a stat each, 1 ms, and a tenth of them every 100 ms), its
    first look added up to 500 folder watches in one go (89 ms; now between turns of the loop),
    and it read its 2,000 live patterns in one statement (43 ms; now 50 at a time, keyed by base
    and rowid, \`claimPatterns.livePatternsOf\`). \`collab_check\` at 10,000 claims, 3 alternating
    pairs of 3 × 1,000 checks from the server's start: the first 1,000 p99 5.0–7.8 → 6.1–6.6 ms
    and max 30–34 → 15–28 ms; the later rounds' p99 2.1–4.8 ms either way, this host's noise.
  - The machine's server reads each relay's lines straight off its socket
    (\`mcp/line-transport.ts\`): no stream in between, each line parsed once, a plain \`tools/call\`
    passed on as parsed, every other message checked against the protocol's schema as the SDK's
    stdio transport does. Server CPU per call −5 % serially (user 0.540 → 0.512 ms a check, 3
    alternating pairs) and −4.5 % under the 8 clients (1.287 → 1.230 ms; 736 → 763 ops/s, 3 pairs).
  - Where the CPU goes, on this host: one client's checks in a row cost the server 0.62–0.74 ms
    each (user + system) against 0.27–0.30 ms through the same tool path in one process (no
    transport), and cost its relay 0.17–0.23 ms; under the 8 clients the server spends 1.1–1.3 ms
    a call, each relay 0.41–0.6, the peer's server 2.18. The relay's JavaScript is ~5 % of its busy
    time; per call it makes 2 reads, 2 writes, ~3 epoll waits and ~1.4 futex calls (\`strace -c\`):
    what it costs is being woken twice a call, and that cost grows when both cores are busy. The
    client's own share (~0.5 ms a call, the same beside either server) being what it is, twice the
    peer needs relay and server together at ~0.83 ms a call on this host, half of today's. Left:
    SQLite (a third of the server's busy time, 15 statements a call, ~15–25 µs each here), the
    tools' own reads, and three processes woken per call.
  - Tried and dropped: a larger young generation (\`--max-semi-space-size=64\`, 2 alternating pairs:
    \`collab_check\` p99 unchanged; the tail is not the collector's), the relays at a lower priority
    (\`renice 10\`: nothing past the noise).
  - Recorded on this host (the table above): 8 clients 837 against the peer's 670 ops/s (1.25), the
    hub 390 against the Hono floor's 760 (0.51; the floor's two rounds 656 and 864), cold start
    0.55× the peer and bare + 20 ms, \`collab_check\` p99 6.32 / 4.22 ms at 10,000 / 100,000 claims
    (p50 2.28 / 1.05 ms: the 10,000 run fell in a noisy minute), PreToolUse without a server bare +
    46 ms, with it bare + 25 ms.
- **collab_check p99** (before): p50 is 0.8–1.9 ms, but 2–3 % of calls take 3–10 ms, in the server as
  much as through the relay (above). Not git (none runs in these checks) and not the watcher of
  writes no hook saw (A/B with it off at 10,000 claims: p99 3.97–4.10 against 4.16–4.61 ms); in
  earlier profiles about half were JIT compilation and the rest young-generation garbage
  collection (~1.3 ms each, every ~80 ms under this load). A bare stdio echo server has a p99 of
  0.45–0.7 ms on this machine.
- **Claims at scale**: a claim used to count the project's active claims twice, once inside the
  write lock, and read the patterns added meanwhile through an index ordered by path (0.3 + 0.4 ms at
  10,000 claims, growing with them). A counter on the project row and a read by rowid made both a
  single seek: claim → check → release at 10,000 claims went from 5.1 to 1.9 ms.
- **Memory**: a session costs its relay, ~14 MiB of PSS (52 MiB resident, mostly Node's own,
  shared with every other node process); the machine's server is one process for all sessions,
  ~125 MiB of PSS after the throughput run (144–150 MiB resident with 100 to 100,000 claims). The
  watcher of writes no hook saw held ~40 MiB of that at 10,000 claims (A/B with it off: 116 MiB
  resident against 156), its view of every held pattern with a compiled glob each; compiled only
  when a path is matched (2026-11-28), the server is 146 MiB there, not 211. The server itself: a bare \`node\` is
  40 MiB resident, the SDK's and our zod schemas, the bundle and SQLite's page cache the rest.
- **Cold start** (before the relay; what the machine's server now pays once, and \`serve
  --in-process\` on every start): reading and deserialising the bundle and its code cache (~25 ms), building the
  SDK's and the tools' zod schemas at load (~30 ms), and garbage collection while doing so (~20 ms:
  six scavenges that copy almost everything, since the schemas live on; larger semi-spaces do not
  help). The peer has no SDK and no zod. A V8 startup snapshot would hold the built schemas, but
  \`node --snapshot-blob\` must be on the command line that the client runs, and a snapshot that
  does not match the installed Node stops the server from starting at all: not worth a server that
  may not start.
- **Hooks without a server** (2026-11-27, night): the whole hook loaded Node modules it never used: Web
  Crypto for the first row id (~4 ms: the hook that records an edit makes one), \`node:v8\` and
  \`node:crypto\` for the call records (~2 ms), \`node:worker_threads\` for the checkpointer
  (~1 ms) and \`node:http\` for asking a hub (~2 ms). Ids now come from the system's random device
  (a 4 KB pool; Web Crypto where there is none), the rest load where used: PreToolUse bare + 29 →
  22–23 ms, PostToolUse after an Edit bare + 28.5 → 21 ms (\`node bench/hooks.mjs\`, same host).
- **Hooks** (2026-11-27): a hook's first step is a bundle of its own (\`dist/hook.cjs\`, 9 KB): when
  the machine's server runs it asks it and prints the answer, and the whole hook (\`dist/hot.cjs\`,
  259 KB minified) is never loaded: PreToolUse with the server running went from bare + 64 to bare
  + 19 ms in runs on the same (loaded) machine. Without a server it runs the whole hook after the
  first step, as before.
- **Hooks** (earlier): better-sqlite3 found its addon through the \`bindings\` package (a dozen paths tried,
  ~4 ms) and loaded its dozen files outside the code cache (~8 ms); the code cache's checksum
  loaded \`node:crypto\` (~5 ms) and \`node:child_process\` came with the git helpers (~4 ms). All
  four are gone (bare + 46 → bare + 30 ms in an A/B run). What is left: reading stdin as a stream
  loads Node's stream and net modules (~5 ms; a synchronous read could block past the hook's time
  budget), the code cache (~3 ms), opening the database and its pragmas (~4 ms), and the check.
- **The hub over HTTP** is one process: every client's call runs on its one event loop. Where its
  CPU goes, from a profile under the 8-client load (\`node --cpu-prof\`, 2026-11-25), per call of
  ~2.8 ms: ~0.6 ms SQLite statements and \`BEGIN\`/\`COMMIT\`, ~0.6 ms the socket writes of the answers
  (on loopback the kernel's TCP work for both ends runs in the writer's system call), ~0.15 ms the
  worktree reads of the 8 sessions' checks (git started once a second per session, from a process
  of 150 MB), ~0.2 ms zod and the SDK, and garbage collection. The answers used to go out in three
  writes each (headers, the event, the end of the stream): an event stream that ends at once is
  now sent in one (\`http/responses.ts\`), 445 → 512–527 ops/s under the profiler. The bare Hono
  floor does none of the work; several hubs on one PostgreSQL (team mode) are how the hub scales
  past one core.
- **Team mode** is not faster on one 2-core machine, and is not meant to be: the 2 replicas,
  PostgreSQL's backends and the 8 clients share the same two cores, and what SQLite reads in the
  hub's own process is a round trip to PostgreSQL (one claim → check → release cycle is 25
  statements, 2 of them write transactions, counted 2026-11-24). Every write takes one advisory
  lock, as SQLite's writers take turns, so writes do not scale with replicas; reads do. Two
  replicas did about a third of one hub on SQLite here (0.33 to 0.37× ops in recorded runs); naming
  every statement once per connection and opening a transaction in one round trip moved it from
  0.23× to about 0.33× (runs of \`bench/hub.mjs\`). What replicas buy is no single point of
  failure (a replica killed mid-run, its clients go on with the other: \`test/e2e/team.test.ts\`)
  and room on several machines.
`;
  // The sections after the table: this run's where it measured them (merge history and semantic
  // history need fetched repositories), every other one as recorded before (the SQLite drivers,
  // landing, hand-made cases: written by their own runs or by hand).
  const before = readFileSync(new URL('../docs/benchmarks.md', import.meta.url), 'utf8');
  const fresh = new Map([
    [HISTORY_HEADING, history ? historySection(history) : null],
    [SEMANTIC_HISTORY_HEADING, semanticHistoryRun ? semanticHistorySection(semanticHistoryRun) : null],
  ]);
  const heading = (section) => section.split('\n')[0];
  const inTable = new Set([heading(doc.slice(doc.indexOf('\n## ') + 1))]);
  const kept = sectionsOf(before)
    .filter((section) => !inTable.has(heading(section)))
    .map((section) => fresh.get(heading(section)) ?? section);
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
