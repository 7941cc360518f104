// Semantic conflicts (core/semantic.ts) on hand-made cases: one session changes a definition, the
// other's new code uses it; git merges both. Each case's truth is whether the merged code stops
// compiling or importing (said by construction, per kind of change and of use, in the tables
// below); predicted is whether the two sessions' parsed changes meet. Precision, recall and time
// per pair, per language.
//   node bench/semantic.mjs     (after npm run build)
import { fileURLToPath } from 'node:url';
import { lib, percentile } from './common.mjs';

const defs = (path, text) => lib.definitionsOf(lib.symbolSpans(path, text) ?? []);

/**
 * The cases of one language: every change of the definition against every use of it; `breaks`
 * says which changes break which uses once merged.
 */
function cases({ language, defPath, base, changes, usePath, uses }) {
  const out = [];
  for (const change of changes)
    for (const use of uses)
      out.push({
        language,
        name: `${change.name} × ${use.name}`,
        defPath,
        base,
        ours: change.text,
        usePath,
        use: use.text,
        truth: change.breaks && use.resolves && (use.only ?? 'function') === (change.on ?? 'function'),
      });
  return out;
}

const TS_BASE =
  'export function login(user: string): string {\n  return user;\n}\n\nexport class Store {\n  save(item: string): void {}\n}\n';
const tsChange = (name, from, to, breaks, on = 'function') => ({
  name,
  text: TS_BASE.replace(from, to),
  breaks,
  on,
});
const TYPESCRIPT = {
  language: 'typescript',
  defPath: 'src/auth.ts',
  base: TS_BASE,
  usePath: 'src/app.ts',
  changes: [
    tsChange('a parameter added', 'login(user: string)', 'login(user: string, token: string)', true),
    tsChange(
      'an optional parameter added',
      'login(user: string)',
      'login(user: string, token?: string)',
      false,
    ),
    tsChange(
      'a parameter with a default added',
      'login(user: string)',
      'login(user: string, tries = 3)',
      false,
    ),
    tsChange(
      'its parameter removed',
      'login(user: string): string {\n  return user;',
      'login(): string {\n  return "";',
      true,
    ),
    tsChange('its parameter retyped', 'login(user: string)', 'login(user: number)', true),
    tsChange(
      'its return retyped',
      'login(user: string): string {\n  return user;',
      'login(user: string): number {\n  return 1;',
      true,
    ),
    tsChange('renamed', 'function login(', 'function signIn(', true),
    tsChange('removed', 'export function login(user: string): string {\n  return user;\n}\n', '', true),
    tsChange('its body only', '  return user;', '  return user.trim();', false),
    tsChange(
      'a method parameter added',
      'save(item: string)',
      'save(item: string, force: boolean)',
      true,
      'method',
    ),
    tsChange('a method renamed', '  save(item', '  store(item', true, 'method'),
    tsChange(
      'a method body only',
      'save(item: string): void {}',
      'save(item: string): void {\n    console.log(item);\n  }',
      false,
      'method',
    ),
  ],
  uses: [
    {
      name: 'named import',
      text: "import { login } from './auth';\nexport const s: string = login('x');\n",
      resolves: true,
    },
    {
      name: 'aliased import',
      text: "import { login as signIn } from './auth';\nexport const s: string = signIn('x');\n",
      resolves: true,
    },
    {
      name: 'namespace import',
      text: "import * as auth from './auth';\nexport const s: string = auth.login('x');\n",
      resolves: true,
    },
    {
      name: 'from a parent folder',
      text: "import { login } from '../src/auth';\nexport const s: string = login('x');\n",
      resolves: true,
    },
    {
      name: 'another module\u2019s login',
      text: "import { login } from './other';\nexport const s: string = login('x');\n",
      resolves: false,
    },
    {
      name: 'a local login',
      text: "function login(u: string): string { return u; }\nexport const s: string = login('x');\n",
      resolves: false,
    },
    { name: 'a comment only', text: "// call login('x') later\nexport const s = 1;\n", resolves: false },
    {
      name: 'a method, class imported',
      text: "import { Store } from './auth';\nnew Store().save('x');\n",
      resolves: true,
      only: 'method',
    },
    {
      name: 'a method on a parameter',
      text: "import type { Store } from './auth';\nexport function put(s: Store) {\n  s.save('x');\n}\n",
      resolves: true,
      only: 'method',
    },
  ],
};

const PY_BASE =
  'def login(user):\n    return user\n\n\nclass Store:\n    def save(self, item):\n        pass\n';
const pyChange = (name, from, to, breaks, on = 'function') => ({
  name,
  text: PY_BASE.replace(from, to),
  breaks,
  on,
});
const PYTHON = {
  language: 'python',
  defPath: 'app/auth.py',
  base: PY_BASE,
  usePath: 'app/views.py',
  changes: [
    pyChange('a parameter added', 'def login(user):', 'def login(user, token):', true),
    pyChange('a parameter with a default added', 'def login(user):', 'def login(user, tries=3):', false),
    pyChange('*args added', 'def login(user):', 'def login(user, *args):', false),
    pyChange(
      'its parameter removed',
      'def login(user):\n    return user',
      'def login():\n    return None',
      true,
    ),
    pyChange('renamed', 'def login(', 'def sign_in(', true),
    pyChange('removed', 'def login(user):\n    return user\n\n\n', '', true),
    pyChange('its body only', '    return user\n', '    return user.strip()\n', false),
    pyChange(
      'a method parameter added',
      'def save(self, item):',
      'def save(self, item, force):',
      true,
      'method',
    ),
    pyChange('a method renamed', 'def save(self', 'def store(self', true, 'method'),
    pyChange('a method body only', '        pass\n', '        print(item)\n', false, 'method'),
  ],
  uses: [
    { name: 'from the package', text: "from app.auth import login\n\nlogin('x')\n", resolves: true },
    { name: 'relative', text: "from .auth import login\n\nlogin('x')\n", resolves: true },
    { name: 'aliased', text: "from app.auth import login as sign_in\n\nsign_in('x')\n", resolves: true },
    { name: 'module imported', text: "import app.auth as auth\n\nauth.login('x')\n", resolves: true },
    {
      name: 'another module\u2019s login',
      text: "from app.other import login\n\nlogin('x')\n",
      resolves: false,
    },
    { name: 'a local login', text: "def login(u):\n    return u\n\n\nlogin('x')\n", resolves: false },
    { name: 'a comment only', text: "# login('x') later\nx = 1\n", resolves: false },
    {
      name: 'a method, class imported',
      text: "from app.auth import Store\n\nStore().save('x')\n",
      resolves: true,
      only: 'method',
    },
  ],
};

/** Predicted and true for every case, and the time of each prediction. */
export function semanticBench() {
  const all = [...cases(TYPESCRIPT), ...cases(PYTHON)];
  const times = [];
  const results = all.map((c) => {
    const started = performance.now();
    const ours = {
      path: c.defPath,
      interface: lib.interfaceChanges(defs(c.defPath, c.base), defs(c.defPath, c.ours)),
    };
    const theirs = { path: c.usePath, uses: lib.usesIn(c.usePath, c.use, () => true) ?? [] };
    const predicted = lib.semanticConflicts([ours], [theirs]).length > 0;
    times.push(performance.now() - started);
    return { ...c, predicted };
  });
  const byLanguage = {};
  for (const language of ['typescript', 'python']) {
    const mine = results.filter((r) => r.language === language);
    const tp = mine.filter((r) => r.predicted && r.truth).length;
    const fp = mine.filter((r) => r.predicted && !r.truth).length;
    const fn = mine.filter((r) => !r.predicted && r.truth).length;
    byLanguage[language] = {
      cases: mine.length,
      positives: mine.filter((r) => r.truth).length,
      tp,
      fp,
      fn,
      precision: tp + fp === 0 ? 1 : tp / (tp + fp),
      recall: tp + fn === 0 ? 1 : tp / (tp + fn),
      wrong: mine
        .filter((r) => r.predicted !== r.truth)
        .map((r) => `${r.name}: predicted ${r.predicted}, true ${r.truth}`),
    };
  }
  const sorted = [...times].sort((a, b) => a - b);
  return { byLanguage, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = semanticBench();
  const pct = (x) => `${(x * 100).toFixed(1)} %`;
  console.log(
    '| language | cases | breaking | predicted & true | predicted, not true | missed | precision | recall |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const [language, r] of Object.entries(out.byLanguage))
    console.log(
      `| ${language} | ${r.cases} | ${r.positives} | ${r.tp} | ${r.fp} | ${r.fn} | ${pct(r.precision)} | ${pct(r.recall)} |`,
    );
  console.log(
    `\nOne pair (parse both sides, compare): p50 ${out.p50.toFixed(2)} ms, p99 ${out.p99.toFixed(2)} ms.\n`,
  );
  for (const [language, r] of Object.entries(out.byLanguage))
    for (const w of r.wrong) console.log(`- ${language}: ${w}`);
}
