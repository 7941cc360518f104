import { describe, expect, it } from 'vitest';
import {
  describeChange,
  interfaceChanges,
  moduleStem,
  resolveModule,
  semanticConflicts,
} from '../../src/core/semantic.js';
import { symbolSpans, usesIn } from '../../src/integrations/symbols.js';

const defs = (path: string, text: string) =>
  (symbolSpans(path, text) ?? []).map((d) => ({
    name: d.name,
    line: d.start,
    ...(d.signature !== undefined ? { signature: d.signature, body: d.body ?? '' } : {}),
  }));

describe('interface changes', () => {
  it('parameters added that a call may leave out keep the interface; required ones, a rename or a removal change it', () => {
    const base = 'export function f(a: string): void {}\nexport function g(x) { return x; }\n';
    const change = (next: string) =>
      interfaceChanges(defs('a.ts', base), defs('a.ts', next)).map((c) => [c.name, c.kind, c.after]);
    expect(change(base.replace('f(a: string)', 'f(a: string, b?: number)'))).toEqual([]);
    expect(change(base.replace('f(a: string)', 'f(a: string, b = 1)'))).toEqual([]);
    expect(change(base.replace('f(a: string)', 'f(a: string, ...rest: string[])'))).toEqual([]);
    expect(change(base.replace('f(a: string)', 'f(a: string, b: number)'))).toEqual([
      ['f', 'signature', '(a: string, b: number) : void'],
    ]);
    expect(change(base.replace('f(a: string): void', 'f(a: string): string'))).toEqual([
      ['f', 'signature', '(a: string) : string'],
    ]);
    expect(change(base.replace('function g(', 'function h('))).toEqual([['g', 'renamed', 'h']]);
    expect(change('export function f(a: string): void {}\n')).toEqual([['g', 'removed', null]]);
    // Java: an overload added keeps the old one; varargs may be left out; the return type counts.
    const java = 'class A {\n  static String f(String a) {\n    return a;\n  }\n}\n';
    const javaChange = (next: string) =>
      interfaceChanges(defs('A.java', java), defs('A.java', next)).map((c) => [c.name, c.kind, c.after]);
    expect(
      javaChange(
        java.replace(
          '  static String f(',
          '  static String f(String a, int b) {\n    return a;\n  }\n  static String f(',
        ),
      ),
    ).toEqual([]);
    expect(javaChange(java.replace('f(String a)', 'f(String a, String... more)'))).toEqual([]);
    expect(
      javaChange(java.replace('static String f', 'static int f').replace('return a;', 'return 1;')),
    ).toEqual([['A.f', 'signature', '(String a) int']]);
    // Go: variadic parameters may be left out.
    const go = 'package a\n\nfunc F(a string) string {\n\treturn a\n}\n';
    expect(
      interfaceChanges(
        defs('a.go', go),
        defs('a.go', go.replace('F(a string)', 'F(a string, more ...string)')),
      ),
    ).toEqual([]);
    const py = 'def f(a):\n    pass\n';
    expect(
      interfaceChanges(defs('a.py', py), defs('a.py', 'def f(a, *args, b=2, **kw):\n    pass\n')),
    ).toEqual([]);
  });
});

describe('modules', () => {
  it('resolves relative imports in JavaScript and TypeScript, relative and dotted ones in Python', () => {
    expect(resolveModule('src/app.ts', './auth')).toBe('src/auth');
    expect(resolveModule('src/ui/app.ts', '../auth/index.js')).toBe('src/auth');
    expect(resolveModule('src/app.ts', 'react')).toBeNull();
    expect(resolveModule('src/app.ts', '../../outside')).toBeNull();
    expect(resolveModule('app/views.py', '.auth')).toBe('app/auth');
    expect(resolveModule('app/web/views.py', '..auth')).toBe('app/auth');
    expect(resolveModule('app/views.py', 'app.auth')).toBe('app/auth');
    expect(moduleStem('app/__init__.py')).toBe('app');
  });

  it('a call on an instance of an imported class, or on an imported module, knows where it comes from', () => {
    const ts = "import { Store } from './store';\nnew Store().save(1);\n";
    expect(usesIn('src/a.ts', ts, () => true)).toContainEqual(
      expect.objectContaining({ name: 'save', member: true, from: './store' }),
    );
    const py = 'import app.auth as auth\nfrom app.models import Store\n\nauth.login(1)\nStore().save(2)\n';
    expect(usesIn('app/v.py', py, () => true)).toEqual([
      expect.objectContaining({ name: 'login', member: true, from: 'app.auth' }),
      expect.objectContaining({ name: 'save', member: true, from: 'app.models' }),
      expect.objectContaining({ name: 'Store', member: false, from: 'app.models' }),
    ]);
    // A method changed in app/models.py meets Store().save() in another module.
    const met = semanticConflicts(
      [
        {
          path: 'app/models.py',
          interface: [
            { name: 'Store.save', kind: 'signature', before: '(self)', after: '(self, x)', line: 2 },
          ],
        },
      ],
      [{ path: 'app/v.py', uses: usesIn('app/v.py', py, () => true) ?? [] }],
    );
    expect(met.map((c) => [c.change.name, c.usedIn, c.use.line])).toEqual([['Store.save', 'app/v.py', 5]]);
  });

  it('Go, Java and Rust: imports name the package, class or module a call goes to', () => {
    const change = (path: string, name: string) => [
      { path, interface: [{ name, kind: 'signature' as const, before: '(a)', after: '(a, b)', line: 1 }] },
    ];
    const meets = (defPath: string, name: string, usePath: string, text: string) =>
      semanticConflicts(change(defPath, name), [
        { path: usePath, uses: usesIn(usePath, text, () => true) ?? [] },
      ]).map((c) => `${c.change.name}@${c.use.line}`);
    const go =
      'package main\n\nimport (\n\t"example.com/app/auth"\n\tother "example.com/app/other"\n)\n\nfunc main() {\n\tauth.Login("x")\n\tother.Login("y")\n}\n';
    expect(meets('auth/login.go', 'Login', 'main.go', go)).toEqual(['Login@9']);
    const java =
      'package com.x.app;\n\nimport com.x.auth.Login;\n\nclass App {\n  void run() {\n    Login.login("x");\n    new Login().login("y");\n    other.login("z");\n  }\n}\n';
    expect(
      meets('src/main/java/com/x/auth/Login.java', 'Login.login', 'src/main/java/com/x/app/App.java', java),
    ).toEqual(['Login.login@7', 'Login.login@8']);
    const rust =
      'use crate::auth::login;\nuse crate::store;\n\nfn main() {\n    login("x");\n    store::save(1);\n}\n';
    expect(meets('src/auth.rs', 'login', 'src/main.rs', rust)).toEqual(['login@5']);
    expect(meets('src/store/mod.rs', 'save', 'src/main.rs', rust)).toEqual(['save@6']);
    expect(meets('src/other.rs', 'login', 'src/main.rs', rust)).toEqual([]);
  });

  it('Java: a class imported with its package, a method imported static, a full name, a class of its own package', () => {
    const change = [
      {
        path: 'src/main/java/app/Auth.java',
        interface: [
          { name: 'Auth.login', kind: 'signature' as const, before: '(a)', after: '(a, b)', line: 1 },
        ],
      },
    ];
    const lines = (usePath: string, text: string) =>
      semanticConflicts(change, [{ path: usePath, uses: usesIn(usePath, text, () => true) ?? [] }]).map(
        (c) => c.use.line,
      );
    const web = 'src/main/java/app/web/App.java';
    expect(
      lines(web, 'package app.web;\nimport app.*;\nclass App {\n  String s = Auth.login("x");\n}\n'),
    ).toEqual([4]);
    expect(
      lines(
        web,
        'package app.web;\nimport static app.Auth.login;\nclass App {\n  String s = login("x");\n}\n',
      ),
    ).toEqual([4]);
    expect(lines(web, 'package app.web;\nclass App {\n  String s = app.Auth.login("x");\n}\n')).toEqual([3]);
    expect(
      lines('src/main/java/app/App.java', 'package app;\nclass App {\n  String s = Auth.login("x");\n}\n'),
    ).toEqual([3]);
    // Another package's class of that name, or two packages imported whole: not this one.
    expect(
      lines(web, 'package app.web;\nimport app.other.*;\nclass App {\n  String s = Auth.login("x");\n}\n'),
    ).toEqual([]);
    expect(
      lines(
        web,
        'package app.web;\nimport app.*;\nimport lib.*;\nclass App {\n  String s = Auth.login("x");\n}\n',
      ),
    ).toEqual([]);
  });

  it('Rust: a function imported under another name, or called by its full path; Go: a method on a value made there', () => {
    const change = (path: string, name: string) => [
      { path, interface: [{ name, kind: 'signature' as const, before: '(a)', after: '(a, b)', line: 1 }] },
    ];
    const lines = (defPath: string, name: string, usePath: string, text: string) =>
      semanticConflicts(change(defPath, name), [
        { path: usePath, uses: usesIn(usePath, text, () => true) ?? [] },
      ]).map((c) => c.use.line);
    expect(
      lines(
        'src/auth.rs',
        'login',
        'src/app.rs',
        'use crate::auth::login as sign_in;\n\nfn run() {\n    sign_in("x");\n}\n',
      ),
    ).toEqual([4]);
    expect(
      lines('src/auth.rs', 'login', 'src/app.rs', 'fn run() {\n    crate::auth::login("x");\n}\n'),
    ).toEqual([2]);
    expect(
      lines('src/other.rs', 'login', 'src/app.rs', 'fn run() {\n    crate::auth::login("x");\n}\n'),
    ).toEqual([]);
    const go =
      'package app\n\nimport "example.com/m/auth"\n\nfunc put() {\n\tst := &auth.Store{}\n\tst.Save("x")\n}\n';
    expect(lines('auth/auth.go', 'Store.Save', 'app/app.go', go)).toEqual([7]);
  });

  it('a call on a name typed with an imported class (a parameter, a variable, what it was made from) goes to that class', () => {
    const save = (path: string) => [
      {
        path,
        interface: [
          { name: 'Store.save', kind: 'signature' as const, before: '(a)', after: '(a, b)', line: 2 },
        ],
      },
    ];
    const meets = (defPath: string, usePath: string, text: string) =>
      semanticConflicts(save(defPath), [
        { path: usePath, uses: usesIn(usePath, text, () => true) ?? [] },
      ]).map((c) => c.use.line);
    const ts = [
      "import { Store } from './store';",
      'export function keep(s: Store, other: Cache) {',
      '  s.save(1);',
      '  other.save(2);',
      '}',
      'const t = new Store();',
      't.save(3);',
      'let u: Store | null = null;',
      'u?.save(4);',
      '',
    ].join('\n');
    // Typed or made from Store: it; `other` is typed with no import, so nothing says which `save`.
    expect(meets('src/store.ts', 'src/app.ts', ts)).toEqual([3, 7, 9]);
    const py = [
      'from app.models import Store',
      '',
      'def keep(s: Store, n: int = 0):',
      '    s.save(1)',
      '',
      'def other(t):',
      '    t.save(2)',
      '',
      'u = Store()',
      'u.save(3)',
      '',
    ].join('\n');
    expect(meets('app/models.py', 'app/views.py', py)).toEqual([4, 10]);
    const java = [
      'package com.x.app;',
      '',
      'import com.x.data.Store;',
      '',
      'class App {',
      '  void run(Store s, Other o) {',
      '    s.save(1);',
      '    o.save(2);',
      '    Store t = make();',
      '    t.save(3);',
      '  }',
      '}',
      '',
    ].join('\n');
    expect(meets('src/main/java/com/x/data/Store.java', 'src/main/java/com/x/app/App.java', java)).toEqual([
      7, 10,
    ]);
    const go = [
      'package main',
      '',
      'import "example.com/app/store"',
      '',
      'func keep(s *store.Store, n int) {',
      '\ts.Save(1)',
      '}',
      '',
    ].join('\n');
    expect(
      semanticConflicts(
        [
          {
            path: 'store/store.go',
            interface: [{ name: 'Store.Save', kind: 'signature', before: '(a)', after: '(a, b)', line: 2 }],
          },
        ],
        [{ path: 'main.go', uses: usesIn('main.go', go, () => true) ?? [] }],
      ).map((c) => c.use.line),
    ).toEqual([6]);
    const rust = ['use crate::store::Store;', '', 'fn keep(s: &Store) {', '    s.save(1);', '}', ''].join(
      '\n',
    );
    expect(meets('src/store.rs', 'src/main.rs', rust)).toEqual([4]);
  });

  it("another session's signatures reach a text on one line, bounded, with no control characters", () => {
    const said = describeChange(
      {
        name: 'f\u001b[31m',
        kind: 'signature',
        before: `(a${'x'.repeat(5_000)})`,
        after: '(a,\n b)\u0007',
        line: 1,
      },
      'they',
    );
    expect(said).not.toMatch(/[\u0000-\u001f]/);
    expect(said.length).toBeLessThan(600);
    expect(said.startsWith('they changed f')).toBe(true);
  });
});
