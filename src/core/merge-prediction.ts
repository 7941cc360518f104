/**
 * What merging two sessions' changes of one file will do, predicted from their hunks alone (no
 * shared git needed, so it works between machines):
 * - `textual`: git's three-way merge conflicts — two changes overlap or touch in the base (the rule
 *   of git's xdiff merge: changes `[i1, i1+n1)` and `[i2, i2+n2)` merge only when one ends strictly
 *   before the other starts, or when both are the same change);
 * - `symbol`: git merges, but both changed one function, method or class: a person should look;
 * - `file`: the file is compared as a whole (binary, or too many hunks) and both changed it;
 * - `unknown`: the two copies started from different versions of the file, and no mapping between
 *   them was given: never a silent "no conflict".
 * Different symbols of one file, or distant lines of a file without symbols, predict nothing.
 */

import { word } from './fence.js';
import type { FileChange, Hunk } from './hunks.js';
import { describeChange, type SemanticConflict, semanticConflicts } from './semantic.js';

export type PredictionLevel = 'textual' | 'symbol' | 'file' | 'unknown' | 'semantic';

export interface FilePrediction {
  level: PredictionLevel;
  path: string;
  /** The symbols both sides changed (for `symbol`; for `textual`, those of either side's meeting hunks). */
  symbols: string[];
  /** The hunks of each side that meet (for `textual` and `symbol`), at most a few. */
  ours: Hunk[];
  theirs: Hunk[];
  /** A sentence for `file` and `unknown` (and a rename, or a `semantic` one). */
  why: string | null;
  /** For `semantic`: the definition whose interface one side changed, and the other side's use of it. */
  semantic?: SemanticConflict;
}

/** Meeting hunks kept per side in a prediction. */
const SHOWN_HUNKS = 3;

/** A hunk's base lines as git's merge script holds them: 0-based, `[start, end)`. */
function span(h: Hunk): [number, number] {
  const [start, count] = h.base;
  return count === 0 ? [start, start] : [start - 1, start - 1 + count];
}

function sameChange(a: Hunk, b: Hunk): boolean {
  return (
    a.base[0] === b.base[0] && a.base[1] === b.base[1] && a.next[1] === b.next[1] && a.digest === b.digest
  );
}

/**
 * The pairs of hunks that git would see as one conflict: a sweep over both lists in base order
 * (each is sorted, as git prints them), linear in their lengths.
 */
export function meetingHunks(ours: Hunk[], theirs: Hunk[]): Array<[Hunk, Hunk]> {
  const out: Array<[Hunk, Hunk]> = [];
  let i = 0;
  let j = 0;
  while (i < ours.length && j < theirs.length) {
    const a = ours[i]!;
    const b = theirs[j]!;
    const [a0, a1] = span(a);
    const [b0, b1] = span(b);
    if (a1 < b0) {
      i++;
      continue;
    }
    if (b1 < a0) {
      j++;
      continue;
    }
    if (!sameChange(a, b)) out.push([a, b]);
    if (a1 >= b1) j++;
    if (b1 >= a1) i++;
  }
  return out;
}

function symbolsOf(hunks: Hunk[]): Set<string> {
  const out = new Set<string>();
  for (const h of hunks) for (const s of h.symbols ?? []) out.add(s);
  return out;
}

function unique(hunks: Hunk[]): Hunk[] {
  return [...new Set(hunks)].slice(0, SHOWN_HUNKS);
}

/** Why a file is compared as a whole, in words (`FileChange.reason`). */
function wholeBecause(reason: string | null): string {
  if (reason === 'binary') return 'binary';
  if (reason === 'unreadable') return 'it could not be read';
  if (reason === 'slow') return "git's comparison by lines ran past its time";
  if (reason === 'type') return 'it became a symbolic link, or stopped being one';
  return 'too many changes to compare by lines';
}

/** A file whose diff was not read (too large, or past its time): its blobs are not known. */
const unread = (f: FileChange) => f.level === 'file' && f.baseBlob === null && f.newBlob === null;

/** The prediction for one file both sessions changed, or null when their changes merge unnoticed. */
export function predictFile(ours: FileChange, theirs: FileChange): FilePrediction | null {
  const path = ours.path;
  const none = { symbols: [], ours: [], theirs: [] };
  if (ours.newBlob !== null && ours.newBlob === theirs.newBlob) return null; // the same result
  if (ours.baseBlob !== theirs.baseBlob && !unread(ours) && !unread(theirs)) {
    return {
      level: 'unknown',
      path,
      ...none,
      why: 'the two copies started from different versions of this file (fetch or rebase to compare them)',
    };
  }
  if (ours.level === 'file' || theirs.level === 'file') {
    const reason = ours.reason ?? theirs.reason;
    return {
      level: 'file',
      path,
      ...none,
      why: `both changed this file, compared as a whole (${wholeBecause(reason)})`,
    };
  }
  const meeting = meetingHunks(ours.hunks, theirs.hunks);
  if (meeting.length > 0) {
    const mine = meeting.map(([a]) => a);
    const other = meeting.map(([, b]) => b);
    return {
      level: 'textual',
      path,
      // Every function, method or class either side's meeting lines are in.
      symbols: [...new Set([...symbolsOf(mine), ...symbolsOf(other)])],
      ours: unique(mine),
      theirs: unique(other),
      why: null,
    };
  }
  const theirSymbols = symbolsOf(theirs.hunks);
  const shared = [...symbolsOf(ours.hunks)].filter((s) => theirSymbols.has(s));
  if (shared.length === 0) return null;
  const touches = (h: Hunk) => (h.symbols ?? []).some((s) => shared.includes(s));
  return {
    level: 'symbol',
    path,
    symbols: shared,
    ours: unique(ours.hunks.filter(touches)),
    theirs: unique(theirs.hunks.filter(touches)),
    why: null,
  };
}

/** The path a change started from: its base path (a renamed file's old one). */
const origin = (f: FileChange) => f.renamedFrom ?? f.path;

/**
 * One file of the base that both changed, one side (or both) having renamed it, as git's merge
 * follows renames: renamed to two different paths, or renamed by one and deleted by the other, git
 * stops; renamed by one and edited by the other, the edit is carried to the new path and the two
 * merge like any two changes of one file (their hunks both count from the base file).
 */
function predictRenamed(ours: FileChange, theirs: FileChange): FilePrediction | null {
  const from = origin(ours);
  const none = { symbols: [], ours: [], theirs: [] };
  const renamed = ours.renamedFrom !== undefined ? ours : theirs;
  if (ours.renamedFrom !== undefined && theirs.renamedFrom !== undefined && ours.path !== theirs.path)
    return {
      level: 'textual',
      path: ours.path,
      ...none,
      why: `both renamed ${word(from, 200)}: one to ${word(ours.path, 200)}, the other to ${word(theirs.path, 200)}`,
    };
  const other = renamed === ours ? theirs : ours;
  if (other.renamedFrom === undefined && other.newBlob === null)
    return {
      level: 'textual',
      path: renamed.path,
      ...none,
      why: `${word(from, 200)} was renamed to ${word(renamed.path, 200)} by one side and deleted by the other`,
    };
  const p = predictFile({ ...ours, path: renamed.path }, { ...theirs, path: renamed.path });
  if (!p) return null;
  return p.why === null && p.level !== 'unknown' && p.level !== 'file'
    ? {
        ...p,
        why: `${word(from, 200)} was renamed to ${word(renamed.path, 200)} by one side; the other's changes go with it`,
      }
    : p;
}

/**
 * Predictions for every file of the base both change sets touch (followed through renames, as
 * git's merge follows them), files in path order.
 */
export function predictChanges(ours: FileChange[], theirs: FileChange[]): FilePrediction[] {
  const byPath = new Map(theirs.map((f) => [f.path, f]));
  const byOrigin = new Map(theirs.map((f) => [origin(f), f]));
  const out: FilePrediction[] = [];
  for (const mine of [...ours].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    // The same base file, whatever each calls it now: renamed by either side, or by neither.
    const other =
      byOrigin.get(origin(mine)) ?? (mine.renamedFrom === undefined ? undefined : byPath.get(mine.path));
    if (!other) continue;
    const renamed = mine.renamedFrom !== undefined || other.renamedFrom !== undefined;
    const p =
      renamed && origin(mine) === origin(other) ? predictRenamed(mine, other) : predictFile(mine, other);
    if (p) out.push(p);
  }
  return out;
}

/**
 * Lines of a copy's current text (`[start, count]`, as hunks number them) carried back to its base
 * through the copy's own hunks (`ours`, sorted): lines it did not change move by what its changes
 * above them added or removed; lines it wrote stand for the base lines they replaced.
 */
export function toBase(range: [number, number], ours: Array<Pick<Hunk, 'base' | 'next'>>): [number, number] {
  const point = (line: number, side: 'start' | 'end'): number => {
    let shift = 0;
    for (const h of ours) {
      const [start, count] = h.next;
      const first = count === 0 ? start + 1 : start;
      const last = start + count - 1;
      if (count > 0 && line >= first && line <= last) {
        // Inside what the copy wrote: the base lines it replaced (or the point where it inserted).
        const [bs, bc] = h.base;
        return side === 'start' ? (bc === 0 ? bs + 1 : bs) : bc === 0 ? bs : bs + bc - 1;
      }
      if (line <= last || (count === 0 && line <= start)) break;
      shift += h.base[1] - count;
    }
    return line + shift;
  };
  const [start, count] = range;
  if (count === 0) {
    // A point after line `start`: after the base line it follows.
    return [point(start, 'end'), 0];
  }
  const first = point(start, 'start');
  const last = point(start + count - 1, 'end');
  return last < first ? [first - 1, 0] : [first, last - first + 1];
}

/**
 * The conflicts git cannot see between two change sets (core/semantic.ts), one prediction each: at
 * the file where the use is, naming the definition; `why` says who changed what and where the
 * other uses it, from `ours`'s side.
 */
export function semanticPredictions(ours: FileChange[], theirs: FileChange[]): FilePrediction[] {
  return semanticConflicts(ours, theirs).map((c) => {
    const use = `${c.usedIn}:${c.use.line}`;
    return {
      level: 'semantic' as const,
      path: c.usedIn,
      symbols: [c.change.name],
      ours: [],
      theirs: [],
      why:
        c.changedBy === 'ours'
          ? `${describeChange(c.change, 'you')} (${c.definedIn}); their uncommitted code uses it at ${use}`
          : `${describeChange(c.change, 'they')} (${c.definedIn}); your uncommitted code uses it at ${use}`,
      semantic: c,
    };
  });
}
