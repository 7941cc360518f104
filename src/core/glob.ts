/**
 * Exact glob semantics for claims: compile a normalised pattern to a small automaton, match
 * concrete paths with it, and decide whether two patterns overlap (some path matches both),
 * returning the shortest witness path. The pattern's syntax is read in glob-syntax.ts.
 *
 * Syntax: `*` (any run of characters inside one segment), `?` (one character), `[abc]`, `[a-z]`,
 * `[!a]` / `[^a]`, `{a,b}` (alternatives, nestable, may span segments) and `**` as a whole segment
 * (zero or more segments). Everything else is literal, including `(`, `)`, `|`, `+`, `!`, `@`.
 * Dotfiles match like any other name. As in picomatch, a pattern also matches its own text taken
 * literally, so `app/[id]/page.tsx` covers the Next.js file of that name as well as `app/i/page.tsx`.
 *
 * Only valid normalised paths count as matches or witnesses: non-empty segments, none of them
 * `.` or `..`.
 */
import {
  ANY,
  type CharSet,
  charSetHas,
  classEnd,
  expandBraces,
  literal,
  parseClass,
  SLASH,
} from './glob-syntax.js';
import { LIMITS } from './limits.js';
import { isGlob } from './paths.js';

interface Edge {
  set: CharSet;
  to: number;
}

export interface CompiledGlob {
  readonly pattern: string;
  readonly edges: Edge[][];
  /** Epsilon closure of every state, including itself. */
  readonly closure: number[][];
  readonly start: number[];
  readonly accept: Uint8Array;
}

class Builder {
  edges: Edge[][] = [];
  eps: number[][] = [];

  state(): number {
    this.edges.push([]);
    this.eps.push([]);
    return this.edges.length - 1;
  }

  edge(from: number, set: CharSet, to: number): void {
    this.edges[from]!.push({ set, to });
  }

  epsilon(from: number, to: number): void {
    this.eps[from]!.push(to);
  }
}

/** Adds one brace-free alternative; returns its accepting state (or -1 when it can match nothing). */
function addAlternative(b: Builder, start: number, alternative: string, asLiteral: boolean): number {
  const segments = alternative.split('/').filter((s) => s !== '');
  if (segments.length === 0) return -1;
  // `noSlash`: nothing consumed yet, the next segment starts here; `slash`: a segment has ended,
  // the next one needs a `/` first.
  let noSlash: number | null = start;
  let slash: number | null = null;
  for (const segment of segments) {
    if (segment === '**' && !asLiteral) {
      const after = b.state();
      const inner = b.state();
      const rest = b.state();
      if (noSlash !== null) b.edge(noSlash, ANY, inner);
      if (slash !== null) b.epsilon(slash, after);
      b.edge(after, literal(SLASH), rest);
      b.edge(rest, ANY, inner);
      b.edge(inner, ANY, inner);
      b.epsilon(inner, after);
      slash = after;
      continue; // `noSlash` stays: the globstar may have consumed nothing
    }
    let s = b.state();
    if (noSlash !== null) b.epsilon(noSlash, s);
    if (slash !== null) b.edge(slash, literal(SLASH), s);
    for (let i = 0; i < segment.length; ) {
      const ch = segment[i]!;
      if (!asLiteral && ch === '*') {
        const loop = b.state();
        b.epsilon(s, loop);
        b.edge(loop, ANY, loop);
        s = loop;
        while (segment[i] === '*') i++;
        continue;
      }
      if (!asLiteral && ch === '?') {
        const t = b.state();
        b.edge(s, ANY, t);
        s = t;
        i++;
        continue;
      }
      if (!asLiteral && ch === '[') {
        const end = classEnd(segment, i);
        if (end !== -1) {
          const t = b.state();
          b.edge(s, parseClass(segment, i, end), t);
          s = t;
          i = end + 1;
          continue;
        }
      }
      const cp = segment.codePointAt(i)!;
      const t = b.state();
      b.edge(s, literal(cp), t);
      s = t;
      i += cp > 0xffff ? 2 : 1;
    }
    noSlash = null;
    slash = s;
  }
  return slash ?? -1;
}

function closures(eps: number[][]): number[][] {
  return eps.map((_, s) => {
    const seen = new Set<number>([s]);
    const stack = [s];
    while (stack.length > 0) {
      for (const t of eps[stack.pop()!]!) {
        if (!seen.has(t)) {
          seen.add(t);
          stack.push(t);
        }
      }
    }
    return [...seen];
  });
}

/** Compiles a normalised pattern (see `normalizePattern`). Throws `INVALID_INPUT` if it is too large. */
export function compileGlob(pattern: string): CompiledGlob {
  const b = new Builder();
  const start = b.state();
  const acceptStates: number[] = [];
  if (isGlob(pattern)) {
    for (const alternative of expandBraces(pattern)) {
      const a = addAlternative(b, start, alternative, false);
      if (a !== -1) acceptStates.push(a);
    }
  }
  const lit = addAlternative(b, start, pattern, true);
  if (lit !== -1) acceptStates.push(lit);
  const accept = new Uint8Array(b.edges.length);
  for (const a of acceptStates) accept[a] = 1;
  const closure = closures(b.eps);
  return { pattern, edges: b.edges, closure, start: closure[start]!, accept };
}

const cache = new Map<string, CompiledGlob>();
const CACHE_LIMIT = 20_000;

/** `compileGlob` with a bounded cache: claims are checked far more often than they change. */
export function glob(pattern: string): CompiledGlob {
  let compiled = cache.get(pattern);
  if (!compiled) {
    compiled = compileGlob(pattern);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(pattern, compiled);
  }
  return compiled;
}

/** Segment state while reading a path: nothing yet, ".", "..", or a proper name. */
const SEG_EMPTY = 0;
const SEG_DOT = 1;
const SEG_DOTDOT = 2;
const SEG_NAME = 3;
const DOT = 0x2e;

function nextSeg(seg: number, c: number): number {
  if (c === SLASH) return seg === SEG_NAME ? SEG_EMPTY : -1;
  if (c === DOT) return seg === SEG_EMPTY ? SEG_DOT : seg === SEG_DOT ? SEG_DOTDOT : SEG_NAME;
  return SEG_NAME;
}

/**
 * What one request may spend on glob work in all (`LIMITS.globStepsPerRequest`): a path's match
 * costs a step per state it holds at each character, an overlap search `SEARCH_STATE_STEPS` per
 * state it visits (about the time each takes). A request that compares many patterns with many
 * held ones (each pair bounded by `LIMITS.overlapStates`) would otherwise hold the server's one
 * thread for as long as the pairs take. Past it, what is left counts as meeting: never a wrong
 * "safe".
 */
export interface GlobBudget {
  steps: number;
}

export const globBudget = (): GlobBudget => ({ steps: LIMITS.globStepsPerRequest });

/** A state of an overlap search costs as much as this many steps of a match (measured: 1.5–5 µs against 45–75 ns). */
const SEARCH_STATE_STEPS = 32;

/** Whether a concrete, normalised path matches the pattern (past `budget`, it is taken to). */
export function matchPath(g: CompiledGlob, path: string, budget?: GlobBudget): boolean {
  if (!isGlob(g.pattern)) return g.pattern === path;
  if (budget && budget.steps <= 0) return true;
  let current = new Set<number>(g.start);
  let seg = SEG_EMPTY;
  for (const ch of path) {
    const c = ch.codePointAt(0)!;
    seg = nextSeg(seg, c);
    if (seg === -1) return false;
    if (budget) {
      budget.steps -= current.size;
      if (budget.steps <= 0) return true;
    }
    const next = new Set<number>();
    for (const s of current) {
      for (const e of g.edges[s]!) {
        if (charSetHas(e.set, c)) for (const t of g.closure[e.to]!) next.add(t);
      }
    }
    if (next.size === 0) return false;
    current = next;
  }
  if (seg !== SEG_NAME) return false;
  for (const s of current) if (g.accept[s]) return true;
  return false;
}

/** Characters worth trying: each boundary of every set, its neighbours, and a few plain ones. */
function representatives(a: CompiledGlob, b: CompiledGlob): number[] {
  const reps = new Set<number>([0x61, 0x78, 0x30, 0x5f, DOT, SLASH]);
  for (const g of [a, b]) {
    for (const list of g.edges) {
      for (const e of list) {
        for (const [lo, hi] of e.set.ranges) {
          for (const c of [lo - 1, lo, hi, hi + 1]) reps.add(c);
        }
      }
    }
  }
  return [...reps].filter((c) => c >= 0x20 && c !== 0x5c && c !== 0x7f && c <= 0x10ffff).sort(preferReadable);
}

function preferReadable(x: number, y: number): number {
  const rank = (c: number) => (c >= 0x61 && c <= 0x7a ? 0 : c >= 0x30 && c <= 0x39 ? 1 : c < 0x7f ? 2 : 3);
  return rank(x) - rank(y) || x - y;
}

/**
 * Whether some path matches both patterns; returns the shortest such path (a witness), or null.
 * A witness without dotfile names is preferred (`src/api/a.py` rather than `src/api/.py`). Past
 * `budget`, the first pattern stands as its own witness (and that answer is not remembered).
 */
export function overlap(a: CompiledGlob, b: CompiledGlob, budget?: GlobBudget): string | null {
  const key = `${a.pattern}\0${b.pattern}`;
  const known = overlaps.get(key);
  if (known !== undefined) return known;
  if (budget && budget.steps <= 0) return a.pattern;
  const spent = { out: false };
  const found = computeOverlap(a, b, budget, spent);
  if (spent.out) return found;
  if (overlaps.size >= CACHE_LIMIT) overlaps.clear();
  overlaps.set(key, found);
  return found;
}

/**
 * Answers of `overlap`, by pattern pair: a claim computes its overlaps once before it takes the
 * write lock, and finds them here inside it.
 */
const overlaps = new Map<string, string | null>();

/** `spent.out` is set when `budget` ran out: the answer is the safe one, not the search's. */
function computeOverlap(
  a: CompiledGlob,
  b: CompiledGlob,
  budget: GlobBudget | undefined,
  spent: { out: boolean },
): string | null {
  const aLiteral = !isGlob(a.pattern);
  const bLiteral = !isGlob(b.pattern);
  if (aLiteral && bLiteral) return a.pattern === b.pattern ? a.pattern : null;
  const matched = (g: CompiledGlob, path: string) => {
    const met = matchPath(g, path, budget);
    if (budget && budget.steps <= 0) spent.out = true;
    return met;
  };
  if (aLiteral) return matched(b, a.pattern) ? a.pattern : null;
  if (bLiteral) return matched(a, b.pattern) ? b.pattern : null;
  const reps = representatives(a, b);
  return search(a, b, reps, false, budget, spent) ?? search(a, b, reps, true, budget, spent);
}

/**
 * Breadth-first search over the product of the two automata (and the segment state). Within the
 * limits on patterns the product stays small; should the search visit `LIMITS.overlapStates`, or
 * what is left of `budget`, the answer is "overlapping" (the first pattern stands as its own
 * example): never a wrong "safe".
 */
function search(
  a: CompiledGlob,
  b: CompiledGlob,
  reps: number[],
  allowDotNames: boolean,
  budget: GlobBudget | undefined,
  spent: { out: boolean },
): string | null {
  const limit = budget
    ? Math.min(Math.ceil(budget.steps / SEARCH_STATE_STEPS), LIMITS.overlapStates)
    : LIMITS.overlapStates;
  const visited = searchStates(a, b, reps, allowDotNames, limit);
  if (budget) {
    budget.steps -= visited.states * SEARCH_STATE_STEPS;
    if (visited.cut && budget.steps <= 0) spent.out = true;
  }
  return visited.cut ? a.pattern : visited.found;
}

function searchStates(
  a: CompiledGlob,
  b: CompiledGlob,
  reps: number[],
  allowDotNames: boolean,
  limit: number,
): { found: string | null; states: number; cut: boolean } {
  const nb = b.edges.length;
  const key = (x: number, y: number, seg: number) => (x * nb + y) * 4 + seg;
  const parent = new Map<number, { from: number; c: number }>();
  const queue: number[] = [];
  for (const x of a.start) {
    for (const y of b.start) {
      const k = key(x, y, SEG_EMPTY);
      if (!parent.has(k)) {
        parent.set(k, { from: -1, c: 0 });
        queue.push(k);
      }
    }
  }
  for (let head = 0; head < queue.length; head++) {
    if (head >= limit) return { found: null, states: head, cut: true };
    const k = queue[head]!;
    const seg = k % 4;
    const xy = (k - seg) / 4;
    const y = xy % nb;
    const x = (xy - y) / nb;
    if (seg === SEG_NAME && a.accept[x] && b.accept[y])
      return { found: witness(parent, k), states: head + 1, cut: false };
    for (const c of reps) {
      const nextSegState = nextSeg(seg, c);
      if (nextSegState === -1 || (!allowDotNames && nextSegState === SEG_DOT)) continue;
      for (const ea of a.edges[x]!) {
        if (!charSetHas(ea.set, c)) continue;
        for (const eb of b.edges[y]!) {
          if (!charSetHas(eb.set, c)) continue;
          for (const x2 of a.closure[ea.to]!) {
            for (const y2 of b.closure[eb.to]!) {
              const k2 = key(x2, y2, nextSegState);
              if (!parent.has(k2)) {
                parent.set(k2, { from: k, c });
                queue.push(k2);
              }
            }
          }
        }
      }
    }
  }
  return { found: null, states: queue.length, cut: false };
}

function witness(parent: Map<number, { from: number; c: number }>, end: number): string {
  const chars: number[] = [];
  for (let k = end; ; ) {
    const p = parent.get(k)!;
    if (p.from === -1) break;
    chars.push(p.c);
    k = p.from;
  }
  return String.fromCodePoint(...chars.reverse());
}

/** Convenience over raw pattern strings (compiled through the cache). */
export function patternsOverlap(a: string, b: string, budget?: GlobBudget): string | null {
  return overlap(glob(a), glob(b), budget);
}
