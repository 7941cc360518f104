// `npm run bench -- --drivers`: ours on node:sqlite beside ours on better-sqlite3, the same build in
// one run (bench/drivers.mjs makes the better-sqlite3 one), with a bare `node -e 0` beside each
// figure; then the install from a fresh clone each way. `--record` writes the section "SQLite
// drivers" of docs/benchmarks.md and keeps the rest of the file.
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { load, withSection } from './common.mjs';
import { betterSqliteBuild, installTimes } from './drivers.mjs';
import { hooks } from './hooks.mjs';
import { BETTER_SQLITE3, ours, targetNamed } from './servers.mjs';

const DOC = new URL('../docs/benchmarks.md', import.meta.url);
const HEADING = '## SQLite drivers';

export async function driverBench({ coldStart, checkAt, throughputRounds, progress, record, loads }) {
  const builtIn = process.getBuiltinModule?.('node:sqlite');
  if (!builtIn) {
    progress(
      `Node ${process.versions.node} has no node:sqlite: run the driver comparison on Node 22.13 or later.`,
    );
    process.exit(2);
  }
  progress('better-sqlite3 for this Node…');
  process.env.BENCH_BETTER_SQLITE3_CLI = betterSqliteBuild(progress);
  const better = targetNamed(BETTER_SQLITE3);
  const node = { ...ours, name: 'ours' };
  const targets = [node, better];
  progress('cold start, both drivers and bare node in turn, 21 rounds…');
  const cold = await coldStart(targets);
  const scale = [];
  for (const claims of [10_000, 100_000]) {
    progress(`collab_check over stdio with ${claims.toLocaleString('en')} live claims…`);
    scale.push(await checkAt(claims, targets));
  }
  loads.push(load());
  progress('the PreToolUse hook, 1,000 live claims (40 rounds)…');
  const hook = await hooks(targets);
  progress('8 clients, claim + check + release for 5 s, two rounds each…');
  const tp = await throughputRounds(targets);
  loads.push(load());
  progress('install from a fresh clone, both ways…');
  const install = installTimes(progress);

  const fmt = (n, d = 1) => (n === null || n === undefined ? '–' : n.toFixed(d));
  const ms = (n, d = 1) => `${fmt(n, d)} ms`;
  const ratio = (a, b) => fmt(a / b, 2);
  const tpText = (t) => {
    const errors = Object.values(t.errors).reduce((n, v) => n + v, 0);
    return `${Math.round(t.opsPerSecond)} ops/s, ${t.busy} busy, ${t.lost} lost, ${errors} errors seen by clients, the server crashed ${t.crashes} times`;
  };
  const rows = [
    [
      "a client's cold start, the machine's server running (median of 21)",
      `${ms(cold.ours)} (bare + ${fmt(cold.ours - cold.bare, 0)})${cold.failed.ours ? `; ${cold.failed.ours} of 21 starts got no result` : ''}`,
      `${ms(cold[BETTER_SQLITE3])} (bare + ${fmt(cold[BETTER_SQLITE3] - cold.bare, 0)})${cold.failed[BETTER_SQLITE3] ? `; ${cold.failed[BETTER_SQLITE3]} of 21 starts got no result` : ''}`,
      ratio(cold.ours, cold[BETTER_SQLITE3]),
    ],
    ...scale.map((r) => [
      `\`collab_check\` round trip, ${r.claims.toLocaleString('en')} live claims: p50 / p99`,
      `${ms(r.ours.p50, 2)} / ${ms(r.ours.p99, 2)}`,
      `${ms(r[BETTER_SQLITE3].p50, 2)} / ${ms(r[BETTER_SQLITE3].p99, 2)}`,
      `${ratio(r.ours.p50, r[BETTER_SQLITE3].p50)} / ${ratio(r.ours.p99, r[BETTER_SQLITE3].p99)}`,
    ]),
    ...scale.map((r) => [
      `claim → check → release, ${r.claims.toLocaleString('en')} live claims: p50`,
      ms(r.ours.cycle50, 2),
      ms(r[BETTER_SQLITE3].cycle50, 2),
      ratio(r.ours.cycle50, r[BETTER_SQLITE3].cycle50),
    ]),
    [
      'claim + check + release, 8 clients over stdio, one database (mean of 2 rounds)',
      tpText(tp.ours),
      tpText(tp[BETTER_SQLITE3]),
      `${ratio(tp.ours.opsPerSecond, tp[BETTER_SQLITE3].opsPerSecond)} (higher is better)`,
    ],
    [
      'the PreToolUse hook denying an edit, 1,000 live claims (median of 40)',
      `${ms(hook['ours pre'])} (bare + ${fmt(hook['ours pre'] - hook.bare, 0)})`,
      `${ms(hook[`${BETTER_SQLITE3} pre`])} (bare + ${fmt(hook[`${BETTER_SQLITE3} pre`] - hook.bare, 0)})`,
      ratio(hook['ours pre'], hook[`${BETTER_SQLITE3} pre`]),
    ],
    [
      `install from a fresh clone, npm ${install.npm}, package cache warm (downloads aside)`,
      `${fmt(install.shipped.seconds, 0)} s, no compiler on PATH${install.shipped.ok ? '' : ' (**failed**)'}`,
      `${fmt(install.built.seconds, 0)} s, building from source (python3, make, g++)${install.built.built ? '' : ' (**no addon built**)'}`,
      ratio(install.shipped.seconds, install.built.seconds),
    ],
  ];
  const table = [
    '| figure | node:sqlite | better-sqlite3 12 | ratio (node:sqlite ÷ better-sqlite3) |',
    '|---|---|---|---|',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.versions.node} (SQLite ${sqliteVersion(builtIn)}), ${process.platform}`;
  const context = `bare \`node -e 0\` in the same runs: ${ms(cold.bare)} (cold start rounds), ${ms(hook.bare)} (hook rounds); load average (1/5/15 min): ${loads.map((l) => l.join('/')).join(' → ')}`;
  console.log(`\nMachine: ${machine}\n${context}\n\n${table}\n`);
  if (!record) return;
  const section = `${HEADING}

\`npm run bench -- --drivers\` (on a Node that has \`node:sqlite\`): the same build on each driver in one
run, taking turns, the figures a driver moves. better-sqlite3 is built for the running Node in a
temporary folder when the project's own build is for another. The install is \`npm ci\` of a fresh
clone with the package cache filled by an install before it: as shipped, with only node, npm, git
and sh on PATH (nothing needs building on Node 22.13 and later; better-sqlite3's optional install
fails at once without a compiler and npm drops it); and with every install script allowed and a
compiler, building better-sqlite3 from source. Why the driver
was chosen: \`docs/architecture.md\`, "SQLite driver".

Recorded ${new Date().toISOString().slice(0, 10)} on ${machine}.
${context}.

${table}
`;
  writeFileSync(DOC, withSection(readFileSync(DOC, 'utf8'), HEADING, section).trimEnd().concat('\n'));
  progress('docs/benchmarks.md: the SQLite drivers section updated.');
}

function sqliteVersion(sqlite) {
  const db = new sqlite.DatabaseSync(':memory:');
  const { v } = db.prepare('SELECT sqlite_version() AS v').get();
  db.close();
  return v;
}
