/** Predicted conflicts as tools, `status` and the dashboard give them. */
import { quoteBlock } from '../../core/fence.js';
import type { Hunk } from '../../core/hunks.js';
import type { PredictionLevel } from '../../core/merge-prediction.js';
import { describeChange, type SemanticConflict } from '../../core/semantic.js';

/** A hunk as an agent or a person reads it: its lines on both sides and a fenced excerpt. */
export interface HunkView {
  base: [number, number];
  next: [number, number];
  excerpt: string;
}

/** A conflict predicted between the caller's changes and another live session's. */
export interface PredictedConflict {
  session_id: string;
  session_name: string;
  level: PredictionLevel;
  file: string;
  symbols: string[];
  ours: HunkView[];
  theirs: HunkView[];
  /** Why a file could not be compared by lines (`file`, `unknown`). */
  why?: string;
  /** Both copies on this machine: what git's own merge of the file said. */
  git?: 'conflicts' | 'merges';
  /** For `semantic`: the definition one side changed and the other's use of it. */
  semantic?: SemanticView;
}

/** A semantic conflict as tools give it (the use's line quoted: another session's text). */
export interface SemanticView {
  symbol: string;
  defined_in: string;
  change: string;
  before: string;
  after: string | null;
  used_in: string;
  line: number;
  use: string;
  changed_by: 'you' | 'them';
}

export function semanticView(c: SemanticConflict): SemanticView {
  return {
    symbol: c.change.name,
    defined_in: c.definedIn,
    change: describeChange(c.change, c.changedBy === 'ours' ? 'you' : 'they'),
    before: c.change.before,
    after: c.change.after,
    used_in: c.usedIn,
    line: c.use.line,
    use: quoteBlock(c.use.text, 200, 1, '[… cut]'),
    changed_by: c.changedBy === 'ours' ? 'you' : 'them',
  };
}

/** A predicted conflict between two sessions, as `status` and the dashboard show it. */
export interface PairConflict {
  a: { session_id: string; session: string };
  b: { session_id: string; session: string };
  level: PredictionLevel;
  file: string;
  symbols: string[];
  /** Each side's lines of the base ("10–12 / 11"), or why they could not be compared. */
  lines: string;
  /** What each side changed there: its first meeting hunk's lines, quoted (empty when none). */
  excerpts: { a: string; b: string };
}

/** Base lines as a person reads them: "12–14", "12", or "after 12" for an insertion. */
export function describeLines([start, count]: [number, number]): string {
  if (count === 0) return `after ${start}`;
  return count === 1 ? String(start) : `${start}–${start + count - 1}`;
}

export function view(h: Hunk): HunkView {
  // Another session's lines: quoted, bounded, controls gone.
  return { base: h.base, next: h.next, excerpt: quoteBlock(h.excerpt, 800, 8, '[… cut]') };
}
