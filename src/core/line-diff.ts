/**
 * Unified diffs of two texts, line by line: Myers' O((N+M)·D) algorithm on what remains after the
 * common head and tail, with a bound on D (the number of lines added and removed), so that the
 * cost stays near-linear in the input and a huge rewrite is reported as too large instead of being
 * computed. For showing what a command would change (`init --dry-run`) and what changed between
 * versions of a text.
 */

import { LIMITS } from './limits.js';

type Op = { kind: ' ' | '-' | '+'; line: string };

/** Lines added plus lines removed beyond which a diff is not computed (see `unifiedDiff`). */
export const MAX_DIFF_EDITS = LIMITS.diffEdits;

function lines(text: string): string[] {
  if (text === '') return [];
  const out = text.split('\n');
  if (out[out.length - 1] === '') out.pop();
  return out;
}

/** The edit script from `a` to `b`, or null when it needs more than `maxEdits` insertions and deletions. */
function diffOps(a: string[], b: string[], maxEdits: number): Op[] | null {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  const middle = myers(x, y, maxEdits);
  if (middle === null) return null;
  return [
    ...a.slice(0, head).map((line): Op => ({ kind: ' ', line })),
    ...middle,
    ...a.slice(a.length - tail).map((line): Op => ({ kind: ' ', line })),
  ];
}

/** Myers' greedy shortest edit script, keeping the frontier of every step to walk back. */
function myers(a: string[], b: string[], maxEdits: number): Op[] | null {
  const n = a.length;
  const m = b.length;
  if (n + m > 0 && (n === 0 || m === 0)) {
    if (n + m > maxEdits) return null;
    return [...a.map((line): Op => ({ kind: '-', line })), ...b.map((line): Op => ({ kind: '+', line }))];
  }
  const limit = Math.min(n + m, maxEdits);
  const offset = limit + 1;
  let v = new Int32Array(2 * limit + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= limit; d++) {
    // The frontier before step d, diagonals -d..d only: memory grows as D², not D × (N+M).
    trace.push(v.slice(offset - d, offset + d + 1));
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      let i =
        k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)
          ? v[offset + k + 1]! // down: an insertion
          : v[offset + k - 1]! + 1; // right: a deletion
      let j = i - k;
      while (i < n && j < m && a[i] === b[j]) {
        i++;
        j++;
      }
      next[offset + k] = i;
      if (i >= n && j >= m) return walkBack(a, b, trace, d, k);
    }
    v = next;
  }
  return null;
}

function walkBack(a: string[], b: string[], trace: Int32Array[], dEnd: number, kEnd: number): Op[] {
  const ops: Op[] = [];
  let i = a.length;
  let j = b.length;
  let k = kEnd;
  for (let d = dEnd; d > 0; d--) {
    const v = trace[d]!; // v[d + k] is diagonal k
    const down = k === -d || (k !== d && v[d + k - 1]! < v[d + k + 1]!);
    const prevK = down ? k + 1 : k - 1;
    const prevI = v[d + prevK]!;
    const prevJ = prevI - prevK;
    while (i > (down ? prevI : prevI + 1) && j > (down ? prevJ + 1 : prevJ)) {
      ops.push({ kind: ' ', line: a[--i]! });
      j--;
    }
    if (down) ops.push({ kind: '+', line: b[--j]! });
    else ops.push({ kind: '-', line: a[--i]! });
    k = prevK;
  }
  while (i > 0 && j > 0) {
    ops.push({ kind: ' ', line: a[--i]! });
    j--;
  }
  return ops.reverse();
}

/**
 * A unified diff (`---`/`+++` headers, `@@` hunks with `context` lines around changes); '' when
 * equal; null when the texts differ by more than `maxEdits` added and removed lines.
 */
export function unifiedDiff(
  before: string,
  after: string,
  fromName: string,
  toName: string,
  context = 3,
  maxEdits = MAX_DIFF_EDITS,
): string | null {
  const ops = diffOps(lines(before), lines(after), maxEdits);
  if (ops === null) return null;
  if (ops.every((o) => o.kind === ' ')) return '';
  const out = [`--- ${fromName}`, `+++ ${toName}`];
  let k = 0;
  while (k < ops.length) {
    while (k < ops.length && ops[k]!.kind === ' ') k++;
    if (k >= ops.length) break;
    let start = Math.max(0, k - context);
    let end = k;
    // Extend the hunk while changes are within 2 × context of each other.
    for (;;) {
      while (end < ops.length && ops[end]!.kind !== ' ') end++;
      let next = end;
      while (next < ops.length && ops[next]!.kind === ' ') next++;
      if (next < ops.length && next - end <= 2 * context) end = next;
      else break;
    }
    const stop = Math.min(ops.length, end + context);
    let aLine = 1;
    let bLine = 1;
    for (let x = 0; x < start; x++) {
      if (ops[x]!.kind !== '+') aLine++;
      if (ops[x]!.kind !== '-') bLine++;
    }
    const hunk = ops.slice(start, stop);
    const aCount = hunk.filter((o) => o.kind !== '+').length;
    const bCount = hunk.filter((o) => o.kind !== '-').length;
    out.push(
      `@@ -${aCount === 0 ? aLine - 1 : aLine},${aCount} +${bCount === 0 ? bLine - 1 : bLine},${bCount} @@`,
    );
    for (const o of hunk) out.push(`${o.kind}${o.line}`);
    k = stop;
    start = stop;
  }
  return `${out.join('\n')}\n`;
}

/** The lines one text replaces in another, as git's `-U0` hunks: `[start, count]` on each side. */
export interface LineHunk {
  base: [number, number];
  next: [number, number];
}

/**
 * The changed runs of lines from `before` to `after`, numbered as `git diff -U0` numbers them (a
 * count of 0 is the point after the start line); null past `maxEdits` added and removed lines.
 */
export function lineHunks(before: string, after: string, maxEdits = MAX_DIFF_EDITS): LineHunk[] | null {
  const ops = diffOps(lines(before), lines(after), maxEdits);
  if (ops === null) return null;
  const out: LineHunk[] = [];
  let aLine = 0;
  let bLine = 0;
  let k = 0;
  while (k < ops.length) {
    if (ops[k]!.kind === ' ') {
      aLine++;
      bLine++;
      k++;
      continue;
    }
    let removed = 0;
    let added = 0;
    while (k < ops.length && ops[k]!.kind !== ' ') {
      if (ops[k]!.kind === '-') removed++;
      else added++;
      k++;
    }
    out.push({
      base: [removed === 0 ? aLine : aLine + 1, removed],
      next: [added === 0 ? bLine : bLine + 1, added],
    });
    aLine += removed;
    bLine += added;
  }
  return out;
}

/** A line of a text as it reads against its previous version: kept, added (with its number), or removed. */
export interface NumberedLine {
  kind: ' ' | '+' | '-';
  text: string;
  /** Its number in the newer text; null for a removed line. */
  line: number | null;
}

/** `after` line by line, with what `before` had in between as removed lines; null past `maxEdits`. */
export function numberedLines(
  before: string,
  after: string,
  maxEdits = MAX_DIFF_EDITS,
): NumberedLine[] | null {
  const ops = diffOps(lines(before), lines(after), maxEdits);
  if (ops === null) return null;
  let n = 0;
  return ops.map((o) => ({ kind: o.kind, text: o.line, line: o.kind === '-' ? null : ++n }));
}
