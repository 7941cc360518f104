import { z } from 'zod';
import { CollabError } from '../../core/errors.js';
import { inline, quoteBlock, shown } from '../../core/fence.js';
import { DEFAULT_WAIT_SECONDS, MAX_WAIT_SECONDS, PROGRESS_EVERY_MS } from '../../core/waits.js';
import { normalizeFiles } from '../claims/claim-paths.js';
import type { CheckConflict } from '../claims/claim-types.js';
import { list, sessionIdField } from '../fields.js';
import { defineTool, type Services } from '../tool-context.js';
import type { Watch } from './wakeups.js';

/** Calls of one process waiting at once; more are refused (each wait re-reads a little at each change). */
const MAX_WAITING = 200;
/** Calls of one session waiting at once (one connection cannot take every slot). */
const MAX_WAITING_PER_SESSION = 10;
/** A wait for files reads their holders again at least this often (a holder may go inactive). */
const HOLDERS_AGAIN_MS = 30_000;

/** Waiting calls by session. */
const perSession = new Map<string, number>();
/** A waiting call looks again at most this often, however fast others write. */
const LOOK_EVERY_MS = 200;

let waiting = 0;

const releasedEntry = z.object({
  file: z.string(),
  session: z.string(),
  session_id: z.string(),
  claim_id: z.string(),
  how: z.string().describe('completed, abandoned, expired, released by a person, or the session ended'),
});
const messageEntry = z.object({
  id: z.string(),
  from: z.string(),
  from_session_id: z.string(),
  broadcast: z.boolean(),
  content: z.string(),
  created_at: z.string(),
});
const heldEntry = z.object({
  file: z.string(),
  session: z.string(),
  session_id: z.string(),
  claim_id: z.string(),
  intent: z.string(),
});

type Released = z.infer<typeof releasedEntry>;

export const wait = defineTool({
  name: 'collab_wait',
  title: 'Wait for news or a release',
  description: 'Wait for news, or until no other session holds files: better than ending your turn.',
  // It reads the caller's messages when they are the news (marking them read, as
  // collab_message_list does): nothing another session or a person sees changes.
  kind: 'write',
  marksOwnRead: true,
  waits: true,
  input: z.strictObject({
    files: list(z.string().min(1), 'filesPerRequest').min(1).optional(),
    wait_seconds: z.number().int().min(1).max(MAX_WAIT_SECONDS).default(DEFAULT_WAIT_SECONDS),
    session_id: sessionIdField,
  }),
  output: z.object({
    outcome: z.enum(['news', 'free', 'timed_out']),
    message: z.string(),
    released: z.array(releasedEntry),
    still_held: z.array(heldEntry),
    messages: z.array(messageEntry),
    waited_ms: z.number(),
  }),
  async handler({ app, connection, call }, input) {
    const session = await connection.actor(input.session_id);
    // Bad paths are refused before any wait.
    if (input.files) normalizeFiles(input.files, session);
    if (waiting >= MAX_WAITING || (perSession.get(session.id) ?? 0) >= MAX_WAITING_PER_SESSION)
      throw new CollabError(
        'INVALID_STATE',
        waiting >= MAX_WAITING
          ? `${MAX_WAITING} calls already wait in this server.`
          : `This session already has ${MAX_WAITING_PER_SESSION} calls waiting.`,
        'Let one of them return first, or go on with other work.',
      );
    waiting++;
    perSession.set(session.id, (perSession.get(session.id) ?? 0) + 1);
    const started = Date.now();
    const deadline = started + input.wait_seconds * 1000;
    let watch: Watch | null = null;
    try {
      watch = await app.wakeups.watch();
      // Holders are read again only when a claim of the project stopped being active (a counter
      // read by one seek), or a while has passed (a holder may have gone inactive): a write of
      // anything else, however frequent, costs a wait one read. The count is read before the
      // holders, here as in the loop: a release committed between the two reads moves it.
      let released = input.files ? await app.claims.releasedCount(session.project_id) : 0;
      const held = input.files ? await holders(app, session, input.files) : [];
      let now = held;
      let readAt = Date.now();
      for (;;) {
        // Sent again (its server died before the answer reached the client), a wait that handed
        // news over then answers with it, read by now, rather than wait for more.
        if ((await hasNews(app, session)) || (await app.messages.handedOver(session))) {
          if (call?.signal.aborted) return done('timed_out', now, []);
          // Cancelled while they were being read: left unread (the answer is never read).
          const messages = await unreadMessages(app, session, call?.signal).catch((error: unknown) => {
            if (call?.signal.aborted) return null;
            throw error;
          });
          return messages === null ? done('timed_out', now, []) : done('news', now, [], messages);
        }
        if (input.files && now.length === 0)
          return done(
            'free',
            now,
            held.length > 0 ? await releasedOf(app, held) : await recentReleases(app, session, input.files),
          );
        // Waiting for files, it looks again once holders are due a new read, whatever is written.
        const woken = await nextChange(
          watch,
          input.files ? Math.min(deadline, readAt + HOLDERS_AGAIN_MS) : deadline,
          call,
        );
        if (woken === 'cancelled' || (woken === 'timed_out' && Date.now() >= deadline))
          return done('timed_out', now, await releasedOf(app, held, now));
        if (!input.files) continue;
        const count = await app.claims.releasedCount(session.project_id);
        if (count !== released || Date.now() - readAt >= HOLDERS_AGAIN_MS) {
          released = count;
          readAt = Date.now();
          now = await holders(app, session, input.files);
        }
      }
    } finally {
      watch?.close();
      waiting--;
      const left = (perSession.get(session.id) ?? 1) - 1;
      if (left > 0) perSession.set(session.id, left);
      else perSession.delete(session.id);
    }

    function done(
      outcome: 'news' | 'free' | 'timed_out',
      still: CheckConflict[],
      released: Released[],
      messages: Array<z.infer<typeof messageEntry>> = [],
    ) {
      const stillHeld = still.map((c) => ({
        file: c.file,
        session: c.session,
        session_id: c.session_id,
        claim_id: c.claim_id,
        intent: c.intent,
      }));
      return {
        outcome,
        message: describeOutcome(outcome, input.files !== undefined, released, stillHeld),
        released,
        still_held: stillHeld,
        messages,
        waited_ms: Date.now() - started + (call?.waitedBefore ?? 0),
      };
    }
  },
  text: (o) =>
    [
      o.message,
      ...o.released.map((r) => `- ${r.file}: "${inline(r.session, 60)}" (${r.session_id}) ${r.how}`),
      ...o.still_held.map(
        (h) =>
          `- ${h.file} still held by "${inline(h.session, 60)}" (${h.session_id}): intent ${shown(h.intent, 120)}`,
      ),
      ...o.messages.map(
        (m) =>
          `[${m.id}] ${m.broadcast ? 'broadcast' : 'message'} from "${inline(m.from, 60)}" (${m.from_session_id}):\n${quoteBlock(m.content, 4_000, 200, '[… cut]')}`,
      ),
    ].join('\n'),
});

/** The live holders of `files` other than the caller, as collab_check sees them. */
async function holders(
  app: Services,
  session: Awaited<ReturnType<Services['sessions']['get']>>,
  files: string[],
): Promise<CheckConflict[]> {
  return (await app.claims.check(session, normalizeFiles(files, session))).conflicts;
}

/** Anything the caller has not been told: a pending notification or an unread message. */
async function hasNews(app: Services, session: { id: string; project_id: string; created_at: number }) {
  const news = await app.messages.news(session);
  return news.pending || news.unread > 0;
}

/** Unread messages (a few), now read: the news is handed over whole, not only announced. */
async function unreadMessages(
  app: Services,
  session: Awaited<ReturnType<Services['sessions']['get']>>,
  cancelled?: AbortSignal,
) {
  const read = await app.messages.list(session, {
    unreadOnly: true,
    markAsRead: true,
    limit: 10,
    via: 'wait',
    cancelled,
  });
  return read.map((m) => ({
    id: m.id,
    from: m.from,
    from_session_id: m.from_session_id,
    broadcast: m.broadcast,
    content: m.content,
    created_at: m.created_at,
  }));
}

/**
 * The next change, or the deadline; the client hears progress every few seconds, and a call looks
 * again at most every `LOOK_EVERY_MS`.
 */
async function nextChange(
  watch: Watch,
  deadline: number,
  call: { signal: AbortSignal; progress(message: string): void } | undefined,
): Promise<'changed' | 'timed_out' | 'cancelled'> {
  const looked = Date.now();
  for (;;) {
    const left = deadline - Date.now();
    const woken = await watch.next(Math.min(left, PROGRESS_EVERY_MS), call?.signal);
    if (woken === 'changed') {
      const early = LOOK_EVERY_MS - (Date.now() - looked);
      if (early > 0)
        await new Promise((r) => setTimeout(r, Math.min(early, Math.max(0, deadline - Date.now()))));
      return 'changed';
    }
    if (woken === 'cancelled' || Date.now() >= deadline) return woken === 'cancelled' ? woken : 'timed_out';
    call?.progress(`Waiting for news or a release (${Math.round((Date.now() - looked) / 1000)} s)…`);
  }
}

/** What became of the claims that held the files at first: those no longer in the way. */
async function releasedOf(
  app: Services,
  first: CheckConflict[],
  still: CheckConflict[] = [],
): Promise<Released[]> {
  const holding = new Set(still.map((c) => c.claim_id));
  const gone = first.filter((c) => !holding.has(c.claim_id));
  const statuses = await app.claims.statuses(gone.map((c) => c.claim_id));
  const out: Released[] = [];
  const seen = new Set<string>();
  for (const c of gone) {
    if (seen.has(`${c.claim_id}\0${c.file}`)) continue;
    seen.add(`${c.claim_id}\0${c.file}`);
    const status = statuses.get(c.claim_id);
    const how =
      status === undefined
        ? 'released'
        : status === 'active'
          ? 'stopped working (its session ended or went inactive)'
          : status;
    out.push({ file: c.file, session: c.session, session_id: c.session_id, claim_id: c.claim_id, how });
  }
  return out;
}

/** How far back a wait that finds its files free at once looks for who released them. */
const RECENT_MS = (MAX_WAIT_SECONDS + 10) * 1000;
/** Files a wait looks that far back for (each is a query). */
const RECENT_FILES = 10;

/**
 * Free at once: who released them lately, if anyone did (the holder was quicker than the wait, or
 * the wait was asked again of the next server after the machine's one died).
 */
async function recentReleases(
  app: Services,
  session: Awaited<ReturnType<Services['sessions']['get']>>,
  files: string[],
): Promise<Released[]> {
  const since = app.now() - RECENT_MS;
  const out: Released[] = [];
  const seen = new Set<string>();
  for (const file of files.slice(0, RECENT_FILES)) {
    const page = await app.claims.list(session, { status: 'all', pathFilter: file, limit: 10 });
    for (const c of page.items) {
      if (c.session_id === session.id || c.status === 'active' || c.released_at === null) continue;
      if (Date.parse(c.released_at) < since || seen.has(c.claim_id)) continue;
      seen.add(c.claim_id);
      out.push({ file, session: c.session, session_id: c.session_id, claim_id: c.claim_id, how: c.status });
    }
  }
  return out;
}

function describeOutcome(
  outcome: 'news' | 'free' | 'timed_out',
  gaveFiles: boolean,
  released: Released[],
  still: Array<{ file: string }>,
): string {
  if (outcome === 'news')
    return `News for you arrived${gaveFiles && still.length > 0 ? ` (${still.length} of the files still held)` : ''}: the messages and notifications below.`;
  if (outcome === 'free')
    return released.length > 0
      ? 'The files are free: no other live session holds them now. Claim them (collab_claim) before editing.'
      : 'No other live session holds these files: go ahead (claim them with collab_claim first).';
  return gaveFiles && still.length > 0
    ? 'Timed out: the files are still held. Message the holder (collab_message_send), wait again, or ask the user.'
    : 'Timed out: nothing new. Go on with your work, or wait again.';
}

export const waitTools = [wait];
