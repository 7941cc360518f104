/**
 * The syntax of a claim's glob, below the automaton (glob.ts): sets of characters (`?`, `[a-z]`,
 * `[!a]`), brace alternatives (`{a,b}`, nestable), and the literal characters.
 */
import { invalidInput } from './errors.js';
import { LIMITS, limitKey } from './limits.js';

/** A set of characters: listed ranges, or everything but them (never `/`). */
export interface CharSet {
  negated: boolean;
  ranges: Array<[number, number]>;
}

export const SLASH = 0x2f;
export const ANY: CharSet = { negated: true, ranges: [] };

export function charSetHas(set: CharSet, c: number): boolean {
  if (c === SLASH) return set.ranges.length === 1 && !set.negated && set.ranges[0]![0] === SLASH;
  let inRanges = false;
  for (const [lo, hi] of set.ranges) {
    if (c >= lo && c <= hi) {
      inRanges = true;
      break;
    }
  }
  return set.negated ? !inRanges : inRanges;
}

export function literal(c: number): CharSet {
  return { negated: false, ranges: [[c, c]] };
}

/** Expands `{a,b}` groups that hold a top-level comma; braces without one stay literal. */
export function expandBraces(pattern: string): string[] {
  const results: string[] = [];
  const stack = [pattern];
  const max = LIMITS.braceAlternatives;
  while (stack.length > 0) {
    const current = stack.pop()!;
    const group = findBraceGroup(current);
    if (!group) {
      results.push(current);
      if (results.length > max) {
        throw invalidInput(
          `Pattern "${pattern}" expands to more than ${max} alternatives (limits.${limitKey('braceAlternatives')}).`,
          'Split it into several simpler patterns.',
        );
      }
      continue;
    }
    const head = current.slice(0, group.open);
    const tail = current.slice(group.close + 1);
    for (let i = group.parts.length - 1; i >= 0; i--) stack.push(head + group.parts[i] + tail);
    if (stack.length > max * 4) {
      throw invalidInput(
        `Pattern "${pattern}" has too many alternatives.`,
        'Split it into several simpler patterns.',
      );
    }
  }
  return results;
}

function findBraceGroup(s: string): { open: number; close: number; parts: string[] } | null {
  for (let open = s.indexOf('{'); open !== -1; open = s.indexOf('{', open + 1)) {
    let depth = 0;
    let last = open + 1;
    const parts: string[] = [];
    for (let i = open; i < s.length; i++) {
      const ch = s[i];
      if (ch === '[') {
        const end = classEnd(s, i);
        if (end !== -1) {
          i = end;
          continue;
        }
      }
      if (ch === '{') depth++;
      else if (ch === '}') {
        depth--;
        if (depth === 0) {
          if (parts.length === 0) break; // no comma: literal braces
          parts.push(s.slice(last, i));
          return { open, close: i, parts };
        }
      } else if (ch === ',' && depth === 1) {
        parts.push(s.slice(last, i));
        last = i + 1;
      }
    }
  }
  return null;
}

/** Index of the `]` closing a class that opens at `i`, or -1 when `[` is literal there. */
export function classEnd(s: string, i: number): number {
  let j = i + 1;
  if (s[j] === '!' || s[j] === '^') j++;
  if (s[j] === ']') j++; // a leading `]` is a member
  for (; j < s.length; j++) {
    const ch = s[j];
    if (ch === '/') return -1;
    if (ch === ']') return j;
  }
  return -1;
}

export function parseClass(s: string, i: number, end: number): CharSet {
  let j = i + 1;
  let negated = false;
  if (s[j] === '!' || s[j] === '^') {
    negated = true;
    j++;
  }
  const ranges: Array<[number, number]> = [];
  while (j < end) {
    const lo = s.codePointAt(j)!;
    const loLen = lo > 0xffff ? 2 : 1;
    if (s[j + loLen] === '-' && j + loLen + 1 < end) {
      const hi = s.codePointAt(j + loLen + 1)!;
      ranges.push(lo <= hi ? [lo, hi] : [hi, hi + 1]);
      j += loLen + 1 + (hi > 0xffff ? 2 : 1);
    } else {
      ranges.push([lo, lo]);
      j += loLen;
    }
  }
  return { negated, ranges };
}
