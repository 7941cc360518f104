// The hostile and careless requests of the hardening work, replayed against the built CLI over
// real stdio and real hook processes: how long each takes to be answered (or refused), how large
// the answers are, and what a concurrent session sees meanwhile. `node bench/probes.mjs` (after
// `npm run build`); prints a table, each time beside a bare `node -e 0` of the same run.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bareNode, cleanup, gitRepo, homePaths, lib, median, stdioServer, tempDir } from './common.mjs';

const CLI = new URL('../dist/cli.cjs', import.meta.url).pathname;
const rows = [];
const progress = (m) => process.stderr.write(`${m}\n`);

/** A bare `node -e 0`, median of 5. */
const bareNodeMedian = () => median(Array.from({ length: 5 }, bareNode));

/** The built server over stdio (see `stdioServer` in common.mjs). */
const serve = (cwd, home, args = []) =>
  stdioServer([process.execPath, CLI, 'serve', ...args], {
    cwd,
    env: { ...process.env, SESSION_COLLAB_HOME: home },
  });

const errorOf = (r) => r.result?.structuredContent?.error ?? null;
const fmt = (ms) => `${ms.toFixed(ms < 10 ? 2 : 0)} ms`;

function row(probe, after, note = '') {
  rows.push({ probe, after, note });
  progress(`  ${probe}: ${after}${note ? ` — ${note}` : ''}`);
}

/** The slowest answer a second session gets to collab_check while `work` runs. */
async function meanwhile(other, work) {
  let slowest = 0;
  let done = false;
  const loop = (async () => {
    while (!done) slowest = Math.max(slowest, (await other.call('collab_check', { files: ['src/x.ts'] })).ms);
  })();
  const result = await work();
  done = true;
  await loop;
  return { result, slowest };
}

async function claims() {
  progress('claims: long `**/` chains, deep paths, huge filters…');
  const home = tempDir('probe-home-');
  const repo = gitRepo();
  const a = serve(repo, home);
  const b = serve(repo, home);
  const c = serve(repo, home);
  await c.call('collab_session_start', { name: 'bystander', project_root: repo });
  const held = await a.call('collab_claim', {
    files: [`${'**/'.repeat(80)}x`],
    intent: 'held',
    exclusive: true,
  });
  const chain = await meanwhile(c, () =>
    b.call('collab_claim', { files: [`${'**/'.repeat(80)}y`], intent: 'chain' }),
  );
  row(
    "claim '**/'×80+'y' against a held '**/'×80+'x'",
    `${fmt(chain.result.ms)} (${chain.result.result.structuredContent?.status ?? errorOf(chain.result)?.code})`,
    `held claim ${held.result.structuredContent?.status}; another session's check meanwhile: slowest ${fmt(chain.slowest)}`,
  );
  const deep = Array.from({ length: 8 }, (_, i) => `${Array(10_000).fill(`d${i}`).join('/')}/f.ts`);
  const deepRun = await meanwhile(c, () => b.call('collab_claim', { files: deep, intent: 'deep' }));
  row(
    '8 paths of depth 10,000',
    `${fmt(deepRun.result.ms)} (${errorOf(deepRun.result)?.code ?? 'accepted'})`,
    `other session's check meanwhile: slowest ${fmt(deepRun.slowest)}`,
  );
  const huge = await b.call('collab_claims_list', { path_filter: 'a/'.repeat(500_000) });
  row('collab_claims_list path_filter of 1 MB', `${fmt(huge.ms)} (${errorOf(huge)?.code ?? 'answered'})`);
  await Promise.all([a.close(), b.close(), c.close()]);
  cleanup(home, repo);
}

async function manyClaims() {
  progress('20,000 claims: answers and notifications…');
  const home = tempDir('probe-home-');
  const repo = gitRepo();
  const holder = serve(repo, home);
  const started = await holder.call('collab_session_start', { name: 'holder', project_root: repo });
  if (started.result?.isError) throw new Error(JSON.stringify(started.result));
  const app = new lib.App({ paths: homePaths(home), config: lib.DEFAULT_CONFIG });
  const [session] = (await app.sessions.list(null, true)).items;
  const row0 = await app.store.sessions.get(session.id);
  await app.store.write(async () => {
    for (let i = 0; i < 20_000; i++)
      await app.store.claims.insert(
        {
          id: `c${i}`,
          session_id: row0.id,
          project_id: row0.project_id,
          intent: `work ${i}`,
          scope: 'small',
          exclusive: 0,
          created_at: app.now(),
          expires_at: null,
        },
        [{ pattern: `pkg${i % 100}/src/file${i}.ts`, base: `pkg${i % 100}/src/file${i}.ts` }],
      );
  });
  app.store.db.exec('PRAGMA wal_checkpoint(TRUNCATE)'); // the bulk insert is setup: no one else should pay for it
  await app.close();
  const sweeper = serve(repo, home);
  const writer = serve(repo, home);
  await writer.call('collab_session_start', { name: 'writer', project_root: repo });
  let slowestWrite = 0;
  let done = false;
  let n = 0;
  const writes = (async () => {
    while (!done) {
      const r = await writer.call('collab_claim', { files: [`other/w${n++}.md`], intent: 'meanwhile' });
      slowestWrite = Math.max(slowestWrite, r.ms);
    }
  })();
  const sweep = await sweeper.call('collab_claim', { files: ['**/*.ts'], intent: 'reformat everything' });
  done = true;
  await writes;
  row(
    "collab_claim ['**/*.ts'] against 20,000 claims",
    `${(sweep.bytes / 1024).toFixed(1)} KB in ${fmt(sweep.ms)}`,
    `another session's claims meanwhile: ${n}, slowest ${fmt(slowestWrite)}`,
  );
  const next = await holder.call('collab_session_heartbeat');
  row("the holder's next call (with its notification)", `${(next.bytes / 1024).toFixed(1)} KB`);
  const list = await sweeper.call('collab_claims_list', { status: 'all' });
  row(
    'collab_claims_list with 20,000 claims (first page)',
    `${(list.bytes / 1024).toFixed(1)} KB in ${fmt(list.ms)}`,
  );
  const t = performance.now();
  const status = execFileSync(process.execPath, [CLI, 'status', '--json'], {
    env: { ...process.env, SESSION_COLLAB_HOME: home },
    maxBuffer: 1 << 30,
  });
  row(
    'session-collab status --json with 20,000 claims',
    `${(status.length / 1024).toFixed(1)} KB in ${fmt(performance.now() - t)}`,
  );
  await Promise.all([holder.close(), sweeper.close(), writer.close()]);
  cleanup(home, repo);
}

async function bigDiff() {
  progress('review: two 90,000-line versions, with history…');
  const home = tempDir('probe-home-');
  const repo = gitRepo();
  const worker = serve(repo, home, ['--toolsets', 'collab,review']);
  const reviewer = serve(repo, home, ['--toolsets', 'collab,review']);
  const lines = (tag) => Array.from({ length: 90_000 }, (_, i) => `line ${i} ${tag}`).join('\n');
  const submitted = await worker.call('submit_work', {
    type: 'code',
    phase: 'development',
    title: 'big',
    content: lines('a').slice(0, 999_000),
  });
  const id = submitted.result.structuredContent.id;
  await worker.call('update_work', {
    workItemId: id,
    content: lines('b').slice(0, 999_000),
    changeDescription: 'all',
  });
  const detail = await reviewer.call('get_work_detail', { workItemId: id, includeHistory: true });
  const diff = detail.result?.structuredContent?.diff;
  row(
    'get_work_detail includeHistory, two ~1 MB versions that differ on every line',
    `${fmt(detail.ms)}, server peak RSS ${reviewer.rssMb().toFixed(0)} MB`,
    `diff: ${typeof diff === 'string' ? diff.slice(0, 60) : diff}`,
  );
  await Promise.all([worker.close(), reviewer.close()]);
  cleanup(home, repo);
}

function hooks() {
  progress('hooks: a 1 MB shell command, a damaged code cache…');
  const home = tempDir('probe-home-');
  const repo = gitRepo();
  const env = { ...process.env, SESSION_COLLAB_HOME: home };
  const hook = (event, input) => {
    const t = performance.now();
    const out = execFileSync(process.execPath, [CLI, 'hook', event], {
      input: JSON.stringify(input),
      env,
      encoding: 'utf8',
    });
    return { ms: performance.now() - t, out };
  };
  const base = {
    session_id: 'probe',
    transcript_path: '/dev/null',
    cwd: repo,
    hook_event_name: 'PreToolUse',
  };
  hook('pre-tool-use', { ...base, tool_name: 'Read', tool_input: { file_path: `${repo}/a` } }); // warm the cache
  const command = `rm ${Array.from({ length: 90_000 }, (_, i) => `f${i}.ts`).join(' ')}`.slice(0, 1_000_000);
  const bash = hook('pre-tool-use', { ...base, tool_name: 'Bash', tool_input: { command } });
  let parsed = null;
  try {
    parsed = JSON.parse(bash.out);
  } catch {}
  row(
    `PreToolUse of a ${(command.length / 1e6).toFixed(1)} MB Bash command`,
    `${fmt(bash.ms)}, answer ${bash.out.length} bytes, ${parsed ? 'whole JSON' : 'NOT JSON'}`,
    parsed?.hookSpecificOutput?.permissionDecision ?? '',
  );
  const cacheDir = join(home, 'cache');
  for (const f of readdirSync(cacheDir)) {
    const bytes = readFileSync(join(cacheDir, f));
    for (let i = 20; i < bytes.length; i += 97) bytes[i] ^= 0xff;
    writeFileSync(join(cacheDir, f), bytes);
  }
  const damaged = hook('pre-tool-use', {
    ...base,
    tool_name: 'Read',
    tool_input: { file_path: `${repo}/a` },
  });
  const again = hook('pre-tool-use', { ...base, tool_name: 'Read', tool_input: { file_path: `${repo}/a` } });
  row(
    'a hook over a code cache with flipped bytes',
    `${fmt(damaged.ms)} (answered), then ${fmt(again.ms)} (rebuilt)`,
  );
  cleanup(home, repo);
}

const bare = bareNodeMedian();
await claims();
await manyClaims();
await bigDiff();
hooks();
console.log(`\nbare \`node -e 0\` in this run: ${fmt(bare)}\n`);
console.log('| probe | now | note |\n|---|---|---|');
for (const r of rows) console.log(`| ${r.probe} | ${r.after} | ${r.note} |`);
