/** Predicted conflicts between every pair of live sessions of a project, as `status` and the dashboard show them. */
import type { AppContext } from '../../app/context.js';
import { predictChanges, semanticPredictions } from '../../core/merge-prediction.js';
import { describeChange, type SemanticConflict } from '../../core/semantic.js';
import type { SessionRow } from '../../store/sessions-store.js';
import { stateOf } from '../sessions/liveness.js';
import { describeLines, type PairConflict, view } from './prediction-types.js';

/**
 * Every predicted conflict between two live sessions of a project, by pair and file (for `status`
 * and the dashboard): at most `limit`, and whether there are more. From recorded hunks only: the
 * pairs may be on any machine.
 */
export async function pairConflicts(
  app: AppContext,
  projectId: string,
  limit: number,
): Promise<{ pairs: PairConflict[]; more: boolean }> {
  const bySession = await app.store.changes.ofProject(projectId);
  const live: SessionRow[] = [];
  for (const id of bySession.keys()) {
    const s = await app.store.sessions.get(id);
    if (s && stateOf(app, s) === 'active') live.push(s);
  }
  const pairs: PairConflict[] = [];
  for (let i = 0; i < live.length; i++) {
    for (let j = i + 1; j < live.length; j++) {
      const [a, b] = [live[i]!, live[j]!];
      const [fa, fb] = [bySession.get(a.id)!, bySession.get(b.id)!];
      for (const p of [...predictChanges(fa, fb), ...semanticPredictions(fa, fb)]) {
        if (pairs.length === limit) return { pairs, more: true };
        pairs.push({
          a: { session_id: a.id, session: a.name },
          b: { session_id: b.id, session: b.name },
          level: p.level,
          file: p.path,
          symbols: p.symbols,
          lines: p.semantic
            ? pairSentence(p.semantic, a.name, b.name)
            : p.level === 'textual' || p.level === 'symbol'
              ? `${p.ours.map((h) => describeLines(h.base)).join(', ')} / ${p.theirs.map((h) => describeLines(h.base)).join(', ')}`
              : (p.why ?? ''),
          excerpts: {
            a: p.ours[0] ? view(p.ours[0]).excerpt : '',
            b: p.theirs[0] ? view(p.theirs[0]).excerpt : '',
          },
        });
      }
    }
  }
  return { pairs, more: false };
}

/** A semantic conflict between two sessions, said of both by name ("alice" changed…; "bob" uses it at…). */
function pairSentence(c: SemanticConflict, a: string, b: string): string {
  const [changer, user] = c.changedBy === 'ours' ? [a, b] : [b, a];
  return `${describeChange(c.change, `"${changer}"`)} (${c.definedIn}); "${user}" uses it at ${c.usedIn}:${c.use.line}: ${c.use.text}`;
}
