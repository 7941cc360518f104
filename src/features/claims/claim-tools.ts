import { z } from 'zod';
import { inline, shown } from '../../core/fence.js';
import { LIMITS } from '../../core/limits.js';
import { describePredictions } from '../changes/prediction-text.js';
import { predictedConflict } from '../changes/prediction-views.js';
import {
  cursorField,
  idOf,
  limitField,
  list,
  moreNote,
  nextCursorField,
  sessionIdField,
  text,
} from '../fields.js';
import { defineTool } from '../tool-context.js';
import { changedFiles, normalizeFiles } from './claim-paths.js';
import { missingSymbols } from './claim-symbols.js';
import type { CheckConflict, ClaimConflict, ClaimView } from './claim-types.js';

const scope = z.enum(['small', 'medium', 'large']);
const files = list(z.string().min(1), 'filesPerRequest').min(1);

const conflict = z.object({
  claim_id: z.string(),
  session: z.string(),
  session_id: z.string(),
  files: z.array(z.string()),
  intent: z.string(),
  overlap: z.array(z.string()),
  exclusive: z.boolean(),
}) satisfies z.ZodType<ClaimConflict>;

const checkEntry = z.object({
  file: z.string(),
  session: z.string(),
  session_id: z.string(),
  claim_id: z.string(),
  intent: z.string(),
  scope,
  started_at: z.string(),
}) satisfies z.ZodType<CheckConflict>;

const claimView = z.object({
  claim_id: z.string(),
  session_id: z.string(),
  session: z.string(),
  files: z.array(z.string()),
  intent: z.string(),
  scope,
  status: z.enum(['active', 'completed', 'abandoned', 'expired']),
  exclusive: z.boolean(),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  released_at: z.string().nullable(),
  summary: z.string().nullable(),
  source: z.enum(['tool', 'edit', 'git']).describe('collab_claim, an edit seen by a hook, or from_git'),
}) satisfies z.ZodType<ClaimView>;

export const claim = defineTool({
  name: 'collab_claim',
  title: 'Claim files',
  description: 'Declare what you will change, and why; others are warned.',
  kind: 'write',
  input: z.strictObject({
    session_id: sessionIdField,
    files: files.optional().describe("Paths, globs or 'file.ts#symbol'"),
    from_git: z.boolean().default(false).describe('Claim uncommitted changes too'),
    intent: text('intentChars'),
    scope: scope.default('medium').describe('small <30min, medium 30min-2h, large >2h'),
    exclusive: z.boolean().default(false).describe('Refuse if another session holds any'),
    ttl_seconds: z
      .number()
      .int()
      .positive()
      .max(7 * 86_400)
      .optional()
      .describe('Expire after this long'),
  }),
  output: z.object({
    claim_id: z.string(),
    status: z.enum(['created', 'created_with_conflicts']),
    files: z.array(z.string()),
    conflicts: z.array(conflict),
    expires_at: z.string().nullable(),
    warning: z.string().optional(),
  }),
  async handler({ app, connection }, input) {
    const session = await connection.actor(input.session_id);
    const result = await app.claims.claim({
      session,
      files: input.from_git ? [...(input.files ?? []), ...changedFiles(session)] : (input.files ?? []),
      source: input.from_git ? 'git' : 'tool',
      intent: input.intent,
      scope: input.scope,
      exclusive: input.exclusive,
      ttlSeconds: input.ttl_seconds,
    });
    // A symbol named that the file does not have: said, in case it is a typo.
    const missing = missingSymbols(session.worktree, result.files);
    const note = missing.length > 0 ? missing.join(' ') : undefined;
    if (result.conflicts.length === 0) return note ? { ...result, warning: note } : result;
    // Bounded: the first conflicts in full, the rest counted.
    // Where two globs meet: a real tracked file when there is one, else an example, marked so.
    const listed = result.conflicts.slice(0, LIMITS.listedConflicts).map((c) => ({
      ...c,
      files: c.files.slice(0, LIMITS.listedConflicts),
      overlap: app.claims.meetingPoints(
        session.worktree,
        c.overlap
          .slice(0, LIMITS.listedConflicts)
          .map((witness) => ({ ours: result.files, theirs: c.files, witness })),
      ),
    }));
    const more = result.conflicts.length - listed.length;
    const paths = new Set(result.conflicts.flatMap((c) => c.overlap));
    return {
      ...result,
      conflicts: listed,
      warning: `⚠️ ${paths.size} path(s) overlap other sessions: ${listed
        .map(
          (c) =>
            `${inline(c.overlap.join(', '), 200)} held by "${inline(c.session, 60)}" (intent ${shown(c.intent, 120)})`,
        )
        .join(
          '; ',
        )}${more > 0 ? `; and ${more} more claim(s): see collab_claims_list` : ''}. Coordinate before changing them.${note ? ` ${note}` : ''}`,
    };
  },
  text: (o) => `Claimed ${o.files.join(', ')} (claim_id ${o.claim_id}).${o.warning ? `\n${o.warning}` : ''}`,
});

export const check = defineTool({
  name: 'collab_check',
  title: 'Check before changing',
  description:
    'Who else works on these files; will your changes conflict at merge? Call before deleting or rewriting.',
  kind: 'read',
  input: z.strictObject({
    files: files.optional().describe("Paths, globs or 'file.ts#symbol'; omit for all you changed"),
    session_id: sessionIdField,
  }),
  output: z.object({
    safe: z.boolean(),
    message: z.string().optional(),
    conflicts: z.array(checkEntry),
    stale: z.array(checkEntry.extend({ session_status: z.enum(['active', 'inactive', 'ended']) })),
    predicted_conflicts: z.array(predictedConflict),
    warning: z.string().optional(),
  }),
  async handler({ app, connection }, input) {
    const viewer = await connection.viewer(input.session_id);
    const patterns = input.files ? normalizeFiles(input.files, viewer) : undefined;
    // What the caller (and the other sessions of this machine) changed since read, read again; git
    // runs before any write, and only for what changed.
    const unread = await app.changes.refreshForCheck(viewer, patterns);
    const predicted = await app.changes.predict(viewer, patterns);
    // A copy git could not read now is compared as last read: said, never a silent "safe".
    const unreadNote =
      unread.length === 0
        ? ''
        : ` Not read now (git failed or ran past its time; see the log): ${unread
            .slice(0, 5)
            .map((s) => (s.id === viewer.id ? 'your copy' : `the copy of session "${inline(s.name, 60)}"`))
            .join(
              ', ',
            )}${unread.length > 5 ? ` and ${unread.length - 5} more` : ''}; predictions use its last read.`;
    await app.changes.markTold(viewer, predicted.conflicts);
    const full = patterns
      ? await app.claims.check(viewer, patterns)
      : { safe: true, conflicts: [], stale: [] };
    // Bounded: the first conflicts and stale claims in full, the rest counted. A glob checked
    // against a glob meets at a real tracked file when there is one, else at a marked example.
    const honest = (entries: typeof full.conflicts) => {
      const files = app.claims.meetingPoints(
        viewer.worktree,
        entries.map((e) => ({ ours: [e.checked ?? e.file], theirs: [e.held ?? e.file], witness: e.file })),
      );
      return entries.map((e, i) => ({ ...e, file: files[i]! }));
    };
    // What will not merge, or will not build once merged.
    const merging = predicted.conflicts.filter(
      (p) => p.level === 'textual' || p.level === 'file' || p.level === 'semantic',
    );
    const result = {
      ...full,
      safe: full.safe && merging.length === 0,
      conflicts: honest(full.conflicts.slice(0, LIMITS.listedConflicts)),
      stale: full.stale.slice(0, LIMITS.listedConflicts),
      predicted_conflicts: predicted.conflicts,
    };
    const more = full.conflicts.length - result.conflicts.length;
    const staleNote =
      full.stale.length > 0 ? ` ${full.stale.length} stale claim(s) of inactive sessions do not block.` : '';
    const prediction = describePredictions(predicted.conflicts, predicted.more);
    const subject = input.files ? 'these files' : 'the files you changed';
    if (result.safe) {
      return {
        ...result,
        message: `No other session is working on ${subject}.${staleNote}${prediction ? ` ${prediction}` : ''}${unreadNote}`,
      };
    }
    const claims = result.conflicts.map((c) => app.claims.describeConflict(c)).join('; ');
    return {
      ...result,
      warning: `⚠️ ${[claims ? `${claims}${more > 0 ? `; and ${more} more` : ''}.` : '', prediction].filter(Boolean).join(' ')} Coordinate first: message the other session (collab_message_send), wait, or ask the user.${staleNote}${unreadNote}`,
    };
  },
  text: (o) => (o.safe ? `Safe: ${o.message}` : `Not safe. ${o.warning}`),
});

export const release = defineTool({
  name: 'collab_release',
  title: 'Release a claim',
  description: 'Release your claim: done (completed) or given up (abandoned).',
  kind: 'write',
  input: z.strictObject({
    claim_id: idOf('claim'),
    status: z.enum(['completed', 'abandoned']),
    summary: text('messageChars', 0).optional().describe('What was done, for other sessions'),
    session_id: sessionIdField,
  }),
  output: z.object({
    claim_id: z.string(),
    status: z.enum(['completed', 'abandoned']),
    files: z.array(z.string()),
    released_at: z.string(),
  }),
  async handler({ app, connection }, input) {
    const c = await app.claims.release(
      await connection.actor(input.session_id),
      input.claim_id,
      input.status,
      input.summary,
    );
    return { claim_id: c.claim_id, status: input.status, files: c.files, released_at: c.released_at! };
  },
  text: (o) => `Claim ${o.claim_id} ${o.status}: ${o.files.join(', ')}.`,
});

export const claimsList = defineTool({
  name: 'collab_claims_list',
  title: 'List claims',
  description: 'Claims in this project, newest first.',
  kind: 'read',
  input: z.strictObject({
    session_id: idOf('session').optional().describe('Only this session’s claims'),
    status: z.enum(['active', 'completed', 'abandoned', 'expired', 'all']).default('active'),
    path_filter: text('pathInputChars').optional().describe('Glob; claims overlapping it'),
    limit: limitField(LIMITS.listedClaims, 200),
    cursor: cursorField,
  }),
  output: z.object({ claims: z.array(claimView), next_cursor: nextCursorField }),
  async handler({ app, connection }, input) {
    const page = await app.claims.list(await connection.current(), {
      sessionId: input.session_id,
      status: input.status,
      pathFilter: input.path_filter,
      limit: input.limit,
      cursor: input.cursor,
    });
    return { claims: page.items, next_cursor: page.next_cursor };
  },
  text: (o) =>
    o.claims.length === 0
      ? 'No claims.'
      : o.claims
          .map(
            (c) =>
              `${c.claim_id} [${c.status}] "${inline(c.session, 60)}": ${c.files.join(', ')} (intent ${shown(c.intent, 200)})`,
          )
          .join('\n') + moreNote(o.next_cursor),
});

export const claimTools = [claim, check, release, claimsList];
