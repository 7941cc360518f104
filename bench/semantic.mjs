// Semantic conflicts (core/semantic.ts) on hand-made cases: one session changes a definition, the
// other's new code uses it; git merges both. Each case's truth is whether the merged code stops
// compiling or importing (said by construction, per kind of change and of use, in the tables
// below); predicted is whether the two sessions' parsed changes meet. Precision, recall and time
// per pair, per language.
//   node bench/semantic.mjs     (after npm run build)
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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

const JAVA_BASE =
  'package app;\n\npublic class Auth {\n  public static String login(String user) {\n    return user;\n  }\n\n  public void save(String item) {}\n}\n';
const javaChange = (name, from, to, breaks, on = 'function') => ({
  name,
  text: JAVA_BASE.replace(from, to),
  breaks,
  on,
});
const javaUse = (name, imports, body, resolves, only) => ({
  name,
  text: `package app.web;\n\n${imports}public class App {\n${body}}\n`,
  resolves,
  ...(only ? { only } : {}),
});
/** Java: a static method (called as a function) and an instance method of one class. */
const JAVA = {
  language: 'java',
  defPath: 'src/main/java/app/Auth.java',
  base: JAVA_BASE,
  usePath: 'src/main/java/app/web/App.java',
  changes: [
    javaChange('a parameter added', 'login(String user)', 'login(String user, String token)', true),
    javaChange(
      'an overload added',
      '  public void save',
      '  public static String login(String user, String token) {\n    return user + token;\n  }\n\n  public void save',
      false,
    ),
    javaChange('varargs added', 'login(String user)', 'login(String user, String... more)', false),
    javaChange(
      'its parameter removed',
      'login(String user) {\n    return user;',
      'login() {\n    return "";',
      true,
    ),
    javaChange(
      'its parameter retyped',
      'login(String user) {\n    return user;',
      'login(int user) {\n    return "" + user;',
      true,
    ),
    javaChange(
      'its return retyped',
      'public static String login(String user) {\n    return user;',
      'public static int login(String user) {\n    return 1;',
      true,
    ),
    javaChange('renamed', 'String login(', 'String signIn(', true),
    javaChange('removed', '  public static String login(String user) {\n    return user;\n  }\n\n', '', true),
    javaChange('its body only', '    return user;', '    return user.trim();', false),
    javaChange(
      'a method parameter added',
      'save(String item)',
      'save(String item, boolean force)',
      true,
      'method',
    ),
    javaChange('a method renamed', 'void save(', 'void store(', true, 'method'),
    javaChange(
      'a method body only',
      'save(String item) {}',
      'save(String item) {\n    System.out.println(item);\n  }',
      false,
      'method',
    ),
  ],
  uses: [
    javaUse('class imported', 'import app.Auth;\n\n', '  String s = Auth.login("x");\n', true),
    javaUse('package imported', 'import app.*;\n\n', '  String s = Auth.login("x");\n', true),
    javaUse('static import', 'import static app.Auth.login;\n\n', '  String s = login("x");\n', true),
    javaUse('by its full name', '', '  String s = app.Auth.login("x");\n', true),
    javaUse(
      'another class\u2019s login',
      'import app.other.Other;\n\n',
      '  String s = Other.login("x");\n',
      false,
    ),
    javaUse(
      'a local login',
      '',
      '  static String login(String u) {\n    return u;\n  }\n\n  String s = login("x");\n',
      false,
    ),
    javaUse('a comment only', '', '  // Auth.login("x") later\n  int s = 1;\n', false),
    javaUse(
      'a method, class imported',
      'import app.Auth;\n\n',
      '  {\n    new Auth().save("x");\n  }\n',
      true,
      'method',
    ),
    javaUse(
      'a method on a typed parameter',
      'import app.Auth;\n\n',
      '  void put(Auth a) {\n    a.save("x");\n  }\n',
      true,
      'method',
    ),
  ],
};

const GO_BASE =
  'package auth\n\nfunc Login(user string) string {\n\treturn user\n}\n\ntype Store struct{}\n\nfunc (s *Store) Save(item string) {}\n';
const goChange = (name, from, to, breaks, on = 'function') => ({
  name,
  text: GO_BASE.replace(from, to),
  breaks,
  on,
});
const goUse = (name, imports, body, resolves, only) => ({
  name,
  text: `package app\n\n${imports}${body}`,
  resolves,
  ...(only ? { only } : {}),
});
/** Go: a function and a method of a struct, in package example.com/m/auth. */
const GO = {
  language: 'go',
  defPath: 'auth/auth.go',
  base: GO_BASE,
  usePath: 'app/app.go',
  changes: [
    goChange('a parameter added', 'Login(user string)', 'Login(user string, token string)', true),
    goChange('variadic parameters added', 'Login(user string)', 'Login(user string, more ...string)', false),
    goChange(
      'its parameter removed',
      'Login(user string) string {\n\treturn user',
      'Login() string {\n\treturn ""',
      true,
    ),
    goChange(
      'its parameter retyped',
      'Login(user string) string {\n\treturn user',
      'Login(user int) string {\n\treturn ""',
      true,
    ),
    goChange(
      'its return retyped',
      'Login(user string) string {\n\treturn user',
      'Login(user string) int {\n\treturn 1',
      true,
    ),
    goChange('renamed', 'func Login(', 'func SignIn(', true),
    goChange('removed', 'func Login(user string) string {\n\treturn user\n}\n\n', '', true),
    goChange('its body only', '\treturn user\n', '\treturn user + ""\n', false),
    goChange(
      'a method parameter added',
      'Save(item string)',
      'Save(item string, force bool)',
      true,
      'method',
    ),
    goChange('a method renamed', ') Save(', ') Put(', true, 'method'),
    goChange(
      'a method body only',
      'Save(item string) {}',
      'Save(item string) {\n\t_ = item\n}',
      false,
      'method',
    ),
  ],
  uses: [
    goUse('package imported', 'import "example.com/m/auth"\n\n', 'var s string = auth.Login("x")\n', true),
    goUse(
      'package imported under a name',
      'import a "example.com/m/auth"\n\n',
      'var s string = a.Login("x")\n',
      true,
    ),
    goUse(
      'another package\u2019s Login',
      'import "example.com/m/other"\n\n',
      'var s string = other.Login("x")\n',
      false,
    ),
    goUse(
      'a local Login',
      '',
      'func Login(u string) string {\n\treturn u\n}\n\nvar s string = Login("x")\n',
      false,
    ),
    goUse('a comment only', '', '// auth.Login("x") later\nvar s = 1\n', false),
    goUse(
      'a method on a typed parameter',
      'import "example.com/m/auth"\n\n',
      'func put(s *auth.Store) {\n\ts.Save("x")\n}\n',
      true,
      'method',
    ),
    goUse(
      'a method on a value made there',
      'import "example.com/m/auth"\n\n',
      'func put() {\n\tst := &auth.Store{}\n\tst.Save("x")\n}\n',
      true,
      'method',
    ),
  ],
};

const RUST_BASE =
  'pub fn login(user: &str) -> String {\n    user.to_string()\n}\n\npub struct Store;\n\nimpl Store {\n    pub fn save(&self, item: &str) {}\n}\n';
const rustChange = (name, from, to, breaks, on = 'function') => ({
  name,
  text: RUST_BASE.replace(from, to),
  breaks,
  on,
});
/** Rust: a function and a method of a struct, in the module crate::auth. */
const RUST = {
  language: 'rust',
  defPath: 'src/auth.rs',
  base: RUST_BASE,
  usePath: 'src/app.rs',
  changes: [
    rustChange('a parameter added', 'login(user: &str)', 'login(user: &str, token: &str)', true),
    rustChange(
      'its parameter removed',
      'login(user: &str) -> String {\n    user.to_string()',
      'login() -> String {\n    String::new()',
      true,
    ),
    rustChange(
      'its parameter retyped',
      'login(user: &str) -> String {\n    user.to_string()',
      'login(user: u32) -> String {\n    user.to_string()',
      true,
    ),
    rustChange(
      'its return retyped',
      'login(user: &str) -> String {\n    user.to_string()',
      'login(user: &str) -> usize {\n    user.len()',
      true,
    ),
    rustChange('renamed', 'fn login(', 'fn sign_in(', true),
    rustChange('removed', 'pub fn login(user: &str) -> String {\n    user.to_string()\n}\n\n', '', true),
    rustChange('its body only', '    user.to_string()\n', '    user.trim().to_string()\n', false),
    rustChange(
      'a method parameter added',
      'save(&self, item: &str)',
      'save(&self, item: &str, force: bool)',
      true,
      'method',
    ),
    rustChange('a method renamed', 'fn save(', 'fn put(', true, 'method'),
    rustChange(
      'a method body only',
      'save(&self, item: &str) {}',
      'save(&self, item: &str) {\n        let _ = item;\n    }',
      false,
      'method',
    ),
  ],
  uses: [
    {
      name: 'function imported',
      text: 'use crate::auth::login;\n\npub fn run() -> String {\n    login("x")\n}\n',
      resolves: true,
    },
    {
      name: 'imported under a name',
      text: 'use crate::auth::login as sign_in;\n\npub fn run() -> String {\n    sign_in("x")\n}\n',
      resolves: true,
    },
    {
      name: 'module imported',
      text: 'use crate::auth;\n\npub fn run() -> String {\n    auth::login("x")\n}\n',
      resolves: true,
    },
    {
      name: 'by its full path',
      text: 'pub fn run() -> String {\n    crate::auth::login("x")\n}\n',
      resolves: true,
    },
    {
      name: 'another module\u2019s login',
      text: 'use crate::other::login;\n\npub fn run() -> String {\n    login("x")\n}\n',
      resolves: false,
    },
    {
      name: 'a local login',
      text: 'fn login(u: &str) -> String {\n    u.to_string()\n}\n\npub fn run() -> String {\n    login("x")\n}\n',
      resolves: false,
    },
    { name: 'a comment only', text: '// login("x") later\npub fn run() {}\n', resolves: false },
    {
      name: 'a method, struct imported',
      text: 'use crate::auth::Store;\n\npub fn run() {\n    Store.save("x");\n}\n',
      resolves: true,
      only: 'method',
    },
    {
      name: 'a method on a typed parameter',
      text: 'use crate::auth::Store;\n\npub fn put(s: &Store) {\n    s.save("x");\n}\n',
      resolves: true,
      only: 'method',
    },
  ],
};

/** Predicted and true for every case, and the time of each prediction. */
export function semanticBench() {
  const all = [TYPESCRIPT, PYTHON, JAVA, GO, RUST].flatMap(cases);
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
  for (const language of ['typescript', 'python', 'java', 'go', 'rust']) {
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

/**
 * What each case's truth says, checked by the compiler where this machine has it (Java: `javac`;
 * Rust: `rustc`): the definition and the use compiled together, before and after the change; the
 * cases whose compiler disagrees with the table, and the languages checked.
 */
export function compiledTruth() {
  const javaCompiler = spawnSync('javac', ['-version'], { stdio: 'ignore' }).status === 0;
  const rustCompiler = spawnSync('rustc', ['--version'], { stdio: 'ignore' }).status === 0;
  const dir = mkdtempSync(join(tmpdir(), 'collab-semantic-truth-'));
  const write = (path, text) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  const compiles = {
    java(c, def) {
      rmSync(dir, { recursive: true, force: true });
      write(c.defPath, def);
      write(c.usePath, c.use);
      write(
        'src/main/java/app/other/Other.java',
        'package app.other;\n\npublic class Other {\n  public static String login(String u) {\n    return u;\n  }\n}\n',
      );
      const files = [c.defPath, c.usePath, 'src/main/java/app/other/Other.java'].map((f) => join(dir, f));
      return (
        spawnSync('javac', ['-J-XX:TieredStopAtLevel=1', '-d', join(dir, 'out'), ...files], {
          stdio: 'ignore',
        }).status === 0
      );
    },
    rust(c, def) {
      rmSync(dir, { recursive: true, force: true });
      write(c.defPath, def);
      write(c.usePath, c.use);
      write('src/other.rs', 'pub fn login(u: &str) -> String {\n    u.to_string()\n}\n');
      write('src/lib.rs', 'pub mod app;\npub mod auth;\npub mod other;\n');
      return (
        spawnSync(
          'rustc',
          [
            '--edition',
            '2021',
            '--crate-type',
            'lib',
            '-A',
            'warnings',
            '--emit',
            'metadata',
            '-o',
            join(dir, 'out.rmeta'),
            join(dir, 'src/lib.rs'),
          ],
          {
            stdio: 'ignore',
          },
        ).status === 0
      );
    },
  };
  const checked = [];
  const wrong = [];
  for (const [table, ready] of [
    [JAVA, javaCompiler],
    [RUST, rustCompiler],
  ]) {
    if (!ready) continue;
    checked.push(table.language);
    for (const c of cases(table)) {
      const before = compiles[table.language](c, c.base);
      const after = compiles[table.language](c, c.ours);
      // The base compiles with every use; a case is true when the change breaks that.
      const truth = before && !after;
      if (!before || truth !== c.truth)
        wrong.push(`${c.language}: ${c.name}: table ${c.truth}, compiler ${before ? truth : 'base fails'}`);
    }
  }
  rmSync(dir, { recursive: true, force: true });
  return { checked, wrong };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--compile')) {
  const { checked, wrong } = compiledTruth();
  console.log(
    `Truth checked by the compiler: ${checked.join(', ') || 'none (no javac, no rustc)'}; disagreements: ${wrong.length}`,
  );
  for (const w of wrong) console.log(`- ${w}`);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
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
