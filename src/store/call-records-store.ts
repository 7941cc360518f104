/**
 * What the writes of one call did, recorded with each write in its own transaction, so that a call
 * sent again (a relay whose machine's server died before the answer reached it) is answered the
 * same and does nothing twice: each write already done returns what it returned the first time,
 * and only those not done yet run. Reads run again.
 *
 * A write is known by where it is in the code (its function's text) and how many times it ran
 * before in the call, so that a write that runs on one server and not on the other (a session's
 * bookkeeping) shifts no other.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import { newHash } from '../core/digest.js';
import { TextsByLength } from '../core/texts-by-length.js';
import { inList, type Sql } from './sql.js';

let v8: typeof import('node:v8') | undefined;
/** node:v8, loaded on first use: a hook process records no call, and loading it costs ~2 ms. */
const serializer = () => (v8 ??= createRequire(__filename)('node:v8') as typeof import('node:v8'));

/**
 * How long a call's records are kept at most: a client sends a call again within seconds of its
 * server's death (a wait, within its ~110 s); the records of an answered call go sooner.
 */
export const CALL_RECORDS_KEPT_MS = 60 * 60_000;

/**
 * The records of a client's answered calls go with its next recorded write once this many wait
 * (a statement of its own each time would cost every write ~13 µs for a few rows).
 */
export const FORGOTTEN_TOGETHER = 16;

/** A step found recorded by another server as this run of it was about to be: this run is undone. */
export class DoneElsewhere extends Error {
  constructor() {
    super('This step of the call was done meanwhile by another server; its record answers.');
  }
}

/** One call whose writes are recorded. */
export interface CallRecording {
  /** The call's key: the client's process and the request's id. */
  readonly call: string;
  /** The call was sent before: writes already done are answered from their records. */
  readonly again: boolean;
  /** How many times each write (by its place in the code) ran in this call so far. */
  readonly seen: Map<string, number>;
  /** Set once a write of the call was recorded. */
  wrote: boolean;
  /**
   * Whether the call's latest write was answered from its record (done when the call was sent
   * before): what is logged after it is not done again (app/log.ts says so).
   */
  fromRecord: boolean;
  /**
   * Set once the call is answered: what it started that goes on (a timer, a background task,
   * which keep its async context) writes unrecorded from then on.
   */
  over: boolean;
  /**
   * Keys of calls of the same client answered since (the connection's): their records go with
   * the transaction of the first recorded write once `FORGOTTEN_TOGETHER` wait.
   */
  readonly answered: string[];
}

const recording = new AsyncLocalStorage<{ call: CallRecording; inside: boolean }>();

/** How many answered calls' records wait for their client's next write to forget them, at most. */
export const ANSWERED_KEPT = 1_000;

/** A new call `call` whose writes are to be recorded; `answered`: its client's answered calls. */
export function newRecording(call: string, again: boolean, answered: string[] = []): CallRecording {
  return { call, again, seen: new Map(), wrote: false, fromRecord: false, over: false, answered };
}

/**
 * `call` is answered (its answer handed to the system): what it starts from here writes unrecorded,
 * and its records go with its client's next recorded write. A client that only asks and never
 * writes again: past `ANSWERED_KEPT`, the oldest are left to the purge.
 */
export function answeredCall(call: CallRecording): void {
  call.over = true;
  if (!call.wrote) return;
  call.answered.push(call.call);
  if (call.answered.length > ANSWERED_KEPT) call.answered.splice(0, call.answered.length - ANSWERED_KEPT);
}

/** Runs `fn` (one call) with the writes it makes recorded under `call`. */
export function recordingWrites<T>(call: CallRecording, fn: () => Promise<T>): Promise<T> {
  return recording.run({ call, inside: false }, fn);
}

/** The call whose writes the current write is one of, unless it is inside another write. */
export function recordedCall(): CallRecording | null {
  const open = recording.getStore();
  return open && !open.inside && !open.call.over ? open.call : null;
}

/**
 * Runs `fn` apart from the call it starts in, for what outlives the call or is not its own (an
 * agent run, a question sent to Telegram, a connection's own bookkeeping): its writes are not
 * recorded, so that a call sent again neither skips them, answered from a record, nor records them
 * after the call was answered.
 */
export function unrecorded<T>(fn: () => T): T {
  return recording.exit(fn);
}

/** Runs `fn` as a write of a recorded call: the writes it makes join its transaction unrecorded. */
export function insideWrite<T>(call: CallRecording, fn: () => Promise<T>): Promise<T> {
  return recording.run({ call, inside: true }, fn);
}

/** How deep a value is read as plain data at most; deeper, node:v8 keeps it. */
const PLAIN_DEPTH = 32;

/**
 * Whether JSON says `value` exactly, as node:v8 would: strings, finite numbers (not -0), booleans,
 * null, arrays with no holes and no other keys, and objects of `Object.prototype` (or none) whose
 * enumerable values are all such (no `undefined`, no `toJSON`, no class instance). Both read an
 * object's enumerable own string keys only, a getter's value as it is now.
 */
function plain(value: unknown, depth = 0): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object': {
      if (value === null) return true;
      if (depth >= PLAIN_DEPTH) return false;
      if (Array.isArray(value)) {
        if (Object.keys(value).length !== value.length) return false;
        for (const item of value) if (!plain(item, depth + 1)) return false;
        return true;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      for (const key in value) if (!plain((value as Record<string, unknown>)[key], depth + 1)) return false;
      return true;
    }
    default:
      return false;
  }
}

/**
 * A write's value as the text kept: `j:` and its JSON when JSON says it exactly (`plain`), `u:` for
 * none (a write that returns nothing), else node:v8's serialization in base64 (as every record was
 * kept before; base64 has no `:`). JSON is ~5× quicker, and nearly every write returns plain data.
 */
export function encodeValue(value: unknown): string {
  if (value === undefined) return 'u:';
  if (plain(value)) return `j:${JSON.stringify(value)}`;
  return serializer().serialize(value).toString('base64');
}

/** What `encodeValue` kept. */
export function decodeValue(text: string): unknown {
  if (text === 'u:') return undefined;
  if (text.startsWith('j:')) return JSON.parse(text.slice(2));
  return serializer().deserialize(Buffer.from(text, 'base64'));
}

/** Places known, by their function's text (a new string at every call). */
const places = new TextsByLength<string>(10_000);

/**
 * Words no minifier uses as a name (reserved in strict code): kept. Others it may choose, even
 * `of` or `async` (seen in the bundles): those are read as names, in every bundle alike.
 */
const KEYWORDS = new Set(
  (
    'await break case catch class const continue debugger default delete do else enum export ' +
    'extends false finally for function if implements import in instanceof interface let new null ' +
    'package private protected public return static super switch this throw true try typeof var ' +
    'void while with yield'
  ).split(' '),
);

const isNameStart = (c: string) => /[A-Za-z_$]/.test(c);
const isNamePart = (c: string) => /[\w$]/.test(c);
/**
 * After these (the last character that is not a space), a `/` begins a regular expression (not
 * after `+` or `-`: `i++/2` divides).
 */
const BEFORE_REGEX = new Set('(,=:[!&|?{};*%<>~^'.split('').concat(''));

/**
 * A function's text with the names of its variables and parameters left out (each `_`). Each
 * bundle names them its own way (the server's, a hub's, a hook's are minified apart:
 * `a.map(m=>m.id)` in one is `a.map(p=>p.id)` in another), so that one write's text differs from
 * one process to the next where the code is the same. Kept: strings, templates' text (their `${}`
 * read as code), regular expressions, numbers, keywords, properties (a name after one dot) and
 * objects' keys.
 * Comments are left out.
 */
export function placeText(text: string): string {
  let out = '';
  let i = 0;
  /** Open `${` of templates, each with the depth of braces inside it. */
  const templates: number[] = [];
  /** The last character written that is not a space. */
  let last = '';
  const copy = (to: number) => {
    out += text.slice(i, to);
    i = to;
  };
  /** From a template's `` ` `` or `}` to its end or its next `${`. */
  const templateText = () => {
    let j = i + 1;
    while (j < text.length && text[j] !== '`' && !(text[j] === '$' && text[j + 1] === '{'))
      j += text[j] === '\\' ? 2 : 1;
    if (text[j] === '`') copy(j + 1);
    else {
      copy(j + 2);
      templates.push(0);
    }
    last = '{';
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === '\\' ? 2 : 1;
      copy(j + 1);
      last = c;
    } else if (c === '`') templateText();
    else if (c === '}' && templates.length > 0 && templates[templates.length - 1] === 0) {
      templates.pop();
      templateText();
    } else if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 2;
    } else if (c === '/' && BEFORE_REGEX.has(last)) {
      let j = i + 1;
      let inClass = false;
      while (j < text.length && (inClass || text[j] !== '/')) {
        if (text[j] === '[') inClass = true;
        else if (text[j] === ']') inClass = false;
        j += text[j] === '\\' ? 2 : 1;
      }
      j++;
      while (j < text.length && isNamePart(text[j]!)) j++;
      copy(j);
      last = '/';
    } else if (isNameStart(c) && !(i > 0 && isNamePart(text[i - 1]!))) {
      let j = i + 1;
      while (j < text.length && isNamePart(text[j]!)) j++;
      const name = text.slice(i, j);
      const before = out.trimEnd();
      // A property, or an object's key (`{name:` or `,name:`, not a `?:`): no minifier renames them.
      const property =
        (before.endsWith('.') && !before.endsWith('..')) ||
        (/[{,]$/.test(before) && /^\s*:/.test(text.slice(j)));
      out += property || KEYWORDS.has(name) ? name : '_';
      i = j;
      // After `return`, `typeof` and the like, a `/` begins a regular expression.
      last = !property && KEYWORDS.has(name) && !/^(this|super|true|false|null)$/.test(name) ? '(' : 'a';
    } else {
      if (c === '{' && templates.length > 0) templates[templates.length - 1]! += 1;
      if (c === '}' && templates.length > 0) templates[templates.length - 1]! -= 1;
      copy(i + 1);
      if (!/\s/.test(c)) last = c;
    }
  }
  return out;
}

/**
 * A write's place in the code: a hash of its function's text without its own names (`placeText`),
 * the same in every bundle of the same code.
 */
function placeOf(fn: () => unknown): string {
  const text = fn.toString();
  let place = places.get(text);
  if (place === undefined) {
    place = newHash('sha1').update(placeText(text)).digest('base64url').slice(0, 12);
    places.set(text, place);
  }
  return place;
}

/** The step a write is of its call: its place in the code and how many times it ran before. */
export function stepOf(call: CallRecording, fn: () => unknown): string {
  const place = placeOf(fn);
  const n = (call.seen.get(place) ?? 0) + 1;
  call.seen.set(place, n);
  return `${place}#${n}`;
}

/** The step the next run of `fn` in the call would be, not counted as run. */
export function nextStepOf(call: CallRecording, fn: () => unknown): string {
  const place = placeOf(fn);
  return `${place}#${(call.seen.get(place) ?? 0) + 1}`;
}

/** The value a recorded step holds (absent: the step was not done). */
export type Recorded = { value: unknown } | undefined;

export class CallRecordsStore {
  constructor(private readonly sql: Sql) {}

  /** What the step `step` of `call` returned, if it was done. */
  async get(call: string, step: string): Promise<Recorded> {
    const row = await this.sql.get<{ value: string }>(
      'SELECT value FROM call_records WHERE call = ? AND step = ?',
      [call, step],
    );
    return row ? { value: decodeValue(row.value) } : undefined;
  }

  /**
   * Records what a step returned (inside its write's transaction): 'kept'; 'unkept' when the value
   * cannot be kept (it holds a function, say: sent again, that step runs again); 'taken' when the
   * step is recorded already, done by another server meanwhile (one replaced while it ran the
   * call, whose client sent it here again): this run must not stand.
   */
  async put(call: string, step: string, value: unknown, at: number): Promise<'kept' | 'unkept' | 'taken'> {
    let text: string;
    try {
      text = encodeValue(value);
    } catch {
      return 'unkept';
    }
    const { changes } = await this.sql.run(
      'INSERT INTO call_records (call, step, value, at) VALUES (?, ?, ?, ?) ON CONFLICT (call, step) DO NOTHING',
      [call, step, text, at],
    );
    return changes > 0 ? 'kept' : 'taken';
  }

  /** Forgets the records of calls whose answers reached their clients. */
  async forget(calls: string[]): Promise<number> {
    if (calls.length === 0) return 0;
    const list = inList(this.sql.dialect, calls);
    return (await this.sql.run(`DELETE FROM call_records WHERE call ${list.text}`, [list.param])).changes;
  }

  /** Forgets records older than `before` (calls of clients that went away before their answers). */
  async purge(before: number): Promise<number> {
    return (await this.sql.run('DELETE FROM call_records WHERE at < ?', [before])).changes;
  }
}
