/**
 * Fencing: work done under a claim that lapsed (expired, released, given way) and was then claimed by
 * another session must not land in silence. A session's claims on a path, and the claims others made
 * over it after they lapsed, tell whether its changes there are stale: until it claims the path
 * again (and so looks at what the other changed), its commit of them is refused.
 */
import type { AppContext } from '../../app/context.js';
import { pathOf, splitTarget, symbolsMeet, targetsMeet } from '../../core/claim-target.js';
import { inline, shown } from '../../core/fence.js';
import { globBudget } from '../../core/glob.js';
import { ancestorBases } from '../../core/paths.js';
import { iso } from '../../core/time.js';
import type { PastPattern } from '../../store/claim-patterns-store.js';

/** A path a session held, lost, and another session claimed since. */
export interface Fence {
  file: string;
  /** This session's claim that lapsed, and when. */
  claim_id: string;
  lapsed_at: string;
  how: 'expired' | 'released';
  /** The first session that claimed it after. */
  taken_by: string;
  taken_by_id: string;
  taken_at: string;
  intent: string;
}

/** Past claims read per path, at most. */
const HISTORY_PER_PATH = 500;

/** When a claim stopped holding its pattern (null: it still does at `now`). */
function lapse(p: PastPattern, now: number): { at: number; how: Fence['how'] } | null {
  if (p.status === 'active' && p.active === 1 && (p.expires_at === null || p.expires_at > now)) return null;
  if (p.status === 'expired' || (p.status === 'active' && p.expires_at !== null && p.expires_at <= now))
    return { at: p.expires_at ?? p.released_at ?? now, how: 'expired' };
  return { at: p.released_at ?? p.expires_at ?? now, how: 'released' };
}

/**
 * The files among `files` (relative to the worktree root) that `session` held, lost, and another
 * session claimed after, with no claim of the session's own over them made since: one fence each.
 * Claims are looked at from the session's start on (the newest `HISTORY_PER_PATH`).
 */
export async function fencesOf(
  app: AppContext,
  session: { id: string; project_id: string; created_at: number },
  files: string[],
): Promise<Fence[]> {
  const now = app.now();
  const out: Fence[] = [];
  const budget = globBudget();
  for (const file of files) {
    const history = (
      await app.store.claimPatterns.patternsEverAt(
        session.project_id,
        ancestorBases(file),
        session.created_at,
        HISTORY_PER_PATH,
      )
    ).filter((p) => targetsMeet(p.pattern, file, budget) !== null);
    const mine = history.filter((p) => p.session_id === session.id);
    let fence: Fence | null = null;
    for (const p of mine) {
      const lapsed = lapse(p, now);
      if (lapsed === null) continue;
      const takers = history.filter(
        (o) =>
          o.session_id !== session.id &&
          o.added_at > lapsed.at &&
          targetsMeet(o.pattern, p.pattern, budget) !== null,
      );
      for (const taker of takers) {
        // Claimed again since (any claim of its own over what the taker took): its to commit.
        if (
          mine.some(
            (q) => q.added_at > taker.added_at && targetsMeet(q.pattern, taker.pattern, budget) !== null,
          )
        )
          continue;
        if (!(await tookIt(app, taker, p, file))) continue;
        // The latest of its claims taken over: the one its work was last done under.
        if (fence === null || Date.parse(fence.lapsed_at) < lapsed.at)
          fence = {
            file,
            claim_id: p.claim_id,
            lapsed_at: iso(lapsed.at)!,
            how: lapsed.how,
            taken_by: taker.session_name,
            taken_by_id: taker.session_id,
            taken_at: iso(taker.added_at)!,
            intent: taker.intent,
          };
        break;
      }
    }
    if (fence) out.push(fence);
  }
  return out;
}

/**
 * Whether `taker` took what `mine` held. A claim made by another session's edits holds what they
 * changed: over a symbol of `mine`, it took it only where its recorded changes touch that symbol (not
 * recorded any more: it counts).
 */
async function tookIt(
  app: AppContext,
  taker: PastPattern,
  mine: PastPattern,
  file: string,
): Promise<boolean> {
  const symbol = splitTarget(mine.pattern).symbol;
  if (taker.source !== 'edit' || symbol === null) return true;
  const [change] = await app.store.changes.filesOf(taker.session_id, [pathOf(file)]);
  if (change?.level !== 'lines') return true;
  return change.hunks.some((h) => (h.symbols ?? []).some((s) => symbolsMeet(s, symbol)));
}

/** For a person at the commit: which files are stale, who took them, and how to go on. */
export function describeFences(fences: Fence[]): string {
  return [
    'session-collab: this commit includes changes made under claims that lapsed and were claimed by another session since:',
    ...fences.map(
      (f) =>
        `- ${inline(f.file, 300)}: your claim ${f.claim_id.slice(0, 8)} ${f.how} at ${f.lapsed_at}; session "${inline(f.taken_by, 60)}" (${f.taken_by_id.slice(0, 8)}) claimed it at ${f.taken_at} (intent ${shown(f.intent, 200)})`,
    ),
    'Look at what that session changed, then have your session claim the files again (collab_claim) and commit.',
  ].join('\n');
}
