import { parseHookInput } from '../../integrations/agent-hooks.js';
import { unrecorded } from '../../store/call-records-store.js';
import type { ClientIdentity } from '../sessions/session-types.js';
import type { Services } from '../tool-context.js';

/**
 * A session not seen idle this soon after its wake hook started went on with its turn (the
 * turn-end hook sent it back, or its person typed): nothing to wake.
 */
const IDLE_GRACE_MS = 10_000;
/**
 * A watch looks again at most this often, however fast others write (each look is a few reads by
 * index; a busy server's writes would otherwise make every idle session's watch read at each one).
 */
const LOOK_EVERY_MS = 250;
/** How often a watch looks whether its session's client still runs, nothing else happening. */
const ALIVE_EVERY_MS = 15_000;

/**
 * Idle sessions watched for news (Claude Code's `asyncRewake` hook, started at each turn's end, asks
 * the machine's server and waits): when something asks the agent to act while its session is idle,
 * the hook is answered with it and wakes the agent. One watch per session (a newer one replaces
 * it); it ends when the session acts again or ends, when the hook goes away, or after
 * `wake_idle_minutes`. Woken by the server's writes and the events table (`Wakeups`), never by
 * reading the database on a timer of its own.
 */
export class IdleWakes {
  private readonly bySession = new Map<string, AbortController>();

  constructor(private readonly app: Services) {}

  /** Watches sessions now. */
  get watching(): number {
    return this.bySession.size;
  }

  /** The news that wakes the session, or null when it is not to be woken (see the class). */
  async wait(
    raw: string,
    cwd: string,
    identity: ClientIdentity,
    signal: AbortSignal,
  ): Promise<string | null> {
    const { app } = this;
    const bound = app.config.wake_idle_minutes * 60_000;
    const input = parseHookInput(raw, cwd, 'wake');
    if (bound <= 0 || input.format !== 'claude' || input.agentId) return null;
    // Only a session its client's other hooks made: a wake never starts one.
    const { session } = await app.enforcement.sessionFor(identity, input.cwd, 'claude-code', false, false);
    if (!session || signal.aborted) return null;
    this.bySession.get(session.id)?.abort();
    const mine = new AbortController();
    this.bySession.set(session.id, mine);
    const stop = AbortSignal.any([signal, mine.signal]);
    const started = Date.now();
    const until = app.now() + bound;
    let watch: Awaited<ReturnType<typeof app.wakeups.watch>> | null = null;
    let sawIdle = false;
    try {
      // Asked again (its server died): news the first ask delivered, read by now, is answered
      // first, whatever the session does meanwhile (its record says it, step by step).
      while (await app.inbox.wokenBefore(session)) {
        const news = await app.inbox.wakeNews(session, stop);
        if (news !== null) return news;
      }
      // Watched: news wakes it, and its person need not be told (Telegram) it waits. This wait's
      // own bookkeeping: not recorded, so that asked again it is set and cleared again.
      await unrecorded(() => app.sessions.wakeWatch(session.id, until));
      watch = await app.wakeups.watch();
      for (;;) {
        const row = await app.sessions.get(session.id).catch(() => null);
        // Ended, or its client gone (killed, closed): nobody to wake.
        if (row?.status !== 'active' || app.sessions.processGone(row)) return null;
        if (row.turn_ended_at !== null) sawIdle = true;
        else if (sawIdle || Date.now() - started > IDLE_GRACE_MS) return null;
        if (sawIdle && (await app.inbox.hasActionable(row))) {
          // Gone meanwhile, even while it was being delivered: nothing is (it waits for the
          // session's next turn, or the next server the hook asks).
          if (stop.aborted) return null;
          const news = await app.inbox.wakeNews(row, stop).catch((error: unknown) => {
            if (stop.aborted) return null;
            throw error;
          });
          if (news !== null) {
            app.log.info('wake.woken', { session: row.id, after_ms: Date.now() - started });
            return news;
          }
        }
        const looked = Date.now();
        const left = started + bound - looked;
        // Until seen idle, looked at again within the grace; then every so often all the same
        // (a client that went away writes nothing).
        const woken = await watch!.next(Math.min(left, sawIdle ? ALIVE_EVERY_MS : 1_000), stop);
        if (woken === 'cancelled' || Date.now() - started >= bound) return null;
        const early = LOOK_EVERY_MS - (Date.now() - looked);
        if (woken === 'changed' && early > 0) await new Promise((r) => setTimeout(r, early));
      }
    } finally {
      watch?.close();
      if (this.bySession.get(session.id) === mine) this.bySession.delete(session.id);
      await unrecorded(() => app.sessions.wakeWatch(session.id, null, until)).catch((error: Error) =>
        app.log.warn('wake.unwatch_failed', { message: error.message }),
      );
    }
  }
}
