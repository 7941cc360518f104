import { describe, expect, it } from 'vitest';
import type { Hunk } from '../../src/core/hunks.js';
import { languageOf } from '../../src/core/languages.js';
import { markSymbols, SYMBOL_LIMITS, symbolSpans, usesIn } from '../../src/integrations/symbols.js';

const names = (path: string, text: string) =>
  symbolSpans(path, text)?.map((s) => `${s.name}:${s.start}-${s.end}`);

describe('symbols from tree-sitter grammars', () => {
  it('TypeScript: classes, methods, functions, arrow functions by name, interfaces; TSX and JavaScript alike', () => {
    const ts = [
      'export class User {', //1
      '  name = "x";', //2
      '  save(): void {', //3
      '    db.write(this);', //4
      '  }', //5
      '  load = async () => {', //6
      '    return 1;', //7
      '  };', //8
      '}', //9
      'export function login(u: User) {', //10
      '  return u;', //11
      '}', //12
      'const logout = () => 0;', //13
      'const limit = 10;', //14
      'interface Store { get(id: string): User }', //15
      '',
    ].join('\n');
    expect(names('src/auth.ts', ts)).toEqual([
      'User:1-9',
      'User.save:3-5',
      'User.load:6-8',
      'login:10-12',
      'logout:13-13',
      'Store:15-15',
      'Store.get:15-15',
    ]);
    expect(names('a.tsx', 'export function Page() {\n  return <div>{1}</div>;\n}\n')).toEqual(['Page:1-3']);
    expect(names('a.js', 'class A {\n  m() {}\n}\nfunction* g() {}\n')).toEqual([
      'A:1-3',
      'A.m:2-2',
      'g:4-4',
    ]);
  });

  it('a symbol begins at its decorators or attributes; a function wrapped in a call and an overload are symbols too', () => {
    expect(
      names(
        'app/models.py',
        'class User:\n    @requires_admin\n    @cached\n    def save(self):\n        pass\n',
      ),
    ).toEqual(['User:1-5', 'User.save:2-5']);
    expect(names('a.ts', 'class A {\n  @Get()\n  list() {}\n}\n')).toEqual(['A:1-4', 'A.list:2-3']);
    expect(names('lib.rs', '#[derive(Debug)]\n#[serde(default)]\nstruct User;\n')).toEqual(['User:1-3']);
    expect(names('a.tsx', 'const Button = memo(() => {\n  return <b />;\n});\nconst n = f(1);\n')).toEqual([
      'Button:1-3',
    ]);
    expect(names('a.ts', 'function f(a: string): void;\nfunction f(a: any) {}\n')).toEqual([
      'f:1-1',
      'f:2-2',
    ]);
  });

  it('JavaScript functions by assignment, object-literal methods, and the doc comment above a definition', () => {
    const js = [
      "'use strict';", //1
      '/**', //2
      ' * Send a response.', //3
      ' */', //4
      'res.send = function send(body) {', //5
      '  return this.end(body);', //6
      '};', //7
      'exports.parse = parse;', //8
      '// the router', //9
      'module.exports = function createRouter() {', //10
      '  return {};', //11
      '};', //12
      'Route.prototype.dispatch = function dispatch(req) {', //13
      '  req.next();', //14
      '};', //15
      'const api = {', //16
      '  // logs in', //17
      '  login() { return 1; },', //18
      '  logout: function () { return 0; },', //19
      '  limit: 10,', //20
      '};', //21
      'let count = 0; // not a doc comment', //22
      'function next() {}', //23
      '',
    ].join('\n');
    expect(names('lib/response.js', js)).toEqual([
      'res.send:2-7',
      'module.exports:9-12',
      'Route.dispatch:13-15',
      'api:16-21',
      'api.login:17-18',
      'api.logout:19-19',
      'next:23-23',
    ]);
    // TypeScript too, with `export` and JSDoc; a blank line parts a comment from what follows.
    const ts = [
      '/** Logs in. */', //1
      'export function login(): void {}', //2
      '',
      '// a section heading', //4
      '',
      'export const logout = () => {};', //6
      'class A {', //7
      '  /** Saves. */', //8
      '  @Post()', //9
      '  save() {}', //10
      '}', //11
      '',
    ].join('\n');
    expect(names('src/a.ts', ts)).toEqual(['login:1-2', 'logout:6-6', 'A:7-11', 'A.save:8-10']);
    // Python, Go, Rust: the comments right above.
    expect(names('a.py', '# Saves a user.\n@cached\ndef save(u):\n    pass\n')).toEqual(['save:1-4']);
    expect(names('a.go', 'package a\n\n// Save saves.\nfunc Save() {}\n')).toEqual(['Save:3-4']);
    expect(names('a.rs', '/// Saves.\n#[inline]\nfn save() {}\n')).toEqual(['save:1-3']);
  });

  it('Python, Go, Rust and Java, qualified by their class, receiver or impl', () => {
    expect(
      names(
        'app/models.py',
        'class User:\n    def save(self):\n        pass\n\ndef login():\n    return 1\n',
      ),
    ).toEqual(['User:1-3', 'User.save:2-3', 'login:5-6']);
    expect(
      names(
        'main.go',
        'package m\n\ntype User struct{}\n\nfunc (u *User) Save() error {\n\treturn nil\n}\n\nfunc Main() {}\n',
      ),
    ).toEqual(['User:3-3', 'User.Save:5-7', 'Main:9-9']);
    expect(
      names('lib.rs', 'struct User;\nimpl<T> Show for User {\n    fn save(&self) {}\n}\nfn main() {}\n'),
    ).toEqual(['User:1-1', 'User:2-4', 'User.save:3-3', 'main:5-5']);
    expect(names('User.java', 'class User {\n  User() {}\n  void save() {\n  }\n}\n')).toEqual([
      'User:1-5',
      'User.User:2-2',
      'User.save:3-4',
    ]);
  });

  it('a file of another language, or past the limits, has no symbols', () => {
    expect(languageOf('README.md')).toBeNull();
    expect(symbolSpans('README.md', '# x\n')).toBeNull();
    expect(symbolSpans('big.ts', `// ${'x'.repeat(1024 * 1024)}\n`)).toBeNull();
  });

  it("symbols nested past the depth limit are their parent's lines: 4,000 functions each in the one before", () => {
    const n = 4_000;
    const text = `${Array.from({ length: n }, (_, i) => `function f${i}(a) {\n`).join('')}${'}\n'.repeat(n)}`;
    // The time allowed is not what this is about: the depth alone bounds it.
    const spans = symbolSpans('nested.ts', text, 60_000)!;
    expect(spans).toHaveLength(SYMBOL_LIMITS.depth);
    const innermost = spans.at(-1)!;
    expect(innermost.name.split('.')).toHaveLength(SYMBOL_LIMITS.depth);
    expect(innermost.name.endsWith(`f${SYMBOL_LIMITS.depth - 1}`)).toBe(true);
    // Its lines hold every function inside it.
    expect([innermost.start, innermost.end]).toEqual([SYMBOL_LIMITS.depth, 2 * n - SYMBOL_LIMITS.depth + 1]);
    const hunk: Hunk = { base: [n, 1], next: [n, 1], digest: '', excerpt: '' };
    markSymbols([hunk], spans, text);
    expect(hunk.symbols).toEqual([innermost.name]);
  });

  it('thousands of top-level declarations keep their doc comments and export statements', () => {
    const n = 3_000;
    const text = Array.from(
      { length: n },
      (_, i) => `/** Doc of f${i}. */\nexport function f${i}(a: number): number {\n  return a;\n}\n`,
    ).join('');
    const spans = symbolSpans('many.ts', text, 60_000)!;
    expect(spans).toHaveLength(n);
    expect(spans.every((s, i) => s.name === `f${i}` && s.start === 4 * i + 1 && s.end === 4 * i + 4)).toBe(
      true,
    );
    expect(spans[0]).toMatchObject({ signature: '(a: number) : number', parent: null });
  });

  it('a file that takes longer to read than its time has no symbols and no uses', () => {
    const text = Array.from({ length: 200 }, (_, i) => `function f${i}() { g${i}(); }\n`).join('');
    expect(symbolSpans('slow.ts', text)).toHaveLength(200);
    expect(usesIn('slow.ts', text, () => true)).toHaveLength(200);
    expect(symbolSpans('slow.ts', text, 0)).toBeNull();
    expect(usesIn('slow.ts', text, () => true, 0)).toBeNull();
  });
});

describe('the symbols a hunk touches', () => {
  const text = [
    'class User {',
    '  save() {',
    '    a();',
    '  }',
    '',
    '  load() {',
    '    b();',
    '  }',
    '}',
    '',
  ].join('\n');
  const spans = symbolSpans('u.ts', text)!;
  const hunk = (next: [number, number]): Hunk => ({ base: next, next, digest: '', excerpt: '' });

  it('names the innermost symbol of each written line (a blank one names none), and the one around a deletion', () => {
    const hunks = [hunk([3, 1]), hunk([3, 4]), hunk([5, 1]), hunk([4, 0]), hunk([2, 0]), hunk([4, 2])];
    markSymbols(hunks, spans, text);
    expect(hunks.map((h) => h.symbols)).toEqual([
      ['User.save'],
      ['User.save', 'User.load'],
      [],
      ['User'],
      ['User.save'],
      ['User.save'],
    ]);
  });
});
