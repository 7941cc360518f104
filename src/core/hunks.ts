/**
 * What a session changed in a file, as data: the hunks of `git diff -U0` against its base, each with
 * its line ranges on both sides, a digest of its new lines and a short excerpt. Read from git's own
 * output (`parseGitDiff`), so that two copies of a repository describe one change alike.
 */

import { hashHex } from './digest.js';
import type { InterfaceChange, Use } from './semantic.js';

/** Lines `[start, start + count)`, 1-based; a count of 0 is the point after line `start`. */
export type LineRange = [start: number, count: number];

export interface Hunk {
  /** The lines replaced in the base (count 0: an insertion after line `start`). */
  base: LineRange;
  /** The lines that replace them in the new text (count 0: a deletion, after line `start`). */
  next: LineRange;
  /** A digest of the removed and added lines: two sides that made the same change merge cleanly. */
  digest: string;
  /** The first removed and added lines, as `-`/`+` lines (bounded), for people and agents. */
  excerpt: string;
  /** The symbols this hunk touches (innermost first; qualified, e.g. `User.save`), when known. */
  symbols?: string[];
}

/** How a file was compared: by its lines, or (binary, too large, too many hunks) as a whole. */
export type ChangeLevel = 'lines' | 'file';

export interface FileChange {
  /** Relative to the repository root, `/`-separated. */
  path: string;
  /** The file's blob id in the base (40 or 64 hex digits), null when the base has no such file. */
  baseBlob: string | null;
  /** The new text's blob id, null when the file was deleted (or is untracked and unread). */
  newBlob: string | null;
  level: ChangeLevel;
  /**
   * Why the file is compared as a whole (`binary`, `large`, `hunks`, `unreadable`, `slow`: git's diff
   * ran past its time, `type`: it became a symbolic link or stopped being one), null by lines.
   */
  reason: string | null;
  hunks: Hunk[];
  /**
   * The path it had in the base, when git found it renamed (its hunks then compare its base there
   * with its new text here).
   */
  renamedFrom?: string;
  /** How its functions' interfaces changed from the base (parsed files only; see core/semantic.ts). */
  interface?: InterfaceChange[];
  /** The names its changed lines call or construct (parsed files only). */
  uses?: Use[];
}

/** Limits on what one file's change keeps: past them the file is compared as a whole. */
export const HUNK_LIMITS = {
  /** Hunks per file. */
  hunks: 400,
  /**
   * Hunks of one diff in all: the files past it are compared as a whole (1,000 files of 399 hunks
   * each took the server 2 s to read, and each comparison with another copy as long again).
   */
  total: 20_000,
  /** Lines of one excerpt, and characters per line. */
  excerptLines: 6,
  excerptChars: 120,
};

const ZERO_BLOB = /^0+$/;

/** The hunk being read of a file compared as a whole: never kept. */
const PASSED_OVER: Hunk = { base: [0, 0], next: [0, 0], digest: '', excerpt: '' };

/** A `diff --git` path: git quotes one with unusual characters in C style ("a/\303\251.ts"). */
function unquote(text: string): string {
  if (!text.startsWith('"')) return text;
  const bytes: number[] = [];
  const escapes: Record<string, number> = { n: 10, t: 9, r: 13, b: 8, f: 12, v: 11, a: 7, '"': 34, '\\': 92 };
  for (let i = 1; i < text.length - 1; i++) {
    const ch = text[i]!;
    if (ch !== '\\') {
      bytes.push(...Buffer.from(ch, 'utf8'));
      continue;
    }
    const next = text[++i]!;
    if (/[0-7]/.test(next)) {
      bytes.push(Number.parseInt(text.slice(i, i + 3), 8));
      i += 2;
    } else bytes.push(escapes[next] ?? next.charCodeAt(0));
  }
  return Buffer.from(bytes).toString('utf8');
}

/**
 * The path of a `diff --git a/P b/P` line, when both sides name one path (a renamed file's are read
 * from its `rename from`/`rename to` lines).
 */
function headerPath(line: string): string | null {
  const rest = line.slice('diff --git '.length);
  if (rest.startsWith('"')) {
    const end = rest.indexOf('" ', 1);
    return end === -1 ? null : unquote(rest.slice(0, end + 1)).slice(2);
  }
  if (rest.endsWith('"')) {
    const start = rest.lastIndexOf(' "');
    return start === -1 ? null : unquote(rest.slice(start + 1)).slice(2);
  }
  // "a/P b/P": both halves have the same length.
  const half = (rest.length - 1) / 2;
  return Number.isInteger(half) ? rest.slice(2, half) : null;
}

function range(start: string, count: string | undefined): LineRange {
  return [Number(start), count === undefined ? 1 : Number(count)];
}

function finishHunk(hunk: Hunk, removed: string[], added: string[]): void {
  let text = '';
  for (const l of removed) text += `-${l}\n`;
  for (const l of added) text += `+${l}\n`;
  hunk.digest = hashHex('sha1', text).slice(0, 16);
  const lines = [...removed.map((l) => `-${l}`), ...added.map((l) => `+${l}`)];
  const shown = lines
    .slice(0, HUNK_LIMITS.excerptLines)
    .map((l) => (l.length > HUNK_LIMITS.excerptChars ? `${l.slice(0, HUNK_LIMITS.excerptChars - 1)}…` : l));
  if (lines.length > HUNK_LIMITS.excerptLines)
    shown.push(`… ${lines.length - HUNK_LIMITS.excerptLines} more line(s)`);
  hunk.excerpt = shown.join('\n');
}

/** The hunks kept of one diff, counted across the pieces it is parsed in. */
export interface DiffCount {
  kept: number;
}

/**
 * `text` (a diff) in pieces of about `bytes` each, cut before a file's `diff --git` line (inside a
 * hunk such a line starts with its `+`, `-` or space): each piece parses on its own.
 */
export function diffPieces(text: string, bytes: number): string[] {
  const pieces: string[] = [];
  let at = 0;
  while (at < text.length) {
    const cut = text.indexOf('\ndiff --git ', at + bytes);
    const end = cut === -1 ? text.length : cut + 1;
    pieces.push(text.slice(at, end));
    at = end;
  }
  return pieces;
}

/**
 * `files` with each file that became a symbolic link, or stopped being one, as one change: git's
 * diff writes it as the path deleted and the path added, which would name the file twice. It keeps
 * the first's place, its base blob and the new one, compared as a whole (`type`): one side's lines
 * against the other's link target say nothing a merge could use.
 */
export function typeChangesJoined(files: FileChange[]): FileChange[] {
  const byPath = new Map<string, FileChange>();
  const joined: FileChange[] = [];
  for (const file of files) {
    const first = byPath.get(file.path);
    const pair = first ? [first, file] : [];
    const deleted = pair.find((f) => f.newBlob === null && f.baseBlob !== null && !f.renamedFrom);
    const added = pair.find((f) => f.baseBlob === null && f.newBlob !== null && !f.renamedFrom);
    if (!first || !deleted || !added || deleted === added) {
      if (!first) byPath.set(file.path, file);
      joined.push(file);
      continue;
    }
    Object.assign(first, {
      baseBlob: deleted.baseBlob,
      newBlob: added.newBlob,
      level: 'file',
      reason: 'type',
      hunks: [],
    } satisfies Partial<FileChange>);
  }
  return joined;
}

/**
 * The files and hunks of `git diff -U0 --full-index --find-renames` output (a renamed file under its
 * new path, with `renamedFrom`). A binary file, one with more than `HUNK_LIMITS.hunks` hunks, or
 * one that would take the diff's hunks past `HUNK_LIMITS.total` (`count`, for a diff parsed in
 * pieces: `diffPieces`), is kept at file level.
 */
export function parseGitDiff(text: string, count: DiffCount = { kept: 0 }): FileChange[] {
  const files: FileChange[] = [];
  let file: FileChange | null = null;
  let hunk: Hunk | null = null;
  let removed: string[] = [];
  let added: string[] = [];
  const closeHunk = () => {
    if (hunk && file && file.level === 'lines') {
      finishHunk(hunk, removed, added);
      file.hunks.push(hunk);
      count.kept++;
    }
    hunk = null;
    removed = [];
    added = [];
  };
  for (let at = 0; at <= text.length; ) {
    const sign = text.charCodeAt(at);
    let end = text.indexOf('\n', at);
    if (end === -1) end = text.length;
    // 45 '-', 43 '+': a hunk's lines. A file compared as a whole keeps none of them (not even as
    // strings: a diff past the limits is mostly those).
    if (hunk === PASSED_OVER && (sign === 45 || sign === 43)) {
      at = end + 1;
      continue;
    }
    const line = text.slice(at, end);
    at = end + 1;
    if (hunk) {
      if (sign === 45 || sign === 43) {
        (sign === 45 ? removed : added).push(line.slice(1));
        continue;
      }
      if (line.startsWith('\\')) continue; // "\ No newline at end of file"
      closeHunk();
    }
    if (line.startsWith('diff --git ')) {
      // A renamed file's paths come on its `rename` lines; any other without a path is passed over.
      file = {
        path: headerPath(line) ?? '',
        baseBlob: null,
        newBlob: null,
        level: 'lines',
        reason: null,
        hunks: [],
      };
      files.push(file);
      continue;
    }
    if (!file) continue;
    if (line.startsWith('rename from ')) {
      file.renamedFrom = unquote(line.slice('rename from '.length));
      continue;
    }
    if (line.startsWith('rename to ')) {
      file.path = unquote(line.slice('rename to '.length));
      continue;
    }
    const index = /^index ([0-9a-f]+)\.\.([0-9a-f]+)/.exec(line);
    if (index) {
      file.baseBlob = ZERO_BLOB.test(index[1]!) ? null : index[1]!;
      file.newBlob = ZERO_BLOB.test(index[2]!) ? null : index[2]!;
      continue;
    }
    if (line.startsWith('Binary files ') || line === 'GIT binary patch') {
      file.level = 'file';
      file.reason = 'binary';
      continue;
    }
    if (!line.startsWith('@@ ')) continue;
    if (
      file.level === 'lines' &&
      (file.hunks.length >= HUNK_LIMITS.hunks || count.kept >= HUNK_LIMITS.total)
    ) {
      file.level = 'file';
      file.reason = 'hunks';
      count.kept -= file.hunks.length;
      file.hunks = [];
    }
    // A file compared as a whole: its hunks are passed over, unread.
    if (file.level !== 'lines') {
      hunk = PASSED_OVER;
      continue;
    }
    const header = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (header) {
      hunk = {
        base: range(header[1]!, header[2]),
        next: range(header[3]!, header[4]),
        digest: '',
        excerpt: '',
      };
    }
  }
  closeHunk();
  return files.filter((f) => f.path !== '');
}

/** A file added whole (untracked, or absent from the base): one hunk of all its lines. */
export function addedFile(path: string, text: string, newBlob: string | null): FileChange {
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  const lines = body === '' ? [] : body.split('\n');
  const hunk: Hunk = {
    base: [0, 0],
    next: [lines.length === 0 ? 0 : 1, lines.length],
    digest: '',
    excerpt: '',
  };
  finishHunk(hunk, [], lines);
  return { path, baseBlob: null, newBlob, level: 'lines', reason: null, hunks: [hunk] };
}

/** Whether a line of the new text (1-based) is one of those `hunks` write. */
export function writtenBy(hunks: Array<Pick<Hunk, 'next'>>): (line: number) => boolean {
  const spans = hunks
    .filter((h) => h.next[1] > 0)
    .map((h) => [h.next[0], h.next[0] + h.next[1] - 1] as const);
  return (line) => spans.some(([a, b]) => line >= a && line <= b);
}
