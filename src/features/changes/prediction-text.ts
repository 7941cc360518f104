import { inline } from '../../core/fence.js';
import { type PredictedConflict, describeLines as span } from './prediction-types.js';

/** One line per predicted conflict (another session's name fenced), or '' when there is none. */
export function describePredictions(conflicts: PredictedConflict[], more: number): string {
  if (conflicts.length === 0) return '';
  const lines = conflicts.map((c) => {
    const who = `session "${inline(c.session_name, 60)}" (session_id ${c.session_id})`;
    const symbols = c.symbols.map((s) => inline(s, 80)).join(', ');
    const lines = `your lines ${c.ours.map((h) => span(h.base)).join(', ')}, theirs ${c.theirs.map((h) => span(h.base)).join(', ')} of the base`;
    switch (c.level) {
      case 'textual':
        return `${c.file}${symbols ? ` (${symbols})` : ''}: will conflict with ${who} when merged — ${lines}.`;
      case 'symbol':
        return `${c.file}: you and ${who} both change ${symbols} (git merges it; read both before merging).`;
      default:
        return `${c.file}: ${c.level === 'file' ? 'will conflict with' : 'cannot be compared with'} ${who}: ${c.why}.`;
    }
  });
  return `Predicted: ${lines.join(' ')}${more > 0 ? ` And ${more} more.` : ''}`;
}
