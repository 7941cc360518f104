/**
 * Codex CLI's config.toml, read with a real TOML parser (smol-toml) and edited as text, so that the
 * user's comments and layout stay: our server's table (`[mcp_servers.session-collab]`) replaced or
 * added, a project's `trust_level` set. Every edit is checked by parsing the result: it must hold
 * exactly what was meant, and everything else as it was; otherwise nothing is written.
 */
import { parse, TomlError } from 'smol-toml';
import { canonicalHash } from '../core/canonical-hash.js';
import { CollabError } from '../core/errors.js';

type Table = Record<string, unknown>;

const HINT = 'Fix it (or move it away) and run init again; nothing was written.';

/** A config.toml's data ({} for a missing or empty file); CONFIG_ERROR naming the line when it is not TOML. */
export function readCodexConfig(text: string | null, path: string): Table {
  if (text === null || text.trim() === '') return {};
  try {
    return parse(text) as Table;
  } catch (error) {
    const where = error instanceof TomlError ? ` at line ${error.line}, column ${error.column}` : '';
    const what = (error as Error).message.split('\n')[0];
    throw new CollabError('CONFIG_ERROR', `${path} is not valid TOML${where} (${what}).`, HINT);
  }
}

const table = (value: unknown): Table | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date)
    ? (value as Table)
    : undefined;

/** A TOML string (basic, escaped as JSON escapes it, which TOML reads the same). */
const tomlString = (s: string) => JSON.stringify(s);

/** A table header's key path as text, each key quoted when it is not bare. */
const keyPath = (keys: string[]) =>
  keys.map((k) => (/^[A-Za-z0-9_-]+$/.test(k) ? k : tomlString(k))).join('.');

/**
 * Whether a line is the header of the table at `keys` or of a table inside it, however its keys
 * are quoted or spaced (`[mcp_servers."session-collab"]`, `[ projects.'/x' ]`), a comment after it
 * allowed.
 */
function headerOf(line: string, keys: string[], inside: boolean): boolean {
  const match = /^\s*\[\s*([^[\]]+?)\s*\](\s*#.*)?\s*$/.exec(line);
  if (!match) return false;
  let path: string[];
  try {
    path = Object.keys(flatKeys(parse(`[${match[1]}]\n`) as Table));
  } catch {
    return false;
  }
  const name = JSON.stringify(keys);
  return path.some((p) => p === name || (inside && p.startsWith(`${name.slice(0, -1)},`)));
}

/** The key paths of the (nested) tables a parsed header declares, as JSON arrays. */
function flatKeys(data: Table, prefix: string[] = []): Record<string, true> {
  const out: Record<string, true> = {};
  for (const [key, value] of Object.entries(data)) {
    const path = [...prefix, key];
    const inner = table(value);
    if (inner && Object.keys(inner).length > 0) Object.assign(out, flatKeys(inner, path));
    else out[JSON.stringify(path)] = true;
  }
  return out;
}

const isHeader = (line: string) => /^\s*\[/.test(line);

const isCommentOrBlank = (line: string) => /^\s*(#.*)?$/.test(line);

/**
 * The text without the table at `keys` and its sub-tables (their headers and lines). Comments right
 * above the next table are that table's, and stay.
 */
function withoutTable(text: string, keys: string[]): string {
  const lines = text.split('\n');
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (headerOf(lines[i]!, keys, true)) {
      let end = i + 1;
      while (end < lines.length && !isHeader(lines[end]!)) end++;
      let keep = end;
      if (end < lines.length) while (keep > i + 1 && isCommentOrBlank(lines[keep - 1]!)) keep--;
      kept.push(...lines.slice(keep, end));
      i = end - 1;
      continue;
    }
    kept.push(lines[i]!);
  }
  return kept.join('\n');
}

/** Whether a line sets `key` (bare or quoted). */
const setsKey = (line: string, key: string) => new RegExp(`^\\s*(${key}|"${key}"|'${key}')\\s*=`).test(line);

/**
 * The text with the table at `keys` holding `values` (each a TOML value as written; null: taken
 * out), each set where the table has it, a new one after the header, the table's other lines and
 * sub-tables as they were; a new table at the end where there is none. Checked (`checked`).
 */
function setKeys(
  text: string | null,
  keys: string[],
  values: Record<string, string | null>,
  path: string,
): string {
  const before = readCodexConfig(text, path);
  const current = table(valueAt(before, keys)) ?? {};
  const set = Object.entries(values).filter((e): e is [string, string] => e[1] !== null);
  const expected: Table = {
    ...Object.fromEntries(Object.entries(current).filter(([k]) => !(k in values))),
    ...(parse(set.map(([k, v]) => `${k} = ${v}`).join('\n')) as Table),
  };
  // In the file's own line ends: a file written with CRLF stays so.
  const cr = (text ?? '').includes('\r\n') ? '\r' : '';
  const lines = (text ?? '').split('\n');
  const at = lines.findIndex((line) => headerOf(line.replace(/\r$/, ''), keys, false));
  if (at === -1) {
    const rest = (text ?? '').replace(/(\r?\n)*$/, '');
    const block = `[${keyPath(keys)}]${cr}\n${set.map(([k, v]) => `${k} = ${v}${cr}\n`).join('')}`;
    return checked(rest === '' ? block : `${rest}${cr}\n${cr}\n${block}`, before, keys, expected, path);
  }
  let end = at + 1;
  while (end < lines.length && !isHeader(lines[end]!)) end++;
  const body = lines.slice(at + 1, end);
  let added = 0;
  for (const [key, value] of Object.entries(values)) {
    const line = body.findIndex((l) => setsKey(l, key));
    if (value === null) {
      if (line !== -1) body.splice(line, 1);
    } else if (line !== -1) body[line] = `${key} = ${value}${cr}`;
    else body.splice(added++, 0, `${key} = ${value}${cr}`);
  }
  lines.splice(at + 1, end - at - 1, ...body);
  return checked(lines.join('\n'), before, keys, expected, path);
}

/**
 * Parsed data with the value at `keys` taken out, and the tables on its path left empty by that
 * (for comparing the rest: an empty `[mcp_servers]` and none say the same).
 */
function without(data: Table, keys: string[]): Table {
  const copy = structuredClone(data);
  const path: Table[] = [copy];
  for (const key of keys.slice(0, -1)) {
    const next = table(path.at(-1)![key]);
    if (!next) return copy;
    path.push(next);
  }
  delete path.at(-1)![keys.at(-1)!];
  for (let depth = path.length - 1; depth > 0; depth--)
    if (Object.keys(path[depth]!).length === 0) delete path[depth - 1]![keys[depth - 1]!];
  return copy;
}

function valueAt(data: Table, keys: string[]): unknown {
  let at: unknown = data;
  for (const key of keys) at = table(at)?.[key];
  return at;
}

/**
 * The edited text after checking it: the value at `keys` is `expected`, and everything else is as
 * in `before`. An edit a line-wise change cannot make (the table written as dotted keys or an
 * inline table) is refused, naming what to change by hand.
 */
function checked(after: string, before: Table, keys: string[], expected: unknown, path: string): string {
  let data: Table;
  try {
    data = parse(after) as Table;
  } catch {
    data = {};
  }
  if (
    canonicalHash(valueAt(data, keys) ?? null) !== canonicalHash(expected) ||
    canonicalHash(without(data, keys)) !== canonicalHash(without(before, keys))
  )
    throw new CollabError(
      'CONFIG_ERROR',
      `${path} defines ${keyPath(keys)} in a way init cannot edit in place (as dotted keys or an inline table).`,
      `Write it as a table of its own ([${keyPath(keys)}]) or remove it, and run init again; nothing was written.`,
    );
  return after;
}

const SERVER = ['mcp_servers', 'session-collab'];

/** Our server's table in a Codex config, or undefined (a config that is not TOML has none). */
function ourServer(text: string | null): Table | undefined {
  try {
    return table(valueAt(readCodexConfig(text, 'config.toml'), SERVER));
  } catch {
    return undefined;
  }
}

/** How a Codex config reaches our server: 'http' (a `url`), 'stdio' (a `command`), or null. */
export function codexTransport(text: string | null): 'http' | 'stdio' | null {
  const server = ourServer(text);
  if (!server) return null;
  return server.url !== undefined ? 'http' : server.command !== undefined ? 'stdio' : null;
}

/** Whether a Codex config has our server's table. */
export function hasCodexServer(text: string | null): boolean {
  return ourServer(text) !== undefined;
}

/** Our table for a hub over HTTP. */
export function codexHttpTable(url: string, tokenEnv: string | null): string {
  return `[${keyPath(SERVER)}]\nurl = ${tomlString(url)}\n${tokenEnv ? `bearer_token_env_var = ${tomlString(tokenEnv)}\n` : ''}env_http_headers = { "X-Collab-Project" = "PWD" }\n`;
}

/**
 * The environment variables our server reads that Codex would not pass it: Codex gives a server it
 * starts only a short list of its own (PATH, HOME…) plus the names in `env_vars`. Without them a
 * user's `SESSION_COLLAB_HOME` or team database (`SESSION_COLLAB_DATABASE_URL`) would reach Codex's
 * hooks but not its server, and the two would work in different databases.
 */
export const CODEX_SERVER_ENV = [
  'SESSION_COLLAB_HOME',
  'SESSION_COLLAB_DATABASE_URL',
  'SESSION_COLLAB_SESSION_NAME',
  'SESSION_COLLAB_TELEGRAM_BOT_TOKEN',
  'SESSION_COLLAB_TELEGRAM_ALLOWED_USER_IDS',
  'SESSION_COLLAB_TELEGRAM_API_ROOT',
  'AI_COLLAB_STORAGE_DIR',
  'AI_COLLAB_AUTO_APPROVE',
  'XDG_CONFIG_HOME',
] as const;

/** Of `CODEX_SERVER_ENV`, the names our stdio server's table does not pass (none for a table over HTTP). */
export function codexEnvMissing(text: string | null): string[] {
  const server = ourServer(text);
  if (!server || server.command === undefined) return [];
  const named = Array.isArray(server.env_vars) ? server.env_vars.filter((v) => typeof v === 'string') : [];
  return CODEX_SERVER_ENV.filter((name) => !named.includes(name));
}

/** Our table for a server Codex starts itself. */
export function codexStdioTable(command: string, args: string[]): string {
  return `[${keyPath(SERVER)}]\ncommand = ${tomlString(command)}\nargs = [${args.map(tomlString).join(', ')}]\nenv_vars = [${CODEX_SERVER_ENV.map(tomlString).join(', ')}]\n`;
}

/** Our server's keys in either of its forms (stdio or HTTP): what init sets or takes out. */
const SERVER_KEYS = ['command', 'args', 'env_vars', 'url', 'bearer_token_env_var', 'env_http_headers'];

/**
 * Adds (or updates) our server's table in a Codex config.toml: the keys of `block` (one of our
 * tables, as `codexStdioTable` or `codexHttpTable` write it) set, those of the other form taken
 * out; keys, comments and sub-tables the user added to it, and the rest of the file, as written.
 */
export function mergeCodexToml(text: string | null, block: string, path = '.codex/config.toml'): string {
  const values: Record<string, string | null> = Object.fromEntries(SERVER_KEYS.map((k) => [k, null]));
  for (const line of block.split('\n').slice(1)) {
    const match = /^([A-Za-z0-9_]+) = (.*)$/.exec(line);
    if (match) values[match[1]!] = match[2]!;
  }
  return setKeys(text, SERVER, values, path);
}

/** A Codex config.toml without our server's table, the rest as written. */
export function removeCodexServer(text: string): string {
  const rest = withoutTable(text, SERVER);
  return rest.trim() === '' ? '' : rest.replace(/\n*$/, '\n');
}

/**
 * Whether Codex's config (its text, or null) trusts a project, read as Codex reads it: the first of
 * `folders` (the folder itself, then the repository's root for trust) that has a `[projects]` entry
 * decides, its `trust_level` however the TOML spells it. `same` tells two spellings of one folder
 * apart from two folders (Codex compares canonical paths).
 */
export function codexTrusts(
  text: string | null,
  folders: string | string[],
  same: (a: string, b: string) => boolean = (a, b) => a === b,
): boolean {
  let projects: Record<string, unknown>;
  try {
    projects = table(valueAt(readCodexConfig(text, 'config.toml'), ['projects'])) ?? {};
  } catch {
    return false;
  }
  for (const folder of typeof folders === 'string' ? [folders] : folders) {
    const key = Object.keys(projects).find((k) => same(k, folder));
    if (key !== undefined) return table(projects[key])?.trust_level === 'trusted';
  }
  return false;
}

/**
 * Codex's config with `folder` trusted (as it is when it already is): `trust_level = "trusted"` set
 * in its `[projects."<folder>"]` table where that table is (its other lines kept), or a new table.
 */
export function codexTrust(text: string | null, folder: string, path = 'config.toml'): string {
  if (codexTrusts(text, folder)) return text ?? '';
  return setKeys(text, ['projects', folder], { trust_level: '"trusted"' }, path);
}

/**
 * Codex's config with each hook of `hooks` trusted: `[hooks.state."<key>"] trusted_hash = "…"`
 * (Codex runs a project's hook only when the hash it computes for it is the one trusted here).
 */
export function codexTrustHooks(
  text: string | null,
  hooks: Array<{ key: string; hash: string }>,
  path = 'config.toml',
): string {
  let out = text;
  for (const { key, hash } of hooks) {
    const keys = ['hooks', 'state', key];
    if (valueAt(readCodexConfig(out, path), [...keys, 'trusted_hash']) === hash) continue;
    out = setKeys(out, keys, { trusted_hash: tomlString(hash) }, path);
  }
  return out ?? '';
}
