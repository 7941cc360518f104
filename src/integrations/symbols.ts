/**
 * The functions, methods and classes of a source file, from tree-sitter grammars through
 * `@ast-grep/napi` (TypeScript, TSX and JavaScript built in; Python, Go, Rust and Java from the
 * `@ast-grep/lang-*` packages' prebuilt parsers). Loaded on first use only, and a grammar package
 * only for its language: a process that never reads symbols never pays for the parser (a hook reads
 * them only to judge an edit against a symbol another session holds). Each symbol is named by its
 * qualified name (`User.save`) and spans lines; `markSymbols` says which a hunk changes.
 */
import { createRequire } from 'node:module';
import type { Hunk } from '../core/hunks.js';
import { languageOf, type SymbolLanguage } from '../core/languages.js';
import type { Definition } from '../core/semantic.js';

type Napi = typeof import('@ast-grep/napi');
type SgNode = import('@ast-grep/napi').SgNode;

/** The languages a grammar package adds (the others are built into the binding). */
const DYNAMIC: Partial<Record<SymbolLanguage, string>> = {
  python: '@ast-grep/lang-python',
  go: '@ast-grep/lang-go',
  rust: '@ast-grep/lang-rust',
  java: '@ast-grep/lang-java',
};

/**
 * Past these a file is compared by lines only: reading it would cost more than a hook, or the
 * server between two calls, may spend.
 */
export const SYMBOL_LIMITS = {
  bytes: 1024 * 1024,
  /**
   * Symbols inside this many others are not read as symbols of their own (their lines are their
   * parent's): each one's qualified name and body hold all of its parents', so what nesting costs
   * grows with its square (4,000 functions, each in the one before, took 15 s).
   */
  depth: 32,
  /** The time one file's symbols or uses may take to read; past it the file has none read. */
  ms: 1_000,
};

/** A clock that says when a read has run past `SYMBOL_LIMITS.ms`, looked at every 32 steps. */
function budget(ms = SYMBOL_LIMITS.ms): () => boolean {
  const until = performance.now() + ms;
  let steps = 0;
  return () => (++steps & 31) === 0 && performance.now() > until;
}

/** A symbol and its lines, 1-based and inclusive; `parent` indexes the enclosing one. */
export interface SymbolSpan {
  name: string;
  start: number;
  end: number;
  parent: number | null;
  /**
   * A function's or method's interface as written: its parameters and return type, whitespace
   * folded (absent for what takes none: a class, an interface).
   */
  signature?: string;
  /** A short digest of its body (what a rename keeps). */
  body?: string;
}

/** What declares a symbol, per language, and how it is named. */
interface Grammar {
  kinds: string[];
  /** The symbol's own name, or null when the node is no symbol after all. */
  name(node: SgNode): string | null;
}

/**
 * The node whose lines are the symbol's: the declaration itself, or the statement around it that
 * nothing else shares (`export function …`, `const f = () => …`, `res.send = function …;`), so that
 * what stands above that statement (a doc comment, decorators) is found as its neighbour.
 */
const HOLDERS = new Set([
  'export_statement',
  'expression_statement',
  'lexical_declaration',
  'variable_declaration',
]);

const field = (node: SgNode, name: string) => node.field(name)?.text() ?? null;

const TS_KINDS = [
  'class_declaration',
  'abstract_class_declaration',
  'function_declaration',
  'generator_function_declaration',
  'method_definition',
  'method_signature',
  'abstract_method_signature',
  'interface_declaration',
  'enum_declaration',
  'type_alias_declaration',
  'internal_module',
  'variable_declarator',
  'public_field_definition',
  'function_signature',
  'assignment_expression',
  'pair',
];
const FUNCTION_VALUES = new Set([
  'arrow_function',
  'function_expression',
  'function',
  'class',
  'generator_function',
]);

/**
 * Whether a value is a function by another name: a function or class itself, one wrapped in a call
 * (`memo(() => …)`, `forwardRef(function …)`), or an object literal holding methods (`{ login() {…} }`:
 * a namespace of functions).
 */
function functionLike(value: SgNode | null): boolean {
  if (!value) return false;
  const kind = String(value.kind());
  if (FUNCTION_VALUES.has(kind)) return true;
  if (kind === 'call_expression')
    return (value.field('arguments')?.children() ?? []).some((a) => FUNCTION_VALUES.has(String(a.kind())));
  if (kind === 'object')
    return value
      .children()
      .some(
        (c) => c.kind() === 'method_definition' || (c.kind() === 'pair' && functionLike(c.field('value'))),
      );
  return false;
}

/**
 * A function by another name (`const login = () => …`, `save = async () => …`, `const Button =
 * memo(() => …)`, `const api = { login() {…} }`), else null.
 */
function namedValue(node: SgNode, nameField: string, valueField = 'value'): string | null {
  return functionLike(node.field(valueField)) ? field(node, nameField) : null;
}

/**
 * A function defined by assignment, by what it is assigned to (`res.send = function send(…)`,
 * `exports.parse = …`, `module.exports = function …`; `Route.prototype.dispatch = …` is the method
 * `Route.dispatch`), at the level of a statement; else null.
 */
function assignedName(node: SgNode): string | null {
  if (node.parent()?.kind() !== 'expression_statement' || !functionLike(node.field('right'))) return null;
  const left = node.field('left');
  if (!left || !['identifier', 'member_expression'].includes(String(left.kind()))) return null;
  return left
    .text()
    .replace(/\s+/g, '')
    .replace(/^this\./, '')
    .replace(/\.prototype\./g, '.');
}

/** An object literal's `key: function …` (its shorthand `key() {…}` is a method_definition). */
function pairName(node: SgNode): string | null {
  if (!functionLike(node.field('value'))) return null;
  const key = node.field('key');
  return key ? key.text().replace(/^['"`]|['"`]$/g, '') : null;
}

/** What stands before a declaration and belongs to it: decorators (TypeScript, Python), attributes (Rust). */
const DECORATIONS = new Set(['decorator', 'attribute_item']);
const COMMENTS = new Set(['comment', 'line_comment', 'block_comment']);

/**
 * The parent, previous sibling and children of the file's top-level statements and of what the
 * statements that hold a declaration (`HOLDERS`) hold, read once. Tree-sitter finds a node's parent
 * or previous sibling by walking down again from the root, past every sibling before it: asked of
 * each top-level function of a file, that grows with the square of their number (45,000 took 5 s).
 * Other nodes are asked of tree-sitter.
 */
class Outline {
  private readonly parents = new Map<number, SgNode>();
  private readonly previous = new Map<number, SgNode | null>();
  private readonly kids = new Map<number, SgNode[]>();

  constructor(root: SgNode) {
    const visit = (up: SgNode, children: SgNode[]) => {
      this.kids.set(up.id(), children);
      children.forEach((child, i) => {
        this.parents.set(child.id(), up);
        this.previous.set(child.id(), children[i - 1] ?? null);
        const kind = String(child.kind());
        if (kind === 'decorated_definition' || HOLDERS.has(kind)) visit(child, child.children());
      });
    };
    visit(root, root.children());
  }

  parent(node: SgNode): SgNode | null {
    return this.parents.get(node.id()) ?? node.parent();
  }

  prev(node: SgNode): SgNode | null {
    const known = this.previous.get(node.id());
    return known !== undefined ? known : node.prev();
  }

  children(node: SgNode): SgNode[] {
    return this.kids.get(node.id()) ?? node.children();
  }
}

/** The statement a declaration is all of (see `HOLDERS`), or the declaration. */
function holderOf(node: SgNode, outline: Outline): SgNode {
  let at = node;
  for (let up = outline.parent(at); up; up = outline.parent(up)) {
    const kind = String(up.kind());
    if (kind !== 'decorated_definition' && !HOLDERS.has(kind)) break;
    // `const a = 1, f = () => …`: the statement is not f's alone.
    if (
      kind !== 'decorated_definition' &&
      outline.children(up).filter((c) => c.isNamed() && !COMMENTS.has(String(c.kind()))).length > 1 &&
      kind !== 'export_statement'
    )
      break;
    at = up;
  }
  return at;
}

/**
 * Where a symbol's lines begin (0-based): with its decorators or attributes, and the comments right
 * above its `holder` (its doc comment: each on lines of its own, no blank line between them and it).
 */
function startOf(holder: SgNode, outline: Outline): number {
  let first = holder;
  for (let prev = outline.prev(first); prev; prev = outline.prev(prev)) {
    const kind = String(prev.kind());
    if (DECORATIONS.has(kind)) {
      first = prev;
      continue;
    }
    const adjacent = prev.range().end.line >= first.range().start.line - 1;
    const ownLine = outline.prev(prev)?.range().end.line !== prev.range().start.line;
    if (!COMMENTS.has(kind) || !adjacent || !ownLine) break;
    first = prev;
  }
  return first.range().start.line;
}

const tsGrammar: Grammar = {
  kinds: TS_KINDS,
  name(node) {
    const kind = node.kind();
    if (kind === 'variable_declarator' || kind === 'public_field_definition') return namedValue(node, 'name');
    if (kind === 'assignment_expression') return assignedName(node);
    if (kind === 'pair') return pairName(node);
    return field(node, 'name');
  },
};

/** JavaScript's grammar has no types, and calls a class field `field_definition` (its `property`). */
const jsGrammar: Grammar = {
  kinds: [
    'class_declaration',
    'function_declaration',
    'generator_function_declaration',
    'method_definition',
    'variable_declarator',
    'field_definition',
    'assignment_expression',
    'pair',
  ],
  name(node) {
    const kind = node.kind();
    if (kind === 'variable_declarator') return namedValue(node, 'name');
    if (kind === 'field_definition') return namedValue(node, 'property');
    if (kind === 'assignment_expression') return assignedName(node);
    if (kind === 'pair') return pairName(node);
    return field(node, 'name');
  },
};

const GRAMMARS: Record<SymbolLanguage, Grammar> = {
  typescript: tsGrammar,
  tsx: tsGrammar,
  javascript: jsGrammar,
  python: { kinds: ['class_definition', 'function_definition'], name: (n) => field(n, 'name') },
  go: {
    kinds: ['function_declaration', 'method_declaration', 'type_spec'],
    name(node) {
      const name = field(node, 'name');
      if (node.kind() !== 'method_declaration' || name === null) return name;
      // `func (u *User[T]) Save()`: User.Save.
      const receiver = /([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*\)\s*$/.exec(field(node, 'receiver') ?? '');
      return receiver ? `${receiver[1]}.${name}` : name;
    },
  },
  rust: {
    kinds: [
      'function_item',
      'function_signature_item',
      'struct_item',
      'enum_item',
      'trait_item',
      'mod_item',
      'impl_item',
    ],
    name(node) {
      if (node.kind() !== 'impl_item') return field(node, 'name');
      // `impl<T> Display for User<T>`: its methods are User's.
      const type = field(node, 'type');
      return type === null ? null : type.replace(/<.*$/s, '').trim();
    },
  },
  java: {
    kinds: [
      'class_declaration',
      'interface_declaration',
      'enum_declaration',
      'record_declaration',
      'annotation_type_declaration',
      'method_declaration',
      'constructor_declaration',
    ],
    name: (n) => field(n, 'name'),
  },
};

let napi: Napi | undefined;
let registered = false;

/**
 * The binding; for a language of a grammar package, with every such package registered (the
 * binding takes one registration per process, so all at once).
 */
function load(language: SymbolLanguage): Napi {
  const require = createRequire(__filename);
  napi ??= require('@ast-grep/napi') as Napi;
  if (!registered && DYNAMIC[language]) {
    napi.registerDynamicLanguage(
      Object.fromEntries(Object.entries(DYNAMIC).map(([name, pkg]) => [name, require(pkg)])),
    );
    registered = true;
  }
  return napi;
}

function langName(napi: Napi, language: SymbolLanguage): string {
  if (language === 'typescript') return napi.Lang.TypeScript;
  if (language === 'tsx') return napi.Lang.Tsx;
  if (language === 'javascript') return napi.Lang.JavaScript;
  return language;
}

/** The text parsed last, and its tree: a file's symbols and then its uses are read from one parse. */
let last: { language: SymbolLanguage; text: string; root: SgNode } | null = null;

function parsed(language: SymbolLanguage, text: string): SgNode {
  if (last?.language === language && last.text === text) return last.root;
  const binding = load(language);
  const root = binding.parse(langName(binding, language), text).root();
  last = { language, text, root };
  return root;
}

/**
 * The symbols of a file's text, outermost first, or null when its language is not read here (or the
 * text is past `SYMBOL_LIMITS`: its size, or the time reading it takes; `ms` sets another time).
 * Symbols nested deeper than `SYMBOL_LIMITS.depth` are left out.
 */
export function symbolSpans(path: string, text: string, ms?: number): SymbolSpan[] | null {
  const language = languageOf(path);
  if (!language || text.length > SYMBOL_LIMITS.bytes) return null;
  const late = budget(ms);
  const grammar = GRAMMARS[language];
  const root = parsed(language, text);
  // Read once a symbol needs it: a file of statements that declare nothing never does.
  let read: Outline | null = null;
  const outline = () => {
    read ??= new Outline(root);
    return read;
  };
  const found: Array<{ own: string; start: number; end: number; signature?: string; body?: string }> = [];
  /** Where the symbols around the node at hand end (the nodes come outermost first, in order). */
  const around: number[] = [];
  for (const node of root.findAll({ rule: { any: grammar.kinds.map((kind) => ({ kind })) } })) {
    if (late()) return null;
    const own = grammar.name(node);
    if (own === null || own === '') continue;
    const range = node.range();
    while (around.length > 0 && around.at(-1)! <= range.start.index) around.pop();
    around.push(range.end.index);
    if (around.length > SYMBOL_LIMITS.depth) continue;
    // A statement's lines are its declaration's (`res.send = function …;` ends at its `;`).
    const holder = holderOf(node, outline());
    const { start, end } = holder.range();
    // A node that ends at the start of a line ends on the line before.
    const last = end.column === 0 && end.line > start.line ? end.line - 1 : end.line;
    found.push({ own, start: startOf(holder, outline()) + 1, end: last + 1, ...interfaceOf(node) });
  }
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const spans: SymbolSpan[] = [];
  const open: number[] = [];
  for (const f of found) {
    while (open.length > 0 && spans[open.at(-1)!]!.end < f.start) open.pop();
    const parent = open.at(-1) ?? null;
    const qualified = parent === null ? f.own : `${spans[parent]!.name}.${f.own}`;
    spans.push({
      name: qualified,
      start: f.start,
      end: f.end,
      parent,
      ...(f.signature !== undefined ? { signature: f.signature, body: f.body ?? '' } : {}),
    });
    open.push(spans.length - 1);
  }
  return spans;
}

/** A parsed file's definitions as interface changes compare them (core/semantic.ts). */
export function definitionsOf(spans: SymbolSpan[]): Definition[] {
  return spans.map((d) => ({
    name: d.name,
    line: d.start,
    ...(d.signature !== undefined ? { signature: d.signature, body: d.body ?? '' } : {}),
  }));
}

/** Whitespace folded: a signature reads the same however it is wrapped. */
const folded = (text: string) => text.replace(/\s+/g, ' ').replace(/\(\s/g, '(').replace(/\s\)/g, ')').trim();

/** FNV-1a of a text, as 8 hex digits (no crypto module to load in a hook). */
function digest(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/**
 * A function's interface and body, from its declaration or the function value it names (`const f
 * = (a) => …`, `res.send = function (body) {…}`, `key: function (…) {…}`): nothing for a symbol
 * that takes no parameters at all (a class, an interface, a type).
 */
function interfaceOf(node: SgNode): { signature?: string; body?: string } {
  const fn =
    node.field('parameters') || node.field('parameter') ? node : (node.field('value') ?? node.field('right'));
  if (!fn) return {};
  const params = fn.field('parameters') ?? fn.field('parameter');
  if (!params) return {};
  // Java's method declaration names its return type `type` (a constructor has none).
  const returns =
    fn.field('return_type') ??
    fn.field('result') ??
    (fn.kind() === 'method_declaration' ? fn.field('type') : null);
  const body = fn.field('body');
  return {
    // Bounded: it is shown to other sessions (fenced where shown).
    signature: folded(`${params.text()}${returns ? ` ${returns.text().replace(/^:\s*/, ': ')}` : ''}`).slice(
      0,
      300,
    ),
    body: digest(folded(body?.text() ?? '')),
  };
}

/** A call, a `new`, or an import of a name in a file's text: what may break when that name's interface changes. */
export interface NameUse {
  /** The name called or imported (a method's own name for `obj.m()`). */
  name: string;
  /** 1-based line. */
  line: number;
  /** Called on something (`obj.m()`, `mod.f()`): a method, or a namespace's member. */
  member: boolean;
  /**
   * Where the name comes from when an import says so: the module as written (`./auth`,
   * `.auth`, `app.auth`), for the caller to resolve; null when it is the file's own or unknown.
   */
  from: string | null;
  /** The line's text, folded and cut (for an excerpt). */
  text: string;
}

const CALLS: Record<SymbolLanguage, string[]> = {
  typescript: ['call_expression', 'new_expression'],
  tsx: ['call_expression', 'new_expression'],
  javascript: ['call_expression', 'new_expression'],
  python: ['call'],
  go: ['call_expression'],
  rust: ['call_expression'],
  java: ['method_invocation', 'object_creation_expression'],
};

/** What a file imports, by local name: the module it names and the name there. */
function importsOf(language: SymbolLanguage, root: SgNode): Map<string, { from: string; name: string }> {
  const out = new Map<string, { from: string; name: string }>();
  if (language === 'python') {
    // `import app.auth as auth`: a namespace (its members called as `auth.f()`).
    for (const node of root.findAll({ rule: { kind: 'import_statement' } }))
      for (const n of node.children())
        if (n.kind() === 'aliased_import') {
          const name = n.field('name')?.text();
          const alias = n.field('alias')?.text();
          if (name && alias) out.set(alias, { from: name, name: '*' });
        }
    for (const node of root.findAll({ rule: { kind: 'import_from_statement' } })) {
      const from = node.field('module_name')?.text() ?? '';
      for (const n of node.children()) {
        if (n.kind() === 'aliased_import') {
          const name = n.field('name')?.text();
          const alias = n.field('alias')?.text();
          if (name && alias) out.set(alias, { from, name });
        } else if (
          n.kind() === 'dotted_name' &&
          n.range().start.index > (node.field('module_name')?.range().end.index ?? 0)
        )
          out.set(n.text(), { from, name: n.text() });
      }
    }
    return out;
  }
  if (language === 'go') {
    // `import auth "example.com/app/auth"`, or by the path's last segment.
    for (const spec of root.findAll({ rule: { kind: 'import_spec' } })) {
      const from = (spec.field('path')?.text() ?? '').replace(/^["`]|["`]$/g, '');
      const local = spec.field('name')?.text() ?? from.split('/').at(-1) ?? '';
      if (from && local && local !== '_' && local !== '.') out.set(local, { from, name: '*' });
    }
    return out;
  }
  if (language === 'java') {
    // `import com.example.auth.Login;`: the class, by its own name. `import static
    // com.example.auth.Login.login;`: the method, from its class. `import com.example.auth.*;`:
    // the package, kept as `.*` (a class no import names may be its). A class of the file's own
    // package needs no import: kept as `.`.
    for (const node of root.findAll({ rule: { kind: 'import_declaration' } })) {
      const from = node
        .children()
        .find((c) => c.kind() === 'scoped_identifier' || c.kind() === 'identifier')
        ?.text();
      if (!from) continue;
      const wildcard =
        node.children().some((c) => c.kind() === 'asterisk') || /\.\s*\*\s*;/.test(node.text());
      const isStatic = node.children().some((c) => c.text() === 'static');
      const last = from.split('.').at(-1)!;
      if (wildcard) {
        if (!isStatic) out.set(out.has('.*') ? '.**' : '.*', { from, name: '*' });
      } else if (isStatic) out.set(last, { from: from.slice(0, from.lastIndexOf('.')), name: last });
      else out.set(last, { from, name: '*' });
    }
    const pkg = root
      .findAll({ rule: { kind: 'package_declaration' } })[0]
      ?.children()
      .find((c) => c.kind() === 'scoped_identifier' || c.kind() === 'identifier')
      ?.text();
    if (pkg) out.set('.', { from: pkg, name: '*' });
    return out;
  }
  if (language === 'rust') {
    // `use crate::auth::login;`, `use crate::auth;` (then `auth::login()`).
    for (const node of root.findAll({ rule: { kind: 'use_declaration' } })) {
      const argument = node.field('argument');
      // `use crate::auth::login as sign_in;`: the same, under its alias.
      const aliased = argument?.kind() === 'use_as_clause';
      const path = aliased ? argument!.field('path') : argument;
      if (path?.kind() !== 'scoped_identifier') continue;
      const text = path.text().replace(/\s+/g, '');
      const at = text.lastIndexOf('::');
      const local = (aliased ? argument!.field('alias')?.text() : null) ?? text.slice(at + 2);
      out.set(local, { from: text.slice(0, at), name: text.slice(at + 2) });
      out.set(`${local}::`, { from: text, name: '*' });
    }
    return out;
  }
  if (language !== 'typescript' && language !== 'tsx' && language !== 'javascript') return out;
  for (const node of root.findAll({ rule: { kind: 'import_statement' } })) {
    const from = (node.field('source')?.text() ?? '').replace(/^['"`]|['"`]$/g, '');
    for (const spec of node.findAll({ rule: { kind: 'import_specifier' } })) {
      const name = spec.field('name')?.text();
      if (name) out.set(spec.field('alias')?.text() ?? name, { from, name });
    }
    for (const ns of node.findAll({ rule: { kind: 'namespace_import' } })) {
      const local = ns
        .children()
        .find((c) => c.kind() === 'identifier')
        ?.text();
      if (local) out.set(local, { from, name: '*' });
    }
    const clause = node.children().find((c) => c.kind() === 'import_clause');
    const dflt = clause
      ?.children()
      .find((c) => c.kind() === 'identifier')
      ?.text();
    if (dflt) out.set(dflt, { from, name: 'default' });
  }
  return out;
}

/**
 * Where a Java class a file names without importing it comes from: the one package it imports
 * whole (`import app.*;`), else its own package (same-package classes need no import). With two
 * packages imported whole, unknown. A class of neither (`String`) names no file of the repository.
 */
function javaClass(
  imports: Map<string, { from: string; name: string }>,
  name: string,
): { from: string; name: string } | undefined {
  if (!/^[A-Z]/.test(name) || imports.has('.**')) return undefined;
  const pkg = imports.get('.*') ?? imports.get('.');
  return pkg ? { from: `${pkg.from}.${name}`, name: '*' } : undefined;
}

/**
 * The names `text` calls or constructs on the lines `changed` says, each with where an import
 * says it comes from; null when the language is not read here (or past the limits).
 */
export function usesIn(
  path: string,
  text: string,
  changed: (line: number) => boolean,
  ms?: number,
): NameUse[] | null {
  const language = languageOf(path);
  if (!language || text.length > SYMBOL_LIMITS.bytes) return null;
  const late = budget(ms);
  const root = parsed(language, text);
  const imports = importsOf(language, root);
  // Names declared with an imported type (`s: Store`, `Store s`, `const s = new Store()`), read
  // once, when a call on a name that is no import asks.
  let typed: Map<string, { from: string; name: string }> | null = null;
  const typedOnce = () => {
    typed ??= typedNames(language, root, imports);
    return typed;
  };
  const lines = text.split('\n');
  const out: NameUse[] = [];
  const seen = new Set<string>();
  for (const node of root.findAll({ rule: { any: CALLS[language].map((kind) => ({ kind })) } })) {
    if (late()) return null;
    const line = node.range().start.line + 1;
    if (!changed(line)) continue;
    const callee =
      node.field('function') ?? node.field('constructor') ?? node.field('name') ?? node.field('type') ?? null;
    if (!callee) continue;
    const kind = String(callee.kind());
    let name: string | null = null;
    let member = false;
    let from: string | null = null;
    if (language === 'java') {
      // `obj.m()`, `Cls.m()`, `new Cls().m()`; `new Cls()` names the class.
      const object = node.field('object');
      const creation = node.kind() === 'object_creation_expression';
      name = creation ? (node.field('type')?.text() ?? null) : (node.field('name')?.text() ?? null);
      member = object !== null;
      const made = object?.kind() === 'object_creation_expression' ? object.field('type') : object;
      const className = (n: string) => javaClass(imports, n);
      const ns =
        made && ['identifier', 'type_identifier'].includes(String(made.kind()))
          ? (imports.get(made.text()) ?? typedOnce().get(made.text()) ?? className(made.text()))
          : creation && name
            ? (imports.get(name) ?? className(name))
            : !object && name
              ? // `login()` imported by `import static …Auth.login`
                imports.get(name)
              : undefined;
      if (ns) from = ns.from;
      // By its full name: `app.Auth.login()`.
      else if (made?.kind() === 'field_access' && /^[a-z_]\w*(\.\w+)*\.[A-Z]\w*$/.test(made.text()))
        from = made.text();
    } else if (kind === 'identifier' || kind === 'type_identifier') {
      name = callee.text();
      const imported = imports.get(name);
      if (imported) {
        from = imported.from;
        if (imported.name !== 'default' && imported.name !== '*') name = imported.name;
      }
    } else if (['member_expression', 'attribute', 'selector_expression', 'field_expression'].includes(kind)) {
      const property = callee.field('property') ?? callee.field('attribute') ?? callee.field('field');
      const object = callee.field('object') ?? callee.field('operand') ?? callee.field('value');
      name = property?.text() ?? null;
      member = true;
      // Called on a namespace (`auth.f()`), or on an instance made right there of an imported
      // class (`new Store().save()`, `Store().save()`): the import says where it comes from.
      const made =
        object?.kind() === 'new_expression'
          ? object.field('constructor')
          : object?.kind() === 'call' || object?.kind() === 'call_expression'
            ? object.field('function')
            : object;
      const ns =
        made?.kind() === 'identifier'
          ? (imports.get(made.text()) ?? typedOnce().get(made.text()))
          : undefined;
      if (ns) from = ns.from;
    } else if (kind === 'scoped_identifier') {
      // Rust's `auth::login()`: the module a `use` names.
      name = callee.field('name')?.text() ?? null;
      const module = callee.field('path')?.text().replace(/\s+/g, '') ?? '';
      const used = imports.get(`${module}::`) ?? imports.get(module);
      // By its full path (`crate::auth::login()`), no `use` needed.
      from = used
        ? used.name === '*'
          ? used.from
          : `${used.from}::${used.name}`
        : module.startsWith('crate::')
          ? module
          : null;
    }
    if (!name) continue;
    const key = `${name}\0${line}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ name, line, member, from, text: folded(lines[line - 1] ?? '').slice(0, 160) });
    if (out.length >= 200) break;
  }
  return out;
}

/** The declarations that give a name a type, per language: parameters and local variables. */
const DECLARATIONS: Record<SymbolLanguage, string[]> = {
  typescript: ['required_parameter', 'optional_parameter', 'variable_declarator'],
  tsx: ['required_parameter', 'optional_parameter', 'variable_declarator'],
  javascript: ['variable_declarator'],
  python: ['typed_parameter', 'typed_default_parameter', 'assignment'],
  java: ['formal_parameter', 'local_variable_declaration', 'field_declaration'],
  go: ['parameter_declaration', 'var_spec', 'short_var_declaration'],
  rust: ['parameter', 'let_declaration'],
};

/** The nodes that name a class or a package inside a type or a value, per language's grammar. */
const NAME_KINDS: Record<SymbolLanguage, string[]> = {
  typescript: ['identifier', 'type_identifier'],
  tsx: ['identifier', 'type_identifier'],
  javascript: ['identifier'],
  python: ['identifier'],
  java: ['identifier', 'type_identifier'],
  go: ['identifier', 'type_identifier', 'package_identifier'],
  rust: ['identifier', 'type_identifier'],
};

/** Declarations of a file read for types, at most (a file is bounded; this bounds the walk too). */
const DECLARATIONS_READ = 2_000;

/**
 * Names a file declares with an imported class as their type or their value's maker — `s: Store`,
 * `Store s`, `s *Store`, `s: &Store`, `const s = new Store()`, `s = Store()` — and the import it
 * comes from: a call on such a name (`s.save()`) goes to that class's method. Without scopes: the
 * first declaration of a name wins (a name typed differently in two functions is rare).
 */
function typedNames(
  language: SymbolLanguage,
  root: SgNode,
  imports: Map<string, { from: string; name: string }>,
): Map<string, { from: string; name: string }> {
  const out = new Map<string, { from: string; name: string }>();
  if (imports.size === 0) return out;
  let read = 0;
  for (const decl of root.findAll({ rule: { any: DECLARATIONS[language].map((kind) => ({ kind })) } })) {
    if (++read > DECLARATIONS_READ) break;
    const declarator = decl.field('declarator');
    const first =
      decl.field('pattern') ??
      decl.field('name') ??
      decl.field('left') ??
      declarator?.field('name') ??
      decl.children().find((c) => c.kind() === 'identifier');
    // Go's `st := …` names its variables in a list: the first.
    const named =
      first?.kind() === 'expression_list' ? first.children().find((c) => c.kind() === 'identifier') : first;
    if (named?.kind() !== 'identifier') continue;
    const name = named.text();
    if (out.has(name) || imports.has(name)) continue;
    // Its type may name a class or a package (`store.Store`); its value, only a class it makes.
    const value = decl.field('value') ?? decl.field('right') ?? declarator?.field('value') ?? null;
    // A composite literal's type is what it makes (Go's `&store.Store{}`).
    const literal =
      language === 'go'
        ? (value?.find({ rule: { kind: 'composite_literal' } })?.field('type') ?? null)
        : null;
    const sources: Array<[SgNode | null, boolean]> = [
      [decl.field('type'), true],
      [literal, true],
      [value, false],
    ];
    for (const [source, isType] of sources) {
      if (!source) continue;
      const maker = [
        source,
        ...source.findAll({ rule: { any: NAME_KINDS[language].map((kind) => ({ kind })) } }),
      ]
        .map((n) => imports.get(n.text()))
        .find((found) => found !== undefined && (isType || found.name !== '*'));
      if (maker) {
        out.set(name, maker);
        break;
      }
    }
  }
  return out;
}

/** For each line (1-based; index 0 unused), the innermost symbol holding it, or -1. */
function innermostByLine(spans: SymbolSpan[], lineCount: number): Int32Array {
  const at = new Int32Array(lineCount + 2).fill(-1);
  // Outer spans come first, so an inner one overwrites its parent's lines.
  spans.forEach((s, i) => {
    for (let line = s.start; line <= Math.min(s.end, lineCount + 1); line++) at[line] = i;
  });
  return at;
}

function holds(spans: SymbolSpan[], i: number, line: number): boolean {
  return spans[i]!.start <= line && line <= spans[i]!.end;
}

/**
 * Each hunk's symbols (set on `hunk.symbols`): the innermost symbol of every line it writes in
 * `text` (blank lines aside, unless `blankLines`: a blank line between two methods changes neither);
 * for a deletion, the innermost symbol around the point where lines went.
 */
export function markSymbols(
  hunks: Hunk[],
  spans: SymbolSpan[],
  text: string,
  { blankLines = false } = {},
): void {
  const lines = text.split('\n');
  const lineCount = lines.length;
  const at = innermostByLine(spans, lineCount);
  for (const hunk of hunks) {
    const names = new Set<string>();
    const [start, count] = hunk.next;
    if (count > 0) {
      for (let line = start; line < start + count && line <= lineCount + 1; line++) {
        const i = at[line]!;
        if (i >= 0 && (blankLines || (lines[line - 1] ?? '').trim() !== '')) names.add(spans[i]!.name);
      }
    } else {
      // Lines went after line `start`: the innermost symbol holding both sides of the gap.
      let i = start >= 1 ? at[start]! : -1;
      while (i >= 0 && !holds(spans, i, start + 1)) i = spans[i]!.parent ?? -1;
      if (i >= 0) names.add(spans[i]!.name);
    }
    hunk.symbols = [...names];
  }
}
