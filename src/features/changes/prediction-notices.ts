/**
 * Telling sessions of the conflicts their changes are predicted to meet: found when a session's
 * changes are recorded, told to both sessions of a pair once (a pair, file and level either was
 * told before is not told again), and marked told when a tool answer carried them.
 */
import type { AppContext } from '../../app/context.js';
import type { FileChange, Hunk } from '../../core/hunks.js';
import { type FilePrediction, predictChanges, semanticPredictions } from '../../core/merge-prediction.js';
import { describeChange } from '../../core/semantic.js';
import type { SessionRow } from '../../store/sessions-store.js';
import type { NotificationsService } from '../notifications/notifications-service.js';
import { stateOf } from '../sessions/liveness.js';
import type { PredictedConflict } from './prediction-types.js';
import { describeLines } from './prediction-types.js';

/** What a predicted conflict notification is about: one other session, one file, one level. */
function predictionSubject(otherId: string, path: string, level: string): string {
  return `predicted_conflict:${otherId}:${path}:${level}`;
}

/** A meeting of one session's files with another live session's changes. */
export interface Meeting {
  other: SessionRow;
  prediction: FilePrediction;
}

/** What these files of the session meet in other live sessions' changes (textual, symbol, file). */
export async function meetings(
  app: AppContext,
  session: SessionRow,
  files: FileChange[],
): Promise<Meeting[]> {
  const others = await app.store.changes.othersTouching(
    session.project_id,
    session.id,
    files.map((f) => f.path),
  );
  const out: Meeting[] = [];
  for (const [otherId, theirs] of others) {
    const other = await app.store.sessions.get(otherId);
    if (!other || stateOf(app, other) !== 'active') continue;
    for (const prediction of predictChanges(files, theirs))
      if (prediction.level !== 'unknown') out.push({ other, prediction });
  }
  // An interface changed under a new use, either way round.
  if (files.some((f) => f.interface?.length || f.uses?.length)) {
    for (const [otherId, theirs] of await app.store.changes.semanticOthers(session.project_id, session.id)) {
      const other = await app.store.sessions.get(otherId);
      if (!other || stateOf(app, other) !== 'active') continue;
      for (const prediction of semanticPredictions(files, theirs)) out.push({ other, prediction });
    }
  }
  return out;
}

/**
 * Predicted conflicts one read tells at most (each to one or both sides): a copy that meets another
 * in a thousand files told each of them, and asked of each whether it was told before, on every read.
 * The others are told by later reads, as these are seen.
 */
export const TOLD_PER_READ = 20;

/**
 * Tells both sessions of each predicted conflict `met`, once (`tellOnce`), the first
 * `TOLD_PER_READ` not told before. What each session was told before is read once for all of them.
 * Inside the caller's write.
 */
export async function tellNew(
  notifications: NotificationsService,
  session: SessionRow,
  met: Meeting[],
): Promise<void> {
  const seen = new Map<string, Set<string>>();
  const seenBy = async (id: string) => {
    let subjects = seen.get(id);
    if (!subjects) {
      subjects = new Set(await notifications.seenSubjects(id, 'predicted_conflict'));
      seen.set(id, subjects);
    }
    return subjects;
  };
  let told = 0;
  for (const m of met) {
    if (told >= TOLD_PER_READ) return;
    if (await tellOnce(notifications, session, m, seenBy)) told++;
  }
}

/**
 * Tells both sessions of a predicted conflict, once: a pair, file and level either was told
 * before (seen, as `seenBy` says) is not told again; repeats while pending coalesce. Whether either
 * side was told now.
 */
async function tellOnce(
  notifications: NotificationsService,
  session: SessionRow,
  { other, prediction: p }: Meeting,
  seenBy: (sessionId: string) => Promise<Set<string>>,
): Promise<boolean> {
  let told = false;
  const lines = (hunks: Hunk[]) => hunks.map((h) => describeLines(h.base)).join(', ');
  // What the other side changed there, as a notification's one line holds it (fenced when shown).
  const excerpt = (hunks: Hunk[]) => (hunks[0]?.excerpt ?? '').split('\n').slice(0, 4).join(' ⏎ ');
  const sides = [
    {
      to: session,
      about: other,
      lines: `yours ${lines(p.ours)}, theirs ${lines(p.theirs)}`,
      theirs: excerpt(p.theirs),
    },
    {
      to: other,
      about: session,
      lines: `yours ${lines(p.theirs)}, theirs ${lines(p.ours)}`,
      theirs: excerpt(p.ours),
    },
  ];
  // A semantic one is told from each side: who changed the interface, who uses it.
  const semanticWhy = (toChanger: boolean) => {
    const c = p.semantic!;
    const use = `${c.usedIn}:${c.use.line}`;
    return toChanger
      ? `${describeChange(c.change, 'you')} (${c.definedIn}); their uncommitted code uses it at ${use}: ${c.use.text}`
      : `${describeChange(c.change, 'they')} (${c.definedIn}); your uncommitted code uses it at ${use}: ${c.use.text}`;
  };
  for (const side of sides) {
    if (p.level === 'semantic' && p.semantic) {
      // `p` is from `session`'s side: its `ours` changed the interface when changedBy is 'ours'.
      const toChanger = (side.to === session) === (p.semantic.changedBy === 'ours');
      side.lines = semanticWhy(toChanger);
      side.theirs = '';
    }
    const subject = predictionSubject(side.about.id, p.path, p.level);
    if ((await seenBy(side.to.id)).has(subject)) continue;
    told = true;
    await notifications.notify([side.to.id], {
      type: 'predicted_conflict',
      subject,
      project: session.project_id,
      payload: {
        session: side.about.name,
        session_id: side.about.id,
        file: p.path,
        level: p.level,
        symbols: p.symbols,
        lines: p.level === 'file' ? (p.why ?? '') : side.lines,
        theirs: side.theirs,
      },
    });
  }
  return told;
}

/**
 * Marks predicted conflicts a tool answer carried as told (their notifications are not delivered
 * a second time).
 */
export async function markTold(
  app: AppContext,
  notifications: NotificationsService,
  session: { id: string; project_id: string },
  conflicts: PredictedConflict[],
): Promise<void> {
  if (conflicts.length === 0) return;
  await app.store.write(
    async () => {
      for (const c of conflicts)
        await notifications.markSeen(
          session.id,
          'predicted_conflict',
          predictionSubject(c.session_id, c.file, c.level),
        );
    },
    { project: session.project_id },
  );
}
