import { z } from 'zod';
import { inline, quoteBlock, word } from '../../core/fence.js';
import { DEFAULT_WAIT_SECONDS, MAX_WAIT_SECONDS, PROGRESS_EVERY_MS } from '../../core/waits.js';
import type { LandingRow } from '../../store/landings-store.js';
import { branchField, idOf, sessionIdField } from '../fields.js';
import { type CallControls, defineTool, type Services } from '../tool-context.js';
import { FINAL, type LandingView } from './landing-service.js';

/** What an answer shows of the check's output: its end. */
const OUTPUT_SHOWN = 2_000;

const outcome = z.object({
  id: z.string(),
  state: z.enum(['queued', 'landing', 'landed', 'rejected', 'cancelled']),
  message: z.string(),
  commit: z.string().nullable(),
  reason: z.string().nullable(),
  output: z.string().nullable().describe("The end of the check's output, when it ran"),
});

/** Waits for a request to end (progress every few seconds), for at most `seconds`. */
async function waitFor(app: Services, id: string, seconds: number, call: CallControls | undefined) {
  const deadline = Date.now() + seconds * 1000;
  let row = await app.landing.get(id);
  while (row && !FINAL.has(row.state) && Date.now() < deadline && !call?.signal.aborted) {
    row = await app.landing.wait(id, Math.min(deadline - Date.now(), PROGRESS_EVERY_MS), call?.signal);
    if (row && !FINAL.has(row.state)) call?.progress(`Landing request ${id.slice(0, 8)}: ${row.state}…`);
  }
  return row;
}

async function answer(app: Services, row: LandingRow, yours = true): Promise<z.input<typeof outcome>> {
  const ahead = FINAL.has(row.state) ? null : await app.landing.ahead(row);
  return {
    id: row.id,
    state: row.state,
    message: describe(app.landing.view(row, ahead), yours) + (yours ? firstConflict(row) : ''),
    commit: row.landed_commit,
    reason: row.reason,
    output: row.check_output
      ? quoteBlock(row.check_output.slice(-OUTPUT_SHOWN), OUTPUT_SHOWN + 200, 60, '')
      : null,
  };
}

/**
 * For a request refused on a conflict, the first conflict's two sides as the replay met them
 * (quoted when they were kept: data from both sides' files), for the requester to settle.
 */
function firstConflict(row: LandingRow): string {
  if (row.reason_code !== 'CONFLICT' || !row.details) return '';
  try {
    const { conflicts } = JSON.parse(row.details) as {
      conflicts?: Array<{ file: string; target_side: string; your_side: string }>;
    };
    const c = conflicts?.[0];
    if (!c || (!c.target_side && !c.your_side)) return '';
    return `\nIn ${word(c.file, 200)}, the target's side:\n${c.target_side}\nYour side:\n${c.your_side}`;
  } catch {
    return '';
  }
}

/** One request in a sentence. */
export function describe(v: LandingView, yours = true): string {
  // Names another session's git chose: quoted unless plain words.
  const branch = word(v.branch);
  const onto = word(v.onto);
  const whose = yours ? '' : ` (${branch} of "${inline(v.requester, 80)}")`;
  switch (v.state) {
    case 'queued':
      return `Request ${v.id} to land ${v.commits} commit(s) of ${branch} on ${onto} is queued${v.ahead ? `, ${v.ahead} ahead of it` : ', next'}: collab_land_status with its id waits for the outcome.`;
    case 'landing':
      return `Request ${v.id}${whose} is landing on ${onto} now (replay and check): collab_land_status with its id waits for the outcome.`;
    case 'landed':
      // Only the requester's branch is to move onto it: another session's stays as it is.
      return yours
        ? `Landed on ${onto} as ${v.commit}${v.reason ? ` (${v.reason})` : ''}. Your branch ${branch} is as it was: move it onto the target (git reset --keep ${v.commit}) before going on.`
        : `Request ${v.id}${whose} landed on ${onto} as ${v.commit}${v.reason ? ` (${v.reason})` : ''}.`;
    default:
      return `Request ${v.id}${whose} was ${v.state}: ${v.reason ?? 'no reason recorded'}`;
  }
}

export const land = defineTool({
  name: 'collab_land',
  title: 'Land your work',
  description:
    "Land your branch's commits on onto (default: the default branch): replayed, checked, moved, or refused.",
  kind: 'write',
  openWorld: true,
  waits: true,
  input: z.strictObject({
    onto: branchField.optional(),
    wait_seconds: z.number().int().min(0).max(MAX_WAIT_SECONDS).default(DEFAULT_WAIT_SECONDS),
    session_id: sessionIdField,
  }),
  output: outcome,
  async handler({ app, connection, call }, input) {
    const session = await connection.actor(input.session_id);
    const asked = Date.now();
    const { row } = await app.landing.request({
      session,
      folder: session.worktree,
      onto: input.onto,
      requester: session.name,
    });
    // The call's whole time stays within wait_seconds where it can: what asking took (a fetch) counts.
    const left = Math.max(0, input.wait_seconds - Math.ceil((Date.now() - asked) / 1000));
    const now = FINAL.has(row.state) ? row : await waitFor(app, row.id, left, call);
    const final = now ?? row;
    // Its outcome is in this answer: the notification saying it is not delivered again.
    if (FINAL.has(final.state)) await app.notifications.markSeen(session.id, 'land_outcome', final.id);
    return answer(app, final);
  },
  text: (out) => (out.output ? `${out.message}\nThe end of the check's output:\n${out.output}` : out.message),
});

export const landStatus = defineTool({
  name: 'collab_land_status',
  title: 'Landing queue',
  description: "The repository's landing queue and outcomes; with id, wait for that one's.",
  kind: 'read',
  waits: true,
  input: z.strictObject({
    id: idOf('landing').optional(),
    wait_seconds: z.number().int().min(0).max(MAX_WAIT_SECONDS).default(0),
    session_id: sessionIdField,
  }),
  output: z.object({
    request: outcome.nullable(),
    queue: z.array(z.record(z.string(), z.unknown())),
    recent: z.array(z.record(z.string(), z.unknown())),
  }),
  async handler({ app, connection, call }, input) {
    const viewer = await connection.viewer(input.session_id);
    // Read through another session's eyes, nothing is the caller's: no "yours", nothing marked seen.
    const own = viewer.id === connection.currentId ? viewer.id : null;
    let request: z.input<typeof outcome> | null = null;
    let projectId = viewer.project_id;
    if (input.id) {
      const found = await app.landing.get(input.id);
      // Another project's request is not found from here.
      const row =
        found && found.project_id === viewer.project_id
          ? await waitFor(app, input.id, input.wait_seconds, call)
          : null;
      if (!row)
        throw new (await import('../../core/errors.js')).CollabError(
          'INVALID_INPUT',
          `No landing request ${input.id}.`,
          'collab_land_status without an id lists the queue and recent outcomes.',
        );
      projectId = row.project_id;
      request = await answer(app, row, own !== null && row.session_id === own);
      if (FINAL.has(row.state) && own !== null && row.session_id === own)
        await app.notifications.markSeen(own, 'land_outcome', row.id);
    }
    const { queue, recent } = await app.landing.status(projectId, 20);
    const listed = (v: LandingView) => ({
      ...v,
      requester: inline(v.requester, 80),
      check_output: null,
      details: null,
      reason: v.reason ? inline(v.reason, 400) : null,
      yours: own !== null && v.session_id === own,
    });
    return { request, queue: queue.map(listed), recent: recent.map(listed) };
  },
  text: (out) =>
    [
      ...(out.request ? [out.request.message] : []),
      out.queue.length === 0 ? 'Nothing is queued to land.' : `Queue (${out.queue.length}):`,
      ...out.queue.map((v) => `- ${describe(v as unknown as LandingView, v.yours === true)}`),
      ...(out.recent.length > 0 ? ['Recent:'] : []),
      ...out.recent.slice(0, 5).map((v) => `- ${describe(v as unknown as LandingView, v.yours === true)}`),
    ].join('\n'),
});

export const landTools = [land, landStatus];
