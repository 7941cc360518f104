/**
 * What a claim holds: a path or glob, or one symbol of one file (`src/auth.ts#login`,
 * `app/models.py#User.save`). A file claim covers every symbol in it; a class covers its methods.
 */
import { type GlobBudget, glob, matchPath, overlap } from './glob.js';
import { languageOf } from './languages.js';
import { isGlob } from './paths.js';

export interface Target {
  /** The path or glob. */
  path: string;
  /** The qualified symbol, or null for the whole path. */
  symbol: string | null;
}

/** A qualified symbol name: segments joined by `.`, e.g. `User.save`, `Counter.#tick`, `crate::User.new`. */
const SYMBOL = /^[#~]?[\p{L}_$][\p{L}\p{N}_$:]*(?:\.[#~]?[\p{L}_$][\p{L}\p{N}_$:]*)*$/u;

/** The longest symbol name a target may hold. */
export const SYMBOL_CHARS = 200;

/**
 * A target's path and symbol. `path#Symbol` names a symbol where the path is one file of a language
 * whose symbols are read and the rest is a symbol's name; anything else is a path (a file may have
 * `#` in its name).
 */
export function splitTarget(pattern: string): Target {
  for (let at = pattern.indexOf('#'); at > 0; at = pattern.indexOf('#', at + 1)) {
    const path = pattern.slice(0, at);
    const symbol = pattern.slice(at + 1);
    if (isSymbolName(symbol) && !isGlob(path) && languageOf(path) !== null) return { path, symbol };
  }
  return { path: pattern, symbol: null };
}

export function isSymbolName(text: string): boolean {
  return text.length <= SYMBOL_CHARS && looksLikeSymbol(text);
}

/** Shaped like a qualified symbol name, whatever its length. */
export function looksLikeSymbol(text: string): boolean {
  return SYMBOL.test(text);
}

/** The path part of a target: what globs and the index of bases work on. */
export function pathOf(pattern: string): string {
  return splitTarget(pattern).path;
}

export function joinTarget(path: string, symbol: string | null): string {
  return symbol === null ? path : `${path}#${symbol}`;
}

/**
 * Whether two symbols (null: the whole file) can be the same code: equal, or one holds the other
 * (`User` holds `User.save`).
 */
export function symbolsMeet(a: string | null, b: string | null): boolean {
  if (a === null || b === null || a === b) return true;
  return b.startsWith(`${a}.`) || a.startsWith(`${b}.`);
}

/** The narrower of two symbols that meet (null when both are whole files). */
export function narrower(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return a.length >= b.length ? a : b;
}

/** Whether code in `symbol` (a symbol a hunk touches) lies within the held symbol `held`. */
export function within(symbol: string, held: string): boolean {
  return symbol === held || symbol.startsWith(`${held}.`);
}

/**
 * Where two targets meet, as a target (`src/auth.ts#login`), or null when they do not: their paths
 * overlap and their symbols can be the same code. Past `budget`, they are taken to meet.
 */
export function targetsMeet(a: string, b: string, budget?: GlobBudget): string | null {
  const ta = splitTarget(a);
  const tb = splitTarget(b);
  if (!symbolsMeet(ta.symbol, tb.symbol)) return null;
  let at: string | null;
  if (!isGlob(ta.path)) at = matchPath(glob(tb.path), ta.path, budget) ? ta.path : null;
  else if (!isGlob(tb.path)) at = matchPath(glob(ta.path), tb.path, budget) ? tb.path : null;
  else at = overlap(glob(ta.path), glob(tb.path), budget);
  return at === null ? null : joinTarget(at, narrower(ta.symbol, tb.symbol));
}
