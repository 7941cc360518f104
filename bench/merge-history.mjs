// Prediction measured on real history: merges from public repositories, each replayed as two
// sessions in two clones. For every merge whose two parents both changed a file, the base
// (their merge base) is committed in a small repository holding those files, cloned twice; each
// parent's versions are written into one clone as uncommitted changes, read as a session's are
// (`readChanges`: git diff against the base; symbols by the parser), and the two are compared
// (`predictChanges`: hunks only, as two machines would, no shared git). Compared with:
//   - textual: git's own merge of the two parents (`git merge-tree --write-tree`, the ort merge):
//     did it stop on a content conflict in the file?
//   - symbol: the functions, methods and classes both parents changed (each symbol's own lines,
//     nested symbols left out, compared by name between base and parent), where git merged cleanly.
// Precision and recall per level, and the time per predicted pair.
//
//   node bench/merge-history.mjs [--record] <git dir or worktree>...   (after npm run build)
//   MERGE_HISTORY_REPOS=dir1:dir2 npm run bench                        (a section of the table)
// `--record` rewrites its section of docs/benchmarks.md; `npm run bench -- --record` without
// MERGE_HISTORY_REPOS keeps the section recorded before.
// Options: MERGE_HISTORY_MERGES (merges read per repository, newest first; default 400).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { cleanup, lib, percentile, repositoriesCommand, tempDir } from './common.mjs';

const MERGES = Number(process.env.MERGE_HISTORY_MERGES ?? 400);
/** Files of one merge compared at most (merges of long-lived branches touch hundreds). */
const FILES_PER_MERGE = 20;
const MAX_BYTES = 512 * 1024;
const ID = {
  GIT_AUTHOR_NAME: 'b',
  GIT_AUTHOR_EMAIL: 'b@b',
  GIT_COMMITTER_NAME: 'b',
  GIT_COMMITTER_EMAIL: 'b@b',
};

const git = (dir, args, input) =>
  execFileSync('git', args, {
    cwd: dir,
    env: { ...process.env, ...ID },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    input,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
const tryGit = (dir, args) => {
  try {
    return git(dir, args);
  } catch (error) {
    return error.stdout ?? null;
  }
};

/** Paths a commit changed from `base` (modified only: added, deleted and renamed files aside). */
function modified(repo, base, commit) {
  return git(repo, ['diff', '--name-status', '--no-renames', '-z', base, commit])
    .split('\0')
    .reduce((out, field, i, all) => {
      if (i % 2 === 0 && field === 'M') out.push(all[i + 1]);
      return out;
    }, []);
}

/** The files git's merge of two commits stopped on with a content conflict (ort, as `git merge`). */
function contentConflicts(repo, one, two) {
  const out = tryGit(repo, ['merge-tree', '--write-tree', '--name-only', one, two]);
  if (out === null) return null;
  // The tree, the conflicted files (with --name-only), a blank line, then the messages.
  const [files = '', messages = ''] = out.split('\n').slice(1).join('\n').split('\n\n');
  const conflicted = new Set(files.split('\n').filter(Boolean));
  const content = new Set();
  for (const m of messages.matchAll(/CONFLICT \(content\): Merge conflict in (.+)/g))
    if (conflicted.has(m[1])) content.add(m[1]);
  return content;
}

const show = (repo, commit, path) => {
  const text = tryGit(repo, ['show', `${commit}:${path}`]);
  return text === null || text.length > MAX_BYTES || text.includes('\0') ? null : text;
};

/**
 * The symbols a side changed: those whose own lines (nested symbols and blank lines left out) differ
 * from the base's, by qualified name, or that only one of the two has.
 */
function changedSymbols(path, before, after) {
  const own = (text) => {
    const spans = lib.symbolSpans(path, text);
    if (spans === null) return null;
    const lines = text.split('\n');
    const byName = new Map();
    spans.forEach((s, i) => {
      const children = spans.filter((c) => c.parent === i);
      const body = [];
      // Blank lines aside: adding a method (and the blank line before it) changes no other symbol.
      for (let line = s.start; line <= s.end; line++)
        if (!children.some((c) => c.start <= line && line <= c.end) && lines[line - 1].trim() !== '')
          body.push(lines[line - 1]);
      byName.set(s.name, `${byName.get(s.name) ?? ''}${body.join('\n')}\n`);
    });
    return byName;
  };
  const a = own(before);
  const b = own(after);
  if (a === null || b === null) return null;
  const out = new Set();
  for (const [name, body] of a) if (b.get(name) !== body) out.add(name);
  for (const name of b.keys()) if (!a.has(name)) out.add(name);
  return out;
}

/** A session's changes in a clone of the case's base with `texts` written over it. */
async function sessionChanges(origin, texts, work) {
  const clone = join(work, `clone-${Math.random().toString(36).slice(2)}`);
  git(work, ['clone', '-q', origin, clone]);
  for (const [path, text] of Object.entries(texts)) writeFileSync(join(clone, path), text);
  const read = await lib.readChanges(clone, join(clone, '.git'));
  for (const file of read.files) {
    if (file.level !== 'lines' || !lib.languageOf(file.path)) continue;
    const text = texts[file.path];
    const spans = text === undefined ? null : lib.symbolSpans(file.path, text);
    if (spans) lib.markSymbols(file.hunks, spans, text);
  }
  return read.files;
}

/** Every case of one repository: per file both parents of a merge changed, prediction and truth. */
async function casesOf(repo, progress) {
  const name = basename(repo.replace(/\/(repo|\.git)\/?$/, '')) || basename(dirname(repo));
  const merges = git(repo, ['rev-list', '--merges', '--parents', '-n', String(MERGES), 'HEAD'])
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(' '))
    .filter((p) => p.length === 3);
  const cases = [];
  const timings = [];
  const work = tempDir('collab-history-');
  let done = 0;
  for (const [merge, one, two] of merges) {
    // The parser's trees are freed once the event loop turns (their memory is not the JS heap's).
    await new Promise((resolve) => setImmediate(resolve));
    if (++done % 50 === 0) progress(`  ${name}: ${done}/${merges.length} merges, ${cases.length} files`);
    const bases = tryGit(repo, ['merge-base', '--all', one, two])?.trim().split('\n').filter(Boolean) ?? [];
    if (bases.length !== 1) continue;
    const base = bases[0];
    const theirs = new Set(modified(repo, base, two));
    const common = modified(repo, base, one)
      .filter((p) => theirs.has(p))
      .slice(0, FILES_PER_MERGE);
    if (common.length === 0) continue;
    const conflicts = contentConflicts(repo, one, two);
    if (conflicts === null) continue;
    const texts = common
      .map((path) => ({
        path,
        base: show(repo, base, path),
        one: show(repo, one, path),
        two: show(repo, two, path),
      }))
      .filter((t) => t.base !== null && t.one !== null && t.two !== null);
    if (texts.length === 0) continue;
    // The base, with only these files, committed once; a clone per side.
    const origin = join(work, `origin-${merge.slice(0, 10)}`);
    mkdirSync(origin);
    git(origin, ['init', '-q']);
    for (const t of texts) {
      mkdirSync(dirname(join(origin, t.path)), { recursive: true });
      writeFileSync(join(origin, t.path), t.base);
    }
    git(origin, ['add', '-A']);
    git(origin, ['commit', '-qm', 'base']);
    const ours = await sessionChanges(origin, Object.fromEntries(texts.map((t) => [t.path, t.one])), work);
    const other = await sessionChanges(origin, Object.fromEntries(texts.map((t) => [t.path, t.two])), work);
    const started = performance.now();
    const predictions = lib.predictChanges(ours, other);
    timings.push(performance.now() - started);
    const byPath = new Map(predictions.map((p) => [p.path, p]));
    for (const t of texts) {
      const prediction = byPath.get(t.path);
      const language = lib.languageOf(t.path);
      const changedOne = language ? changedSymbols(t.path, t.base, t.one) : null;
      const changedTwo = language ? changedSymbols(t.path, t.base, t.two) : null;
      // Both made the very same change (a cherry-pick): nothing for a person to look at.
      const same = t.one === t.two;
      const both = changedOne && changedTwo && !same ? [...changedOne].filter((s) => changedTwo.has(s)) : [];
      cases.push({
        repo: name,
        merge,
        path: t.path,
        language,
        predicted: prediction?.level ?? 'none',
        textual: conflicts.has(t.path),
        symbol: !conflicts.has(t.path) && both.length > 0,
        both,
        ours: ours.find((f) => f.path === t.path)?.hunks.flatMap((h) => h.symbols ?? []) ?? [],
        theirs: other.find((f) => f.path === t.path)?.hunks.flatMap((h) => h.symbols ?? []) ?? [],
        symbolsKnown: changedOne !== null && changedTwo !== null,
      });
    }
    cleanup(origin);
  }
  cleanup(work);
  return {
    name,
    head: git(repo, ['rev-parse', '--short=10', 'HEAD']).trim(),
    merges: merges.length,
    cases,
    timings,
  };
}

/** Precision and recall of `predicted` against `actual` over `cases`. */
function score(cases, predicted, actual) {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const c of cases) {
    const p = predicted(c);
    const a = actual(c);
    if (p && a) tp++;
    else if (p) fp++;
    else if (a) fn++;
  }
  return {
    tp,
    fp,
    fn,
    precision: tp + fp === 0 ? null : tp / (tp + fp),
    recall: tp + fn === 0 ? null : tp / (tp + fn),
  };
}

/** Runs the whole measure over `repos`; the rows of its table and the misses, for a person to read. */
export async function mergeHistory(repos, progress = () => {}) {
  const results = [];
  for (const repo of repos) {
    progress(`merge history: ${repo}`);
    results.push(await casesOf(repo, progress));
  }
  const cases = results.flatMap((r) => r.cases);
  const timings = results.flatMap((r) => r.timings).sort((a, b) => a - b);
  // Textual: git stopped on the file. A `file` prediction (binary, too many hunks) also says "look".
  const textual = score(
    cases,
    (c) => c.predicted === 'textual' || c.predicted === 'file',
    (c) => c.textual,
  );
  const parsed = cases.filter((c) => c.language && c.symbolsKnown && !c.textual);
  const symbol = score(
    parsed,
    (c) => c.predicted === 'symbol',
    (c) => c.symbol,
  );
  // The same, per language of the file (files of no parsed language: `other`, textual only).
  const byLanguage = {};
  for (const language of [...new Set(cases.map((c) => c.language ?? 'other'))].sort()) {
    const mine = cases.filter((c) => (c.language ?? 'other') === language);
    const mineParsed = parsed.filter((c) => c.language === language);
    byLanguage[language] = {
      files: mine.length,
      textual: score(
        mine,
        (c) => c.predicted === 'textual' || c.predicted === 'file',
        (c) => c.textual,
      ),
      symbolFiles: mineParsed.length,
      symbol:
        language === 'other'
          ? null
          : score(
              mineParsed,
              (c) => c.predicted === 'symbol',
              (c) => c.symbol,
            ),
    };
  }
  return {
    repos: results.map((r) => ({ name: r.name, head: r.head, merges: r.merges, files: r.cases.length })),
    files: cases.length,
    byLanguage,
    textual,
    symbol,
    symbolFiles: parsed.length,
    unknown: cases.filter((c) => c.predicted === 'unknown').length,
    pairMs: { p50: percentile(timings, 50), p99: percentile(timings, 99) },
    misses: cases.filter(
      (c) =>
        (c.textual && c.predicted !== 'textual' && c.predicted !== 'file') ||
        (!c.textual && c.predicted === 'textual') ||
        (c.language && c.symbolsKnown && !c.textual && c.symbol !== (c.predicted === 'symbol')),
    ),
  };
}

const pct = (x) => (x === null ? '–' : `${(x * 100).toFixed(1)} %`);

/** The heading of this benchmark's section in docs/benchmarks.md. */
export const HISTORY_HEADING = '## Prediction on real merge history';

/** The section as docs/benchmarks.md holds it: what was measured, how, and the figures. */
export function historySection(h) {
  return [
    HISTORY_HEADING,
    '',
    `\`bench/merge-history.mjs\`, recorded ${new Date().toISOString().slice(0, 10)}: for every merge (newest first, up to ${MERGES} per repository) whose two parents both`,
    'modified a file, the base (their merge base) with only those files is committed in a small repository and',
    "cloned twice; each parent's versions are written into one clone as uncommitted changes and read as a",
    "session's are (`readChanges`, symbols by the parser), and the two sessions' changes are compared with hunks",
    'only (`predictChanges`), as on two machines. Textual truth: `git merge-tree --write-tree` of the two parents',
    "(git's ort merge) stopped on a content conflict in the file. Symbol truth, where git merged the file: a",
    'function, method or class whose own lines (nested symbols and blank lines aside) both parents changed, by',
    "name (both sides' file the same: nothing to look at). A `file` prediction counts as textual. Files of",
    'other languages count only for the textual level. Hunks are read with histogram diff, the diff ort',
    'merges with: read with Myers, one conflict git stops on here was missed (expressjs/express f6ec710534,',
    '`test/res.send.js`).',
    '',
    describeHistory(h),
    '',
    ...(h.misses.length > 0
      ? [
          'Where prediction and truth differ (first 8): "ours"/"theirs" are the symbols each side\'s hunks',
          'touch, "both" those the truth found changed by both.',
          '',
          ...h.misses.slice(0, 8).map((m) => `- ${describeMiss(m)}`),
          '',
        ]
      : []),
  ].join('\n');
}

/** One case where prediction and truth differ, for a person to read. */
export function describeMiss(m) {
  const list = (xs) => `[${[...new Set(xs)].slice(0, 6).join(', ')}${new Set(xs).size > 6 ? ', …' : ''}]`;
  return `${m.repo} ${m.merge.slice(0, 10)} \`${m.path}\`: predicted ${m.predicted}, git ${m.textual ? 'conflicted' : 'merged'}; both ${list(m.both)}; ours ${list(m.ours)}; theirs ${list(m.theirs)}`;
}

export function describeHistory(h) {
  return [
    `Repositories: ${h.repos.map((r) => `${r.name} at ${r.head} (${r.merges} merges read, ${r.files} files both parents changed)`).join(', ')}.`,
    '',
    '| level | cases | predicted & true | predicted, not true | missed | precision | recall |',
    '|---|---|---|---|---|---|---|',
    `| textual (git stopped on the file) | ${h.files} | ${h.textual.tp} | ${h.textual.fp} | ${h.textual.fn} | ${pct(h.textual.precision)} | ${pct(h.textual.recall)} |`,
    `| symbol (git merged; both changed a symbol) | ${h.symbolFiles} | ${h.symbol.tp} | ${h.symbol.fp} | ${h.symbol.fn} | ${pct(h.symbol.precision)} | ${pct(h.symbol.recall)} |`,
    '',
    'Per language of the file:',
    '',
    '| language | files | textual: true / precision / recall | symbol: files, true / precision / recall |',
    '|---|---|---|---|',
    ...Object.entries(h.byLanguage ?? {}).map(
      ([language, l]) =>
        `| ${language} | ${l.files} | ${l.textual.tp + l.textual.fn} / ${pct(l.textual.precision)} / ${pct(l.textual.recall)} | ${
          l.symbol
            ? `${l.symbolFiles}, ${l.symbol.tp + l.symbol.fn} / ${pct(l.symbol.precision)} / ${pct(l.symbol.recall)}`
            : '–'
        } |`,
    ),
    '',
    `One pair's prediction (all files of a merge): p50 ${h.pairMs.p50.toFixed(2)} ms, p99 ${h.pairMs.p99.toFixed(2)} ms. Files said \`unknown\`: ${h.unknown}.`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`)
  await repositoriesCommand({
    script: 'merge-history.mjs',
    examples: 'psf/requests, expressjs/express, spf13/cobra, google/gson, serde-rs/json, colinhacks/zod',
    measure: mergeHistory,
    print: (h) => {
      process.stdout.write(`${describeHistory(h)}\n`);
      for (const m of h.misses.slice(0, Number(process.env.MERGE_HISTORY_MISSES ?? 20)))
        process.stdout.write(`miss: ${describeMiss(m)}\n`);
    },
    heading: HISTORY_HEADING,
    section: historySection,
  });
