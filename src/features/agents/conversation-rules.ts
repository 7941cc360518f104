/**
 * Where and how a delegated conversation continues: the folder a CLI that keeps its sessions per
 * folder must run in, and why a run starts its conversation afresh.
 */
import type { AppContext } from '../../app/context.js';
import type { AgentProvider } from '../../core/agent-events.js';
import { invalidInput } from '../../core/errors.js';
import { type AgentRunRow, type ConversationPoint, UNKNOWN_POINT } from '../../store/agent-runs-store.js';
import type { SessionRow } from '../../store/sessions-store.js';
import { adapterOf } from './providers.js';
import { cliSessionId } from './run-inputs.js';

/**
 * The folder a conversation of a CLI that keeps sessions per folder lives in: that of its run
 * still going (it makes the point the next call continues from), else of the run that made its
 * current point; undefined when it starts fresh, or the CLI does not care.
 */
export async function conversationFolder(
  app: AppContext,
  session: SessionRow,
  provider: AgentProvider,
  conversation: string,
): Promise<string | undefined> {
  if (!adapterOf(provider).sessionsPerFolder) return undefined;
  const runs = app.store.agentRuns;
  const going = await runs.lastOpen(session.id, provider, conversation);
  if (going) return going.cwd;
  const point = await runs.point(session.id, provider, conversation);
  return point?.current ? (point.cwd ?? undefined) : undefined;
}

/**
 * Sets where a session's conversation continues from: `point` (any id a run of it produced), or
 * afresh (null). A CLI that cannot go back continues only from its latest point.
 */
export async function setPoint(
  app: AppContext,
  session: SessionRow,
  provider: AgentProvider,
  conversation: string,
  point: string | null,
): Promise<void> {
  if (point !== null) cliSessionId(point);
  const runs = app.store.agentRuns;
  const at = await pointDetails(app, session, provider, conversation, point);
  await app.store.write(async () => {
    // Checked inside the write: a point a run reached, or another caller set, since this call began
    // is seen (an earlier point is never set over it).
    if (point !== null && !adapterOf(provider).canGoBack) {
      // Its latest point; or, for a session with none of its own yet (a restarted server without a
      // client session id), the latest point any session of the project reached.
      const own = await runs.conversation(session.id, provider, conversation);
      const latest = own ?? (await runs.lastPoint(whereOf(session), provider, conversation))?.current;
      if (point !== latest)
        throw invalidInput(
          `${provider} continues a conversation only from its latest point (${latest ?? 'none yet'}): its resumes append to one thread, so an earlier point cannot be gone back to.`,
          'Use claude to go back to an earlier point, or reset_session to start over.',
        );
    }
    await runs.setConversation(session.id, provider, conversation, point, at, app.now());
  });
}

/**
 * What is known of `point` (a CLI conversation id) for a conversation to continue from it: its
 * folder and cost, as kept with the session's current point or the last one an ended session of
 * this worktree reached, else from the run that produced it while the history still holds it.
 * Nothing for none (a conversation started over).
 */
async function pointDetails(
  app: AppContext,
  session: SessionRow,
  provider: AgentProvider,
  conversation: string,
  point: string | null,
): Promise<ConversationPoint> {
  if (point === null) return UNKNOWN_POINT;
  const runs = app.store.agentRuns;
  const own = await runs.point(session.id, provider, conversation);
  if (own?.current === point) return { cwd: own.cwd, cost_total_usd: own.cost_total_usd };
  const before = await runs.lastPoint(whereOf(session), provider, conversation);
  if (before?.current === point) return { cwd: before.cwd, cost_total_usd: before.cost_total_usd };
  const run = await runs.producedBy(point);
  return run ? { cwd: run.cwd, cost_total_usd: run.cost_total_usd } : UNKNOWN_POINT;
}

/**
 * Why a run starts its conversation afresh: reset, the first call of that name, or — what a
 * caller would not guess — a session that cannot be the one that ran it before (a server that
 * restarted without a client session id is a new session), with how to continue it.
 */
export async function whyFresh(
  app: AppContext,
  session: SessionRow,
  row: AgentRunRow,
  point: string | null | undefined,
): Promise<string> {
  if (point === null) return 'reset_session started this conversation over.';
  const before = await app.store.agentRuns.lastPoint(whereOf(session), row.provider, row.conversation);
  if (!before || before.session_id === session.id)
    return 'the first call of this conversation in this session.';
  const how = `set_current_session {provider: "${row.provider}", conversation: "${row.conversation}", session_id: "${before.current}"} continues it`;
  return session.client_session_id === null
    ? `this session is new: its client gave no session id (CLAUDE_CODE_SESSION_ID or SESSION_COLLAB_SESSION_ID), so after a restart its server could not know it was the session that ran conversation "${row.conversation}" before (session ${before.session_id}); ${how}.`
    : `conversation "${row.conversation}" ran before in another session (${before.session_id}), not in this one; ${how}.`;
}

/**
 * Where a session's conversations could have run before it: the sessions of this machine and this
 * worktree (a server restarted without a client session id starts a new one there).
 */
export function whereOf(session: SessionRow): { projectId: string; host: string; worktree: string } {
  return { projectId: session.project_id, host: session.host, worktree: session.worktree };
}
