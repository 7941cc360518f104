import { inline, word } from '../../core/fence.js';
import { type PredictedConflict, describeLines as span } from './prediction-types.js';

/**
 * One sentence per predicted conflict (another session's name fenced), then what that session
 * changed there (its first meeting hunk, quoted), or '' when there is none.
 */
export function describePredictions(conflicts: PredictedConflict[], more: number): string {
  if (conflicts.length === 0) return '';
  const theirs = (c: PredictedConflict) =>
    c.theirs[0]?.excerpt ? `\nTheir change there:\n${c.theirs[0].excerpt}\n` : '';
  const lines = conflicts.map((c) => {
    // The path as the other session's git gave it (a rename's, theirs alone): quoted unless plain.
    const file = word(c.file, 200);
    const who = `session "${inline(c.session_name, 60)}" (session_id ${c.session_id})`;
    const symbols = c.symbols.map((s) => inline(s, 80)).join(', ');
    const lines = `your lines ${c.ours.map((h) => span(h.base)).join(', ')}, theirs ${c.theirs.map((h) => span(h.base)).join(', ')} of the base`;
    switch (c.level) {
      case 'textual':
        return `${file}${symbols ? ` (${symbols})` : ''}: will conflict with ${who} when merged — ${lines}${c.why ? ` (${c.why})` : ''}.${theirs(c)}`;
      case 'semantic':
        return `${file}: git will merge it with ${who}, but the build breaks: ${c.why}.${c.semantic ? `\nThe use:\n${c.semantic.use}\n` : ''}`;
      case 'symbol':
        return `${file}: you and ${who} both change ${symbols} (git merges it; read both before merging).${theirs(c)}`;
      default:
        return `${file}: ${c.level === 'file' ? 'will conflict with' : 'cannot be compared with'} ${who}: ${c.why}.`;
    }
  });
  return `Predicted: ${lines.join(' ')}${more > 0 ? ` And ${more} more.` : ''}`;
}
