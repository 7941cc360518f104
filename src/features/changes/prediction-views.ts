import { z } from 'zod';
import { inline } from '../../core/fence.js';
import { type PredictedConflict, describeLines as span } from './changes-service.js';

const range = z.tuple([z.number(), z.number()]);
const hunk = z.object({
  base: range.describe('[first line, count] replaced in the base'),
  next: range.describe('[first line, count] written in its copy'),
  excerpt: z.string(),
});

/** One predicted conflict, as tools answer it. */
export const predictedConflict = z.object({
  session_id: z.string(),
  session_name: z.string(),
  level: z
    .enum(['textual', 'symbol', 'file', 'unknown'])
    .describe(
      'textual: git will conflict; symbol: both change one function (git merges, look); file: compared whole; unknown: different bases',
    ),
  file: z.string(),
  symbols: z.array(z.string()),
  ours: z.array(hunk),
  theirs: z.array(hunk),
  why: z.string().optional(),
}) satisfies z.ZodType<PredictedConflict>;

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
