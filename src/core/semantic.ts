/**
 * The conflicts git cannot see: one session changes a definition's interface (removes it, renames
 * it, changes its parameters or return type) while another session's changes add or change a use
 * of it that resolves to that definition (the same module, or imported from it). Git merges both
 * cleanly; the build breaks. Read from each side's parsed definitions and uses, no text matching:
 * a change of a body alone says nothing.
 */
import { inline } from './fence.js';

/** A definition as a change set keeps it: its qualified name, interface and body digest. */
export interface Definition {
  name: string;
  signature?: string;
  body?: string;
  /** 1-based line of its start. */
  line: number;
}

/** How one definition's interface changed between the base and the new text. */
export interface InterfaceChange {
  name: string;
  kind: 'removed' | 'renamed' | 'signature';
  /** Its interface in the base (`(user)`), and now (null when removed; the new name when renamed). */
  before: string;
  after: string | null;
  /** 1-based line in the base. */
  line: number;
}

/** A use of a name in the lines a session wrote (see `NameUse` in integrations/symbols.ts). */
export interface Use {
  name: string;
  line: number;
  member: boolean;
  /** The module an import names (as written), or null. */
  from: string | null;
  text: string;
}

/** Interface changes kept per file (the rest is counted, not told). */
const KEPT = 50;

/**
 * What changed in the interfaces of a file's definitions from `base` to `next`: removed ones (a
 * removed one whose body reappears under a new name, once, is renamed), and those whose parameters
 * or return type changed (but for parameters added that a call may leave out). Only definitions
 * with an interface (functions, methods) count.
 */
export function interfaceChanges(base: Definition[], next: Definition[]): InterfaceChange[] {
  // By name, overloads together (Java): a signature still there under its name is unchanged.
  const byName = (defs: Definition[]) => {
    const out = new Map<string, Definition[]>();
    for (const d of defs) if (d.signature !== undefined) out.set(d.name, [...(out.get(d.name) ?? []), d]);
    return out;
  };
  const now = byName(next);
  const before = byName(base);
  // Added definitions by body: a removed one whose body is there once was renamed.
  const addedByBody = new Map<string, Definition[]>();
  for (const [name, list] of now)
    if (!before.has(name))
      for (const d of list)
        if (d.body !== undefined)
          addedByBody.set(d.body, [...(addedByBody.get(d.body) ?? []), d].slice(0, 2));
  const out: InterfaceChange[] = [];
  for (const d of [...before.values()].flat()) {
    const after = now.get(d.name);
    if (after) {
      if (!after.some((a) => a.signature === d.signature || widened(d.signature!, a.signature!)))
        out.push({
          name: d.name,
          kind: 'signature',
          before: d.signature!,
          after: after[0]!.signature!,
          line: d.line,
        });
      continue;
    }
    const same = d.body === undefined ? [] : (addedByBody.get(d.body) ?? []);
    if (same.length === 1)
      out.push({ name: d.name, kind: 'renamed', before: d.signature!, after: same[0]!.name, line: d.line });
    else out.push({ name: d.name, kind: 'removed', before: d.signature!, after: null, line: d.line });
  }
  return out.slice(0, KEPT);
}

/** Top-level parts of a parameter list, split at commas outside brackets and strings. */
function parameters(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let part = '';
  for (const ch of list) {
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'" || ch === '`') quote = ch;
    else if ('([{<'.includes(ch)) depth++;
    else if (')]}>'.includes(ch)) depth--;
    else if (ch === ',' && depth === 0) {
      out.push(part.trim());
      part = '';
      continue;
    }
    part += ch;
  }
  if (part.trim() !== '') out.push(part.trim());
  return out;
}

/**
 * Whether `after` only adds parameters a call written for `before` may leave out (optional, with
 * a default, rest or variadic: `b?: T`, `b = 1`, `...rest`, `String... more`, `more ...string`,
 * `*args`, `**kw`), keeping the rest and the return type: every call of the old interface still fits.
 */
function widened(before: string, after: string): boolean {
  const split = (sig: string) => /^\((.*)\)(.*)$/s.exec(sig);
  const b = split(before);
  const a = split(after);
  if (!b || !a || b[2] !== a[2]) return false;
  const old = parameters(b[1]!);
  const now = parameters(a[1]!);
  if (now.length <= old.length || old.some((p, i) => now[i] !== p)) return false;
  // Optional (`b?: T`), with a default (`b = 1`), rest or variadic (`...rest`, Java's `T... more`,
  // Go's `more ...T`), Python's `*args` and `**kw`.
  return now.slice(old.length).every((p) => /^[\w$]+\s*\?\s*:|=|(^|\s)\.\.\.|\.\.\.\s*[\w$]+$|^\*/.test(p));
}

/** A path as modules name it: no extension, no trailing `/index` or `/__init__`. */
export function moduleStem(path: string): string {
  return path.replace(/\.[^./]+$/, '').replace(/\/(index|__init__)$/, '');
}

/**
 * Where an import of `from` in the file at `path` points, as a module stem of the repository; null
 * for a package outside it (`react`, `os`). JavaScript and TypeScript: relative paths (`./auth`,
 * `../lib/util`). Python: relative (`.auth`, `..pkg.auth`) and absolute dotted names (`app.auth`,
 * taken from the repository's root).
 */
export function resolveModule(path: string, from: string): string | null {
  const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
  const join = (parts: string[]) => {
    const out: string[] = [];
    for (const p of parts) {
      if (p === '' || p === '.') continue;
      if (p === '..') {
        if (out.length === 0) return null;
        out.pop();
      } else out.push(p);
    }
    return out.join('/');
  };
  if (from.startsWith('./') || from.startsWith('../')) {
    const joined = join([...dir.split('/'), ...from.split('/')]);
    return joined === null ? null : moduleStem(joined);
  }
  if (/\.(py|pyi)$/.test(path)) {
    const dots = /^\.+/.exec(from)?.[0].length ?? 0;
    const rest = from.slice(dots).split('.').filter(Boolean);
    if (dots === 0) return rest.join('/');
    const up = Array.from({ length: dots - 1 }, () => '..');
    return join([...dir.split('/'), ...up, ...rest]);
  }
  return null;
}

/**
 * Whether an import written `from` in the file at `usePath` names the module the file at `defPath`
 * is (or, in Go, the package its folder is). JavaScript, TypeScript, Python: `resolveModule`. Go:
 * the import path ends with the definition's folder. Java: the imported class's path ends the
 * definition file's. Rust: `crate::a::b` is `a/b.rs` or `a/b/mod.rs` under the crate's `src`.
 */
export function importsFrom(usePath: string, from: string, defPath: string): boolean {
  if (usePath.endsWith('.go')) {
    const dir = defPath.includes('/') ? defPath.slice(0, defPath.lastIndexOf('/')) : '';
    return dir !== '' && (from === dir || from.endsWith(`/${dir}`));
  }
  if (usePath.endsWith('.java')) {
    const cls = from.replace(/\./g, '/');
    const stem = moduleStem(defPath);
    return stem === cls || stem.endsWith(`/${cls}`);
  }
  if (usePath.endsWith('.rs')) {
    if (!from.startsWith('crate::')) return false;
    const mod = from.slice('crate::'.length).replace(/::/g, '/');
    const stem = moduleStem(defPath).replace(/\/mod$/, '');
    return stem === `src/${mod}` || stem.endsWith(`/src/${mod}`);
  }
  return resolveModule(usePath, from) === moduleStem(defPath);
}

/** One file's definitions' interface changes and the uses its changes add. */
export interface SemanticFile {
  path: string;
  interface?: InterfaceChange[];
  uses?: Use[];
}

/** A use in one session's changes of a definition whose interface the other session changed. */
export interface SemanticConflict {
  /** Where the definition is, and how its interface changed. */
  definedIn: string;
  change: InterfaceChange;
  /** Where the other side uses it. */
  usedIn: string;
  use: Use;
  /** Which side changed the definition. */
  changedBy: 'ours' | 'theirs';
}

/** Semantic conflicts told per pair of sessions, at most. */
const PER_PAIR = 20;

/**
 * Every use in one side's changes of a definition whose interface the other side changed: by name
 * (the definition's own, or its old name when renamed), and where the use says where the name
 * comes from, only from that definition's module. A plain call meets a function of the file it is
 * in, or of the module it is imported from; a call on something (`this.save()`, `obj.save()`) meets
 * a changed method of that name in the same file, or a namespace's function it imports.
 */
export function semanticConflicts(ours: SemanticFile[], theirs: SemanticFile[]): SemanticConflict[] {
  const out: SemanticConflict[] = [];
  const look = (defs: SemanticFile[], files: SemanticFile[], changedBy: 'ours' | 'theirs') => {
    // The uses by name: each change looks up its own, whatever the number of uses.
    const byName = new Map<string, Array<{ u: SemanticFile; use: Use }>>();
    for (const u of files)
      for (const use of u.uses ?? []) {
        const list = byName.get(use.name);
        if (list) list.push({ u, use });
        else byName.set(use.name, [{ u, use }]);
      }
    for (const d of defs) {
      for (const change of d.interface ?? []) {
        const own = change.name.split('.').at(-1)!;
        const method = change.name.includes('.');
        for (const { u, use } of byName.get(own) ?? []) {
          const sameFile = u.path === d.path;
          // Without types, a call on an object is taken for the changed method only in its own
          // file, or on a namespace imported from its module: `obj.save()` elsewhere could be
          // any class's `save`.
          const fits =
            use.from !== null ? importsFrom(u.path, use.from, d.path) : sameFile && use.member === method;
          if (!fits) continue;
          out.push({ definedIn: d.path, change, usedIn: u.path, use, changedBy });
          if (out.length >= PER_PAIR) return;
        }
      }
    }
  };
  look(ours, theirs, 'ours');
  if (out.length < PER_PAIR) look(theirs, ours, 'theirs');
  return out.slice(0, PER_PAIR);
}

/**
 * How an interface change reads, said of `who`: "you changed login(user) to login(user, token)",
 * "they renamed login(user) to signIn", "you removed login(user)".
 */
export function describeChange(c: InterfaceChange, who = 'one side'): string {
  // Another session's code: one line, bounded, controls gone.
  const name = inline(c.name, 120);
  const before = inline(c.before, 200);
  const after = inline(c.after ?? '', 200);
  if (c.kind === 'removed') return `${who} removed ${name}${before}`;
  if (c.kind === 'renamed') return `${who} renamed ${name}${before} to ${after}`;
  return `${who} changed ${name}${before} to ${name}${after}`;
}
