// Semantic conflicts on real history: merges that git makes cleanly but whose result stops
// compiling where neither parent did. For each two-parent merge of a fetched repository whose
// parents both changed source files and merge without a conflict, each parent's changes against
// their merge base are read as a session's are (hunks from git's diff, then the parser: the
// interfaces its changed definitions have against the base, and the names its changed lines use)
// and compared (`semanticConflicts`), as two sessions on two machines would be. Truth: the compiler
// run on each parent and on git's merge of the two (`git merge-tree --write-tree`): an error the
// merge has that neither parent has (by file and message; a parent's own errors, a missing
// dependency say, are every tree's and cancel out). TypeScript through `tsc` (installed in a
// temporary folder), Java through `javac` (the machine's, annotation packages the sources import
// but do not hold stubbed as empty annotations).
//
//   node bench/semantic-history.mjs [--record] <git dir or worktree>...   (after npm run build)
//   SEMANTIC_HISTORY_REPOS=dir1:dir2 npm run bench                          (a section of the table)
// `--record` rewrites its section of docs/benchmarks.md; `npm run bench -- --record` without
// SEMANTIC_HISTORY_REPOS keeps the section recorded before.
// Options: SEMANTIC_HISTORY_MERGES (candidate merges per repository, newest first; default 80).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { cleanup, lib, percentile, repositoriesCommand, tempDir } from './common.mjs';

const MERGES = Number(process.env.SEMANTIC_HISTORY_MERGES ?? 80);
/** A side that changed more source files than this is a long-lived branch: not a session's work. */
const FILES_PER_SIDE = 150;
const TYPESCRIPT = 'typescript@4.9.5';
/** Folders of generated or vendored copies, left out of what is compiled and compared. */
const SKIPPED = /(^|\/)(node_modules|dist|deno|vendor|build)\//;
const COMPILER_TIMEOUT_MS = 5 * 60_000;

const git = (dir, args, options = {}) =>
  execFileSync('git', args, {
    cwd: dir,
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'ignore'],
    ...options,
  });
const tryGit = (dir, args) => {
  try {
    return git(dir, args);
  } catch {
    return null;
  }
};

/** The compilers this benchmark knows, by the language of a repository. */
const LANGUAGES = {
  typescript: {
    source: (path) => /\.(ts|tsx|mts|cts)$/.test(path) && !SKIPPED.test(path),
    ready: () => typescriptCompiler() !== null,
    errors: typescriptErrors,
  },
  java: {
    source: (path) => path.endsWith('.java') && /(^|\/)src\/main\/java\//.test(path) && !SKIPPED.test(path),
    ready: () => spawnSync('javac', ['-version'], { stdio: 'ignore' }).status === 0,
    errors: javaErrors,
  },
};

let tsc;
/** tsc of a TypeScript installed in a temporary folder (once per machine), or null. */
function typescriptCompiler() {
  if (tsc !== undefined) return tsc;
  const dir = join(tmpdir(), `session-collab-bench-${TYPESCRIPT.replace(/[@/]/g, '-')}`);
  const bin = join(dir, 'node_modules', 'typescript', 'bin', 'tsc');
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    const r = spawnSync(
      'npm',
      ['install', '--prefix', dir, '--no-save', '--no-audit', '--no-fund', TYPESCRIPT],
      {
        stdio: 'ignore',
      },
    );
    if (r.status !== 0 || !existsSync(bin)) {
      tsc = null;
      return tsc;
    }
  }
  tsc = bin;
  return tsc;
}

/** A compiler's errors as a multiset: key (file and message, no line) → count. */
function countKeys(keys) {
  const out = new Map();
  for (const k of keys) out.set(k, (out.get(k) ?? 0) + 1);
  return out;
}

/** The worktree's TypeScript errors (every source file, strict, no emit). */
function typescriptErrors(worktree, files) {
  const config = join(dirname(worktree), 'tsconfig.bench.json');
  writeFileSync(
    config,
    JSON.stringify({
      compilerOptions: {
        noEmit: true,
        strict: true,
        skipLibCheck: true,
        target: 'es2020',
        lib: ['es2020', 'dom'],
        module: 'commonjs',
        moduleResolution: 'node',
        esModuleInterop: true,
        jsx: 'preserve',
        types: [],
      },
      files: files.map((f) => join(worktree, f)),
    }),
  );
  const r = spawnSync(process.execPath, [typescriptCompiler(), '-p', config, '--pretty', 'false'], {
    cwd: worktree,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    timeout: COMPILER_TIMEOUT_MS,
  });
  const keys = [];
  for (const line of (r.stdout ?? '').split('\n')) {
    const m = /^(.+?)\(\d+,\d+\): error (TS\d+): (.*)$/.exec(line);
    if (m) keys.push(`${m[1]} ${m[2]} ${m[3]}`);
  }
  return countKeys(keys);
}

/** The worktree's Java errors (its main sources, annotation packages it does not hold stubbed). */
function javaErrors(worktree, files) {
  const out = join(dirname(worktree), 'classes');
  const stubs = join(dirname(worktree), 'stubs');
  rmSync(out, { recursive: true, force: true });
  rmSync(stubs, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const sources = files.filter((f) => !f.endsWith('module-info.java')).map((f) => join(worktree, f));
  // Packages the sources declare; an imported class outside them (and the JDK's) that is used as an
  // annotation gets an empty annotation type.
  const packages = new Set();
  const imported = new Map();
  for (const file of sources) {
    const text = readFileSync(file, 'utf8');
    const pkg = /^\s*package\s+([\w.]+)\s*;/m.exec(text);
    if (pkg) packages.add(pkg[1]);
    for (const m of text.matchAll(/^\s*import\s+([\w.]+)\.([A-Z]\w*)\s*;/gm))
      if (new RegExp(`@${m[2]}\\b`).test(text)) imported.set(`${m[1]}.${m[2]}`, [m[1], m[2]]);
  }
  for (const [, [pkg, name]] of imported) {
    if (packages.has(pkg) || /^(java|javax|jdk|sun)\./.test(pkg)) continue;
    const dir = join(stubs, ...pkg.split('.'));
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, `${name}.java`),
      `package ${pkg};\npublic @interface ${name} { String[] value() default {}; }\n`,
    );
    sources.push(join(dir, `${name}.java`));
  }
  const list = join(dirname(worktree), 'sources.txt');
  writeFileSync(list, sources.join('\n'));
  const r = spawnSync(
    'javac',
    [
      // A short-lived compiler: the JIT's first tier starts and runs it sooner (4 s → 1.4 s).
      '-J-XX:TieredStopAtLevel=1',
      '-d',
      out,
      '-nowarn',
      '-proc:none',
      '-implicit:none',
      '-Xmaxerrs',
      '100000',
      '-encoding',
      'UTF-8',
      `@${list}`,
    ],
    { cwd: worktree, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, timeout: COMPILER_TIMEOUT_MS },
  );
  const keys = [];
  const lines = (r.stderr ?? '').split('\n');
  lines.forEach((line, i) => {
    const m = /^(.+?\.java):\d+: error: (.*)$/.exec(line);
    if (!m) return;
    // "cannot find symbol" says which in the lines after it.
    const detail = lines
      .slice(i + 1, i + 6)
      .filter((l) => /^\s*(symbol|location):/.test(l))
      .map((l) => l.trim())
      .join(' ');
    keys.push(`${m[1].replace(`${worktree}/`, '')} ${m[2]} ${detail}`);
  });
  return countKeys(keys);
}

/** The errors of `tree` in the benchmark's worktree (its files replaced by the tree's). */
function errorsOf(language, worktree, tree) {
  git(worktree, ['read-tree', '--reset', '-u', tree]);
  const files = git(worktree, ['ls-files', '-z']).split('\0').filter(LANGUAGES[language].source);
  return LANGUAGES[language].errors(worktree, files);
}

/** What `merged` has more of than both parents: the errors their merge made. */
function newErrors(merged, one, two) {
  const out = [];
  for (const [key, n] of merged) if (n > Math.max(one.get(key) ?? 0, two.get(key) ?? 0)) out.push(key);
  return out;
}

/**
 * A side's changed source files as a session records them (features/changes: `addSymbols`): hunks
 * from git's diff against the base, then, for each file that still exists, the names its changed
 * lines use and, when the base had it (under its old path when renamed), its definitions'
 * interface changes; a deleted file's definitions are all removed.
 */
function sideFiles(repo, language, base, side) {
  const diff = git(repo, ['diff', '-U0', '--full-index', '--find-renames', '--histogram', base, side]);
  const files = lib.parseGitDiff(diff).filter((f) => LANGUAGES[language].source(f.path));
  if (files.length > FILES_PER_SIDE) return null;
  const out = [];
  const baseSpansOf = (file) => {
    const before = file.baseBlob === null ? null : tryGit(repo, ['cat-file', 'blob', file.baseBlob]);
    return before === null ? null : lib.symbolSpans(file.renamedFrom ?? file.path, before);
  };
  for (const file of files) {
    if (!lib.languageOf(file.path)) continue;
    if (file.newBlob === null) {
      // Deleted: every definition its base had is removed.
      const baseSpans = baseSpansOf(file);
      const changes = baseSpans ? lib.interfaceChanges(lib.definitionsOf(baseSpans), []) : [];
      if (changes.length > 0) out.push({ path: file.path, interface: changes });
      continue;
    }
    if (file.level !== 'lines') continue;
    const text = tryGit(repo, ['cat-file', 'blob', file.newBlob]);
    if (text === null) continue;
    const spans = lib.symbolSpans(file.path, text);
    if (!spans) continue;
    const entry = { path: file.path };
    const uses = lib.usesIn(file.path, text, lib.writtenBy(file.hunks));
    if (uses && uses.length > 0) entry.uses = uses;
    if (file.baseBlob !== null) {
      const baseSpans = baseSpansOf(file);
      if (baseSpans) {
        const changes = lib.interfaceChanges(lib.definitionsOf(baseSpans), lib.definitionsOf(spans));
        if (changes.length > 0) entry.interface = changes;
      }
    }
    out.push(entry);
  }
  return out;
}

/** The language a repository is compiled in: the one most of its tracked source files are in. */
function languageOf(repo) {
  const files = git(repo, ['ls-tree', '-r', '--name-only', 'HEAD']).split('\n');
  let best = null;
  let most = 0;
  for (const [language, l] of Object.entries(LANGUAGES)) {
    const n = files.filter(l.source).length;
    if (n > most) [best, most] = [language, n];
  }
  return best;
}

/** Every candidate merge of one repository: predicted, true, and why. */
async function casesOf(repo, progress) {
  const name = basename(repo.replace(/\/(repo|\.git)\/?$/, '')) || basename(dirname(repo));
  const language = languageOf(repo);
  if (!language) return { name, skipped: 'no TypeScript or Java sources' };
  if (!LANGUAGES[language].ready()) return { name, language, skipped: `no ${language} compiler here` };
  const work = tempDir('collab-semantic-history-');
  const worktree = join(work, 'tree');
  git(work, ['clone', '-q', '--shared', '--no-checkout', repo, worktree]);
  const merges = git(worktree, ['rev-list', '--merges', '--parents', 'HEAD'])
    .trim()
    .split('\n')
    .map((l) => l.split(' '))
    .filter((p) => p.length === 3);
  const cases = [];
  const timings = [];
  let read = 0;
  for (const [merge, one, two] of merges) {
    if (cases.length >= MERGES) break;
    read++;
    await new Promise((resolve) => setImmediate(resolve));
    const base = tryGit(worktree, ['merge-base', one, two])?.trim();
    if (!base) continue;
    const touched = (side) =>
      git(worktree, ['diff', '--name-only', '-z', base, side]).split('\0').some(LANGUAGES[language].source);
    if (!touched(one) || !touched(two)) continue;
    // git's own merge of the two parents; a conflicted one is the textual level's.
    const merged = tryGit(worktree, ['merge-tree', '--write-tree', one, two]);
    if (merged === null) continue;
    const ours = sideFiles(worktree, language, base, one);
    const theirs = sideFiles(worktree, language, base, two);
    if (!ours || !theirs) continue;
    // What a check does with the two sessions' recorded changes (parsing is each edit's, before).
    const started = performance.now();
    const conflicts = lib.semanticConflicts(ours, theirs);
    timings.push(performance.now() - started);
    // The second parent is compiled only when the merge has errors the first has not: most merges
    // have none, and then no parent can hide one.
    const mergedErrors = errorsOf(language, worktree, merged.split('\n')[0]);
    const oneErrors = errorsOf(language, worktree, `${one}^{tree}`);
    const beyondOne = newErrors(mergedErrors, oneErrors, new Map());
    const made =
      beyondOne.length === 0
        ? []
        : newErrors(mergedErrors, oneErrors, errorsOf(language, worktree, `${two}^{tree}`));
    // Where the merge broke: in lines of a changed file (a new use), or only in files neither
    // parent changed (a use both sides left alone, which no use-based prediction can meet).
    const changed = new Set(
      [one, two].flatMap((side) => git(worktree, ['diff', '--name-only', '-z', base, side]).split('\0')),
    );
    cases.push({
      repo: name,
      merge,
      predicted: conflicts.length > 0,
      truth: made.length > 0,
      outside: made.length > 0 && made.every((key) => !changed.has(key.split(' ')[0])),
      conflicts: conflicts.map((c) => `${c.change.name} (${c.definedIn}) used in ${c.usedIn}`),
      made,
    });
    if (cases.length % 10 === 0) progress(`  ${name}: ${cases.length} merges compiled (${read} read)`);
  }
  cleanup(work);
  const head = git(repo, ['rev-parse', '--short=10', 'HEAD']).trim();
  return { name, language, head, read, cases, timings };
}

/** Every repository's cases, and precision and recall over all of them, per language. */
export async function semanticHistory(repos, progress = () => {}) {
  const results = [];
  for (const repo of repos) {
    progress(`semantic history: ${repo}…`);
    results.push(await casesOf(repo, progress));
  }
  const cases = results.flatMap((r) => r.cases ?? []);
  const timings = results.flatMap((r) => r.timings ?? []).sort((a, b) => a - b);
  const byLanguage = {};
  for (const r of results) {
    if (!r.cases) continue;
    byLanguage[r.language] ??= { cases: 0, positives: 0, tp: 0, fp: 0, fn: 0 };
    const l = byLanguage[r.language];
    for (const c of r.cases) {
      l.cases++;
      if (c.truth) l.positives++;
      if (c.predicted && c.truth) l.tp++;
      if (c.predicted && !c.truth) l.fp++;
      if (!c.predicted && c.truth) l.fn++;
    }
  }
  for (const l of Object.values(byLanguage)) {
    l.precision = l.tp + l.fp === 0 ? null : l.tp / (l.tp + l.fp);
    l.recall = l.tp + l.fn === 0 ? null : l.tp / (l.tp + l.fn);
  }
  return {
    repos: results.map(({ name, language, head, read, cases, skipped }) => ({
      name,
      language,
      head,
      read,
      compiled: cases?.length ?? 0,
      skipped,
    })),
    byLanguage,
    pairMs: timings.length ? { p50: percentile(timings, 50), p99: percentile(timings, 99) } : null,
    differing: cases.filter((c) => c.predicted !== c.truth),
    found: cases.filter((c) => c.predicted && c.truth),
  };
}

const pct = (x) => (x === null ? '–' : `${(x * 100).toFixed(1)} %`);

export function describeSemanticHistory(h) {
  return [
    `Repositories: ${h.repos
      .map((r) =>
        r.skipped
          ? `${r.name} (skipped: ${r.skipped})`
          : `${r.name} at ${r.head} (${r.language}; ${r.read} merges read, ${r.compiled} compiled)`,
      )
      .join(', ')}.`,
    '',
    '| language | merges compiled | the merge broke the build | predicted & true | predicted, not true | missed | precision | recall |',
    '|---|---|---|---|---|---|---|---|',
    ...Object.entries(h.byLanguage).map(
      ([language, l]) =>
        `| ${language} | ${l.cases} | ${l.positives} | ${l.tp} | ${l.fp} | ${l.fn} | ${pct(l.precision)} | ${pct(l.recall)} |`,
    ),
    '',
    h.pairMs
      ? `One pair's comparison (their recorded interfaces and uses; parsing is done when each session's changes are read): p50 ${h.pairMs.p50.toFixed(1)} ms, p99 ${h.pairMs.p99.toFixed(1)} ms.`
      : 'No merge was compared.',
  ].join('\n');
}

/** One merge where prediction and truth differ, or a conflict found, for a person to read. */
export function describeSemanticCase(c) {
  const cut = (x) => (x.length > 160 ? `${x.slice(0, 159)}…` : x);
  const list = (xs) =>
    xs.length ? xs.slice(0, 3).map(cut).join('; ') + (xs.length > 3 ? '; …' : '') : 'none';
  const where = c.outside
    ? ' (every one in a file neither parent changed: no new use for a prediction to meet)'
    : '';
  return `${c.repo} ${c.merge.slice(0, 10)}: predicted ${list(c.conflicts)}; errors the merge made${where}: ${list(c.made)}`;
}

export const SEMANTIC_HISTORY_HEADING = '## Semantic conflicts on real merge history';

export function semanticHistorySection(h) {
  return [
    SEMANTIC_HISTORY_HEADING,
    '',
    `\`bench/semantic-history.mjs\`, recorded ${new Date().toISOString().slice(0, 10)}: the merges (newest first, up to ${MERGES} per repository) whose two parents`,
    'both changed source files and that git merges without a conflict. Each parent is read as a session',
    "would be (git's diff against the merge base, then the parser: its changed definitions' interfaces",
    'and the names its changed lines use) and the two compared (`semanticConflicts`). Truth: the compiler',
    "on both parents and on git's merge (`git merge-tree --write-tree`): an error the merge has more of than",
    "either parent, by file and message (a parent's own errors are every tree's and cancel out).",
    `TypeScript: \`tsc\` (${TYPESCRIPT}, strict, every tracked \`.ts\` file outside generated copies); Java:`,
    "the machine's `javac` on `src/main/java`, annotation packages imported but not held stubbed.",
    '',
    describeSemanticHistory(h),
    '',
    ...(h.found.length + h.differing.length > 0
      ? [
          'Conflicts found, and where prediction and truth differ (first 8 each):',
          '',
          ...h.found.slice(0, 8).map((c) => `- found: ${describeSemanticCase(c)}`),
          ...h.differing
            .slice(0, 8)
            .map((c) => `- ${c.truth ? 'missed' : 'not true'}: ${describeSemanticCase(c)}`),
          '',
        ]
      : []),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`)
  await repositoriesCommand({
    script: 'semantic-history.mjs',
    examples: 'colinhacks/zod, mobxjs/mobx, google/gson, apache/commons-lang',
    measure: semanticHistory,
    print: (h) => {
      process.stdout.write(`${describeSemanticHistory(h)}\n`);
      for (const c of h.found) process.stdout.write(`found: ${describeSemanticCase(c)}\n`);
      for (const c of h.differing)
        process.stdout.write(`${c.truth ? 'missed' : 'not true'}: ${describeSemanticCase(c)}\n`);
    },
    heading: SEMANTIC_HISTORY_HEADING,
    section: semanticHistorySection,
  });
