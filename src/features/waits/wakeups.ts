import { databaseUrl } from '../../app/config.js';
import type { AppContext } from '../../app/context.js';
import { listenForEvents } from '../hub/team-events.js';

/** How often the events table is read while a call waits (what other processes wrote). */
const POLL_MS = 200;
/** On the team database, LISTEN wakes at once: reading is only a fallback. */
const TEAM_POLL_MS = 1_000;

/** Why a wait for a change ended. */
export type Woken = 'changed' | 'timed_out' | 'cancelled';

/** One waiting call's view of the changes: none is missed between two `next` calls. */
export interface Watch {
  /**
   * Resolves at once if anything changed since this watch began or since the last `next`
   * resolved; else at the next change, after `ms`, or when `signal` aborts, whichever is first.
   */
  next(ms: number, signal?: AbortSignal): Promise<Woken>;
  close(): void;
}

interface Watcher {
  changed: boolean;
  wake: (() => void) | null;
}

/**
 * Wakes calls that wait for something to change (`collab_wait`, the turn-end hook's background
 * wait): at once after a write of this process commits; after a write of another process (a hook
 * that opened the database itself, the CLI, another replica) when the events table's last id moves,
 * read every 200 ms while anything waits and, on the team database, woken by LISTEN/NOTIFY. One
 * reader for the whole process, whatever the number of waits; nothing runs while none waits.
 */
export class Wakeups {
  private readonly watchers = new Set<Watcher>();
  private lastId: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopWrites: (() => void) | null = null;
  private listener: Promise<{ close(): Promise<void> } | null> | null = null;
  private reading: Promise<void> | null = null;
  /** The last look failed: what moved since the one before is unknown, and the next look tells all. */
  private unsure = false;

  constructor(private readonly app: AppContext) {}

  /** Starts watching: resolves once the changes from now on are seen. */
  async watch(): Promise<Watch> {
    const watcher: Watcher = { changed: false, wake: null };
    this.watchers.add(watcher);
    this.start();
    // The last id as of now: a change of another process from here on is seen.
    await this.look();
    return {
      next: (ms, signal) => this.next(watcher, ms, signal),
      close: () => {
        this.watchers.delete(watcher);
        watcher.wake?.();
        if (this.watchers.size === 0) this.idle();
      },
    };
  }

  /** Stops listening (the app is closing). */
  async close(): Promise<void> {
    for (const w of this.watchers) w.wake?.();
    this.watchers.clear();
    this.idle();
    const listener = await this.listener;
    this.listener = null;
    await listener?.close();
  }

  private next(watcher: Watcher, ms: number, signal?: AbortSignal): Promise<Woken> {
    if (watcher.changed) {
      watcher.changed = false;
      return Promise.resolve('changed');
    }
    if (signal?.aborted) return Promise.resolve('cancelled');
    if (ms <= 0) return Promise.resolve('timed_out');
    return new Promise((resolve) => {
      const end = (why: Woken) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        watcher.wake = null;
        if (why === 'changed') watcher.changed = false;
        resolve(why);
      };
      const onAbort = () => end('cancelled');
      const timer = setTimeout(() => end('timed_out'), ms);
      signal?.addEventListener('abort', onAbort, { once: true });
      watcher.wake = () => end('changed');
    });
  }

  private changed(): void {
    for (const w of this.watchers) {
      w.changed = true;
      w.wake?.();
    }
  }

  private start(): void {
    if (!this.stopWrites) this.stopWrites = this.app.store.onWrite(() => this.changed());
    const url = databaseUrl(this.app.config);
    if (url && !this.listener)
      this.listener = listenForEvents(this.app, url, () => this.changed()).catch((error) => {
        this.app.log.warn('wait.listen_failed', { message: (error as Error).message });
        this.listener = null;
        return null;
      });
    if (!this.timer) {
      this.timer = setInterval(() => void this.look(), url ? TEAM_POLL_MS : POLL_MS);
      this.timer.unref();
    }
  }

  /** Reads the events table's last id: moved since the last look, every watch is told. */
  private look(): Promise<void> {
    this.reading ??= (async () => {
      try {
        const id = await this.app.store.events.lastId();
        if (this.unsure || (this.lastId !== null && id !== this.lastId)) this.changed();
        this.lastId = id;
        this.unsure = false;
      } catch (error) {
        // No baseline yet: a change made before the next look that succeeds would be taken as it.
        if (this.lastId === null) this.unsure = true;
        this.app.log.warn('wait.look_failed', { message: (error as Error).message });
      } finally {
        this.reading = null;
      }
    })();
    return this.reading;
  }

  /** Nothing watches: no timer, no write listener (the LISTEN connection stays, for the next wait). */
  private idle(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.stopWrites?.();
    this.stopWrites = null;
    this.lastId = null;
    this.unsure = false;
  }
}
