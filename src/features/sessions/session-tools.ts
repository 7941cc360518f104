import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { inline } from '../../core/fence.js';
import { iso } from '../../core/time.js';
import { cursorField, limitField, moreNote, nextCursorField, sessionIdField, text } from '../fields.js';
import { defineTool } from '../tool-context.js';
import type { SessionView } from './session-types.js';

const sessionView = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(['active', 'inactive', 'ended']),
  active_claims: z.number(),
  last_heartbeat: z.string(),
  started_at: z.string(),
  branch: z.string().nullable(),
  client: z.string().nullable(),
  host: z.string().describe('the machine it works on'),
  worktree: z.string().describe('the copy of the repository it works in, on that machine'),
}) satisfies z.ZodType<SessionView>;

export const sessionStart = defineTool({
  name: 'collab_session_start',
  title: 'Start a collaboration session',
  description: 'Register before working: others see your claims and can message you.',
  kind: 'write',
  input: z.strictObject({
    name: text('nameChars', 0).optional(),
    project_root: text('pathInputChars')
      .refine((p) => isAbsolute(p), 'give the absolute path of the project folder (not a relative one)')
      .describe('Absolute project path'),
  }),
  output: z.object({ session_id: z.string(), name: z.string(), message: z.string() }),
  async handler({ app, connection }, input) {
    const { session, others, resumed } = await connection.start(input.name, input.project_root);
    // What it already changed is read, and compared with the others' from the start.
    await app.changes.refresh(session);
    const { conflicts } = others.length > 0 ? await app.changes.predict(session) : { conflicts: [] };
    // A few names, the rest counted: the answer stays small however many sessions there are.
    const names =
      others
        .slice(0, 10)
        .map((s) => `"${inline(s.name, 60)}"`)
        .join(', ') + (others.length > 10 ? ` and ${others.length - 10} more` : '');
    const what = resumed ? 'Session resumed' : 'Session registered';
    const meeting =
      conflicts.length > 0
        ? ` Your uncommitted changes already meet ${new Set(conflicts.map((c) => c.session_id)).size} other session(s)' in ${conflicts.length} file(s): collab_check shows where.`
        : '';
    return {
      session_id: session.id,
      name: session.name,
      message:
        others.length === 0
          ? `${what}. No other active sessions in this project.`
          : `${what}. ${others.length} other active session${others.length === 1 ? '' : 's'} in this project: ${names}. Check collab_claims_list before editing.${meeting}`,
    };
  },
  text: (o) => `${o.message} (session_id ${o.session_id})`,
});

export const sessionEnd = defineTool({
  name: 'collab_session_end',
  title: 'End a session',
  description: 'End the session; its claims are released.',
  kind: 'destructive',
  input: z.strictObject({
    session_id: sessionIdField,
    release_claims: z
      .enum(['complete', 'abandon'])
      .default('complete')
      .describe('How to release open claims'),
  }),
  output: z.object({ session_id: z.string(), ended: z.boolean(), released_claims: z.number() }),
  async handler({ app, connection }, input) {
    const id = (await connection.actor(input.session_id)).id;
    // The session the end returns: a call sent again is answered with the one it ended then.
    const { session, released } = await app.sessions.end(
      id,
      input.release_claims,
      'ended by collab_session_end',
    );
    connection.forget(session.id);
    // The agent CLIs it started end with it (none can cancel them once it has ended).
    await app.made('agents')?.stopFor(session.id, 'its session ended');
    return { session_id: session.id, ended: true, released_claims: released };
  },
  text: (o) => `Session ${o.session_id} ended; ${o.released_claims} claim(s) released.`,
});

export const sessionList = defineTool({
  name: 'collab_session_list',
  title: 'List sessions',
  description: 'Sessions here: their claims, last heartbeat.',
  kind: 'read',
  input: z.strictObject({
    include_inactive: z.boolean().default(false),
    limit: limitField(50, 200),
    cursor: cursorField,
  }),
  output: z.object({ sessions: z.array(sessionView), next_cursor: nextCursorField }),
  async handler({ app, connection }, input) {
    const page = await app.sessions.list(
      (await connection.current()).project_id,
      input.include_inactive,
      input,
    );
    return { sessions: page.items, next_cursor: page.next_cursor };
  },
  text: (o) =>
    o.sessions.length === 0
      ? 'No sessions.'
      : o.sessions
          .map(
            (s) =>
              `${inline(s.name, 60)} (${s.id}): ${s.status}, ${s.active_claims} claim(s), last seen ${s.last_heartbeat}`,
          )
          .join('\n') + moreNote(o.next_cursor),
});

export const sessionHeartbeat = defineTool({
  name: 'collab_session_heartbeat',
  title: 'Heartbeat',
  description: 'Mark the session alive (any call does).',
  kind: 'write',
  idempotent: true,
  input: z.strictObject({ session_id: sessionIdField }),
  output: z.object({ session_id: z.string(), last_heartbeat: z.string() }),
  async handler({ app, connection }, input) {
    const session = await app.sessions.heartbeat((await connection.actor(input.session_id)).id);
    return { session_id: session.id, last_heartbeat: iso(session.last_heartbeat) };
  },
  text: (o) => `Heartbeat recorded at ${o.last_heartbeat}.`,
});

export const sessionTools = [sessionStart, sessionEnd, sessionList, sessionHeartbeat];
