/**
 * Reads a git config file (`.git/config`) without a `git` process, by git's own grammar
 * (git-config(1), "Syntax"): `[section]`, `[section "subsection"]` (case-sensitive, with `\"` and
 * `\\`) and the older `[section.subsection]`; `name = value` or a bare `name` (true); comments from
 * `#` or `;` outside quotes; double quotes kept as text, escapes `\" \\ \n \t \b`; a backslash at
 * the end of a line continues the value. `include` and `includeIf` are not followed.
 *
 * Only what the project's identity needs is asked of it (the remotes), but it reads a whole file
 * the way git does, so that a quoted or commented value is never misread.
 */

/** Each variable's values in file order, by `section.subsection.name` (section and name lower-cased). */
export type GitConfig = Map<string, string[]>;

/** At most this much of a config file is read: a repository's is a few hundred bytes. */
const MAX_BYTES = 1 << 20;

export function parseGitConfig(text: string): GitConfig {
  const config: GitConfig = new Map();
  const src = text.length > MAX_BYTES ? text.slice(0, MAX_BYTES) : text;
  let section: string | null = null;
  let i = 0;
  const n = src.length;
  const skipBlanks = () => {
    while (i < n && (src[i] === ' ' || src[i] === '\t')) i++;
  };
  const skipLine = () => {
    while (i < n && src[i] !== '\n') i++;
    i++;
  };
  while (i < n) {
    skipBlanks();
    const c = src[i];
    if (c === undefined) break;
    if (c === '\n' || c === '\r') {
      i++;
      continue;
    }
    if (c === '#' || c === ';') {
      skipLine();
      continue;
    }
    if (c === '[') {
      const header = readHeader(src, i + 1);
      section = header?.section ?? null;
      i = header ? header.end : i + 1;
      skipLine();
      continue;
    }
    const name = /^[A-Za-z][A-Za-z0-9-]*/.exec(src.slice(i, i + 256))?.[0];
    if (!name) {
      skipLine();
      continue;
    }
    i += name.length;
    skipBlanks();
    let value = 'true';
    if (src[i] === '=') {
      const read = readValue(src, i + 1);
      value = read.value;
      i = read.end;
    } else {
      skipLine();
    }
    if (section === null) continue;
    const key = `${section}.${name.toLowerCase()}`;
    const values = config.get(key);
    if (values) values.push(value);
    else config.set(key, [value]);
  }
  return config;
}

/** `[section]`, `[section "sub"]` or `[section.sub]`, from just after `[`; null when malformed. */
function readHeader(src: string, from: number): { section: string; end: number } | null {
  const name = /^[A-Za-z0-9.-]+/.exec(src.slice(from, from + 256))?.[0];
  if (!name) return null;
  let i = from + name.length;
  if (src[i] === ']') {
    const dot = name.indexOf('.');
    const section =
      dot === -1
        ? name.toLowerCase()
        : `${name.slice(0, dot).toLowerCase()}.${name.slice(dot + 1).toLowerCase()}`;
    return { section, end: i + 1 };
  }
  while (src[i] === ' ' || src[i] === '\t') i++;
  if (src[i] !== '"') return null;
  let sub = '';
  for (i++; i < src.length && src[i] !== '"'; i++) {
    if (src[i] === '\n') return null;
    if (src[i] === '\\' && i + 1 < src.length) i++;
    sub += src[i];
  }
  if (src[i] !== '"' || src[i + 1] !== ']') return null;
  return { section: `${name.toLowerCase()}.${sub}`, end: i + 2 };
}

/**
 * A value from just after `=` to the end of its (possibly continued) line, as git's parse_value
 * reads it: blanks outside quotes count only once the value has a character (so `"" a` is `a`),
 * each becomes one space, and they are written only before a character that follows them.
 */
function readValue(src: string, from: number): { value: string; end: number } {
  let out = '';
  let quoted = false;
  /** Blanks outside quotes seen since the last character, to write before the next one. */
  let spaces = 0;
  let i = from;
  for (; i < src.length; i++) {
    const c = src[i]!;
    if (c === '\n' || (c === '\r' && src[i + 1] === '\n')) break;
    if (!quoted && (c === ' ' || c === '\t')) {
      if (out.length > 0) spaces++;
      continue;
    }
    if (!quoted && (c === '#' || c === ';')) {
      while (i < src.length && src[i] !== '\n') i++;
      break;
    }
    out += ' '.repeat(spaces);
    spaces = 0;
    if (c === '"') {
      quoted = !quoted;
      continue;
    }
    if (c === '\\') {
      const next = src[i + 1];
      i++;
      if (next === '\n') continue;
      if (next === '\r' && src[i + 1] === '\n') {
        i++;
        continue;
      }
      out += next === 'n' ? '\n' : next === 't' ? '\t' : next === 'b' ? '\b' : (next ?? '');
      continue;
    }
    out += c;
  }
  return { value: out, end: i + 1 };
}

/** The remotes a config names, each with its first URL, in file order. */
export function remotesOf(config: GitConfig): Array<{ name: string; url: string }> {
  const out: Array<{ name: string; url: string }> = [];
  for (const [key, values] of config) {
    const match = /^remote\.(.+)\.url$/.exec(key);
    if (match && values[0]) out.push({ name: match[1]!, url: values[0] });
  }
  return out;
}
