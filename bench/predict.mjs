// Conflict prediction for one pair of sessions with 2,000-line diffs, as a client sees it: two clones
// of one repository, a `serve` process in each over real stdio; each session's uncommitted diff
// changes 2,002 lines of a 7,000-line TypeScript file (7 lines in each of 286 functions: 286 hunks,
// under the 400 a file is compared by lines with; 36 of those functions both change, in the same
// lines). Timed: `collab_check` without files (the caller's worktree read again: git lists what
// changed, nothing written since is diffed, compared with the other's recorded changes, git's
// merge of the file known from the first check), the same with the caller's file written again
// before each (diffed, its symbols parsed, merged by git anew), and the comparison alone
// (`predictChanges` in process), each paired with a bare `node -e 0`. Run alone:
//   node bench/predict.mjs     (after npm run build)
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bareNode, cleanup, git, lib, median, percentile, stdioServer, tempDir } from './common.mjs';
import { ours } from './servers.mjs';

/** 700 functions of 10 lines; `tag` rewrites the bodies of the functions `pick` selects (7 lines each). */
function source(tag = null, pick = () => false) {
  const out = [];
  for (let f = 0; f < 700; f++) {
    const body =
      tag && pick(f)
        ? [
            `  const a = ${tag}${f};`,
            `  const b = a * ${f};`,
            `  return a + b; // ${tag}`,
            `  // one ${tag}`,
            `  // two ${tag}`,
            `  // three ${tag}`,
            `  // four ${tag}`,
          ]
        : [
            '  const a = x;',
            '  const b = a * 2;',
            '  return a + b;',
            '  // one',
            '  // two',
            '  // three',
            '  // four',
          ];
    out.push(`export function step${f}(x: number): number {`, ...body, '}', '');
  }
  return `${out.join('\n')}\n`;
}

export async function predict(rounds = 40) {
  const origin = tempDir('bench-origin-');
  mkdirSync(join(origin, 'src'));
  writeFileSync(join(origin, 'src', 'steps.ts'), source());
  git(origin, 'init', '-q', '-b', 'main');
  git(origin, 'add', '.');
  git(origin, 'commit', '-qm', 'steps');
  const home = tempDir('bench-home-');
  const clones = ['alice', 'bob'].map((name) => {
    const dir = join(tempDir('bench-clone-'), 'app');
    git(origin, 'clone', '-q', origin, dir);
    return { name, dir };
  });
  // Alice functions 0–285, Bob 250–535: 2,002 changed lines each, 36 functions in common.
  writeFileSync(
    join(clones[0].dir, 'src', 'steps.ts'),
    source('alice', (f) => f < 286),
  );
  writeFileSync(
    join(clones[1].dir, 'src', 'steps.ts'),
    source('bob', (f) => f >= 250 && f < 536),
  );
  const env = { ...process.env, ...ours.env(home) };
  const servers = clones.map((c) => ({ ...c, s: stdioServer(ours.command, { cwd: c.dir, env }) }));
  for (const { s, name, dir } of servers) await s.call('collab_session_start', { name, project_root: dir });
  const first = await servers[1].s.call('collab_check');
  const answer = first.result?.structuredContent;
  if (!answer || answer.predicted_conflicts.length === 0)
    throw new Error(`no prediction: ${JSON.stringify(first.result).slice(0, 400)}`);
  const check = [];
  const written = [];
  const bare = [];
  const bobFile = join(clones[1].dir, 'src', 'steps.ts');
  const bobText = source('bob', (f) => f >= 250 && f < 536);
  for (let i = 0; i < rounds; i++) {
    check.push((await servers[1].s.call('collab_check')).ms);
    bare.push(bareNode());
  }
  // The caller's file written again before each check (a line added at its end, another each
  // time): it is diffed again, its symbols parsed, and git merges its new version with the other's.
  for (let i = 0; i < rounds / 2; i++) {
    writeFileSync(bobFile, `${bobText}// ${i}\n`);
    written.push((await servers[1].s.call('collab_check')).ms);
  }
  // The comparison alone, on the same diffs as git prints them.
  const diff = (dir) =>
    lib.parseGitDiff(git(dir, 'diff', '-U0', '--full-index', '--no-renames', '--no-color', 'HEAD', '--'));
  const [a, b] = clones.map((c) => diff(c.dir));
  const compare = [];
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    lib.predictChanges(a, b);
    compare.push(performance.now() - t);
  }
  for (const { s } of servers) s.child.kill();
  await Promise.all(servers.map(({ s }) => s.closed));
  cleanup(origin, home, ...clones.map((c) => c.dir));
  const sorted = (xs) => [...xs].sort((x, y) => x - y);
  return {
    changedLines: a[0].hunks.reduce((n, h) => n + h.next[1], 0),
    level: answer.predicted_conflicts[0].level,
    check: { p50: median(check), p99: percentile(sorted(check), 99) },
    written: { p50: median(written), p99: percentile(sorted(written), 99) },
    compare: { p50: median(compare), p99: percentile(sorted(compare), 99) },
    bare: median(bare),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await predict();
  console.log(`changed lines per session: ${r.changedLines}; predicted: ${r.level}`);
  console.log(`bare node -e 0: ${r.bare.toFixed(1)} ms`);
  console.log(
    `collab_check (reads the worktree, compares): p50 ${r.check.p50.toFixed(1)} ms, p99 ${r.check.p99.toFixed(1)} ms (${(r.check.p99 / r.bare).toFixed(2)}× bare node)`,
  );
  console.log(
    `collab_check, the file written again before each: p50 ${r.written.p50.toFixed(1)} ms, p99 ${r.written.p99.toFixed(1)} ms`,
  );
  console.log(`comparison alone: p50 ${r.compare.p50.toFixed(2)} ms, p99 ${r.compare.p99.toFixed(2)} ms`);
}
