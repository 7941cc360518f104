/**
 * Claims that hold part of a file: one symbol of it (`src/auth.ts#login`), or a file a session holds
 * because it edited it (what it holds is what it changed: its recorded lines and symbols). Before an
 * edit of such a file, whether the edit reaches what they hold — the lines it writes, their symbols
 * read by the parser (loaded here only, and only for such a file), against the held symbol or the
 * holder's changes by git's merge rule. What it does not reach lets the edit through, with a note.
 */
import type { AppContext } from '../../app/context.js';
import { splitTarget, within } from '../../core/claim-target.js';
import { inline } from '../../core/fence.js';
import type { FileChange } from '../../core/hunks.js';
import { languageOf } from '../../core/languages.js';
import { predictFile } from '../../core/merge-prediction.js';
import { markSymbols, type SymbolSpan, symbolSpans } from '../../integrations/symbols.js';
import type { CheckConflict } from '../claims/claim-types.js';
import type { ProposedEdit } from './edit-merge-check.js';

/** Whether a conflict holds only part of its file (a symbol, or an edit's changes). */
export function holdsPart(c: CheckConflict): boolean {
  return c.held !== undefined && (splitTarget(c.held).symbol !== null || c.source === 'edit');
}

/**
 * The conflicts among `conflicts` (all of them on `edit.path`) that the edit reaches, and a note for
 * each it does not.
 */
export async function reachedBy(
  app: AppContext,
  edit: ProposedEdit,
  conflicts: CheckConflict[],
): Promise<{ reached: CheckConflict[]; notes: string[] }> {
  const reached: CheckConflict[] = [];
  const notes: string[] = [];
  // Each text parsed at most once, and only when a conflict needs its symbols.
  let read: { symbols: string[] | null } | null = null;
  const touched = () => {
    read ??= { symbols: touchedSymbols(edit) };
    return read.symbols;
  };
  let after: { spans: SymbolSpan[] | null } | null = null;
  const proposedSpans = () => {
    after ??= { spans: symbolSpans(edit.path, edit.proposed) };
    return after.spans;
  };
  for (const c of conflicts) {
    if (!holdsPart(c)) {
      reached.push(c);
      continue;
    }
    const symbol = splitTarget(c.held!).symbol;
    const who = `"${inline(c.session, 60)}" (session_id ${c.session_id})`;
    if (symbol !== null) {
      if (reachesSymbol(edit, symbol, touched(), proposedSpans())) reached.push(c);
      else notes.push(`${inline(c.held!, 300)} is held by ${who}; this edit changes other code of the file.`);
      continue;
    }
    if (await apartFromEdits(app, edit, c, touched))
      notes.push(
        `${inline(edit.path, 300)} is being edited by ${who}; this edit is apart from its changes (other lines and symbols).`,
      );
    else reached.push(c);
  }
  return { reached, notes };
}

/**
 * Against a claim that an edit of the holder made: whether this edit stays apart from the holder's
 * recorded changes (no textual conflict, no symbol both change). Not when those changes are not
 * known: not recorded, or edits of the holder not read yet.
 */
async function apartFromEdits(
  app: AppContext,
  edit: ProposedEdit,
  c: CheckConflict,
  touched: () => string[] | null,
): Promise<boolean> {
  const { changes } = app.store;
  if (edit.wholeFile || (await changes.hasPending(c.session_id, [edit.path]))) return false;
  const theirs = (await changes.filesOf(c.session_id, [edit.path]))[0];
  if (!theirs) return false;
  const symbols = touched();
  const ours: FileChange = {
    path: edit.path,
    baseBlob: edit.baseBlob,
    newBlob: null,
    level: 'lines',
    reason: null,
    hunks: edit.hunks.map((h, i) => ({ ...h, symbols: edit.local[i]!.symbols ?? [] })),
  };
  // Its symbols unknown (past the parser's limits): only a file without symbols on either side.
  if (symbols === null && theirs.hunks.some((h) => (h.symbols ?? []).length > 0)) return false;
  return predictFile(ours, theirs) === null;
}

/**
 * Whether an edit reaches a held symbol: it writes in the symbol's lines (its decorators too), or
 * the symbol's text is not the same after it — written anew, renamed away, commented out, moved.
 * Past the parser's limits, the whole file counts.
 */
function reachesSymbol(
  edit: ProposedEdit,
  symbol: string,
  touched: string[] | null,
  proposedSpans: SymbolSpan[] | null,
): boolean {
  if (touched === null || proposedSpans === null) return true;
  if (touched.some((s) => within(s, symbol))) return true;
  return (
    symbolText(edit.currentSpans ?? [], edit.current, symbol) !==
    symbolText(proposedSpans, edit.proposed, symbol)
  );
}

/** The lines of every span of `symbol` in a text (overloads too), or '' when the text has none. */
function symbolText(spans: SymbolSpan[], text: string, symbol: string): string {
  const lines = text.split('\n');
  return spans
    .filter((s) => s.name === symbol)
    .map((s) => lines.slice(s.start - 1, s.end).join('\n'))
    .join('\n\0');
}

/**
 * The symbols an edit touches, read from the file's current text (one parse): those of the lines
 * it replaces, or around the point where it inserts. Set on `edit.local` hunk by hunk. Empty for a
 * file whose symbols are not read; null past the parser's limits.
 */
function touchedSymbols(edit: ProposedEdit): string[] | null {
  if (languageOf(edit.path) === null) return [];
  const spans = symbolSpans(edit.path, edit.current);
  if (spans === null) return null;
  edit.currentSpans = spans;
  const inCurrent = edit.local.map((h) => ({ ...h, next: h.base }));
  // Every line it replaces counts, blank ones too: code written over a blank line of a held
  // function is inside it.
  markSymbols(inCurrent, spans, edit.current, { blankLines: true });
  const all = new Set<string>();
  edit.local.forEach((h, i) => {
    h.symbols = inCurrent[i]!.symbols ?? [];
    for (const s of h.symbols) all.add(s);
  });
  return [...all];
}
