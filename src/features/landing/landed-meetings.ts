/**
 * Nobody left behind: after a landing, every other live session of the repository whose
 * uncommitted or unlanded changes (recorded, from any machine) now meet the target — textual,
 * symbol or semantic — is told, and its `collab_check` shows those conflicts until its base moves.
 * The other side is what the target changed since that session's base, read from the requester's
 * copy (which holds the landed commit).
 */

import { inline } from '../../core/fence.js';
import type { FileChange } from '../../core/hunks.js';
import { newId } from '../../core/ids.js';
import { predictChanges, semanticPredictions } from '../../core/merge-prediction.js';
import { gitOutputAsync } from '../../integrations/git.js';
import type { LandingMeetingRow, LandingRow } from '../../store/landings-store.js';
import { entry } from '../changes/conflicts-against.js';
import { describeLines } from '../changes/prediction-types.js';
import { stateOf } from '../sessions/liveness.js';
import type { LandingServices } from './landing-service.js';

/** Files of landed work compared, at most; sessions told per landing, at most; notices per session. */
const LANDED_FILES = 300;
const SESSIONS = 200;
const NOTICES_PER_SESSION = 5;
/** Meetings recorded per session (what its collab_check lists), and bases of sessions read (a diff each). */
const MEETINGS_PER_SESSION = 20;
const BASES = 20;

/** What a landing's work meets: the rows `collab_check` lists, and the notices to send. */
export interface Meetings {
  rows: LandingMeetingRow[];
  notices: Array<{ sessionId: string; m: LandingMeetingRow; lines: string; symbols: string[] }>;
  sessions: number;
  /** The landed commit they meet. */
  commit: string;
}

/**
 * What the work that moved the target from `before` to `landed` meets in the other live sessions'
 * changes. Git and the parser run here, before any write: `recordMeetings` writes it, in the
 * transaction that records the landing, so that once a landing shows, those it meets are told.
 */
export async function meetingsOf(
  services: LandingServices,
  row: LandingRow,
  before: string,
  landed: string,
  files?: string[],
): Promise<Meetings> {
  const { app } = services;
  const { store } = app;
  // The files the landing changed: known to its lander, else asked of git.
  const landedFiles = (
    files ??
    (await gitOutputAsync(row.worktree, ['diff', '--name-only', '-z', '--no-renames', before, landed]))
      .split('\0')
      .filter((p) => p.length > 0)
  ).slice(0, LANDED_FILES);
  if (landedFiles.length === 0) return { rows: [], notices: [], sessions: 0, commit: landed };
  const bySession = await store.changes.ofProject(row.project_id);
  const target = { id: row.session_id ?? '', name: `${row.requester} (landed on ${row.onto})` };
  // What the target changed since a base, read once per base (sessions of one repository share few).
  const sinceBase = new Map<string, Promise<FileChange[] | null>>();
  const theirsFrom = (base: string) => {
    let found = sinceBase.get(base);
    if (!found && sinceBase.size >= BASES) return Promise.resolve(null);
    if (!found) {
      found = services.changes.between(row.worktree, base, landed, landedFiles).catch(() => null);
      sinceBase.set(base, found);
    }
    return found;
  };
  const meetings: LandingMeetingRow[] = [];
  const notices: Meetings['notices'] = [];
  let told = 0;
  for (const [sessionId, mine] of bySession) {
    if (sessionId === row.session_id || told >= SESSIONS) continue;
    const session = await store.sessions.get(sessionId);
    if (!session || stateOf(app, session) !== 'active') continue;
    const set = await store.changes.setOf(sessionId);
    if (!set) continue;
    const theirs = await theirsFrom(set.base_commit);
    if (!theirs || theirs.length === 0) continue;
    const predictions = [...predictChanges(mine, theirs), ...semanticPredictions(mine, theirs)].filter(
      (p) => p.level === 'textual' || p.level === 'symbol' || p.level === 'semantic',
    );
    if (predictions.length === 0) continue;
    told++;
    for (const p of predictions.slice(0, MEETINGS_PER_SESSION)) {
      const view = entry(target, p);
      const m: LandingMeetingRow = {
        id: newId(),
        landing_id: row.id,
        session_id: sessionId,
        project_id: row.project_id,
        base_commit: set.base_commit,
        level: p.level,
        file: p.path,
        detail: JSON.stringify({ ...view, landing_id: row.id, commit: landed, onto: row.onto }),
        at: app.now(),
      };
      meetings.push(m);
      const lines = p.semantic
        ? `${view.semantic?.change ?? ''}; you use it at ${p.semantic.usedIn}:${p.semantic.use.line}`
        : p.ours.length > 0
          ? `yours ${p.ours.map((h) => describeLines(h.base)).join(', ')}, landed ${p.theirs.map((h) => describeLines(h.base)).join(', ')}`
          : (p.why ?? '');
      if (notices.filter((n) => n.sessionId === sessionId).length < NOTICES_PER_SESSION)
        notices.push({ sessionId, m, lines, symbols: p.symbols });
    }
  }
  return { rows: meetings, notices, sessions: told, commit: landed };
}

/** Records what a landing met and tells each session it met (inside the landing's write). */
export async function recordMeetings(
  services: LandingServices,
  row: LandingRow,
  met: Meetings,
): Promise<void> {
  if (met.rows.length === 0) return;
  const { store } = services.app;
  await store.landings.addMeetings(met.rows);
  for (const n of met.notices)
    await services.notifications.notify([n.sessionId], {
      type: 'landed_conflict',
      subject: `${row.id}:${n.m.file}:${n.m.level}`,
      project: row.project_id,
      payload: {
        landing_id: row.id,
        session: row.requester,
        session_id: row.session_id,
        onto: row.onto,
        commit: met.commit,
        file: n.m.file,
        level: n.m.level,
        symbols: n.symbols,
        lines: inline(n.lines, 300),
      },
    });
  services.app.log.info('landing.meetings', {
    landing: row.id,
    sessions: met.sessions,
    meetings: met.rows.length,
  });
}
