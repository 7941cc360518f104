import type { App } from '../../app/app.js';
import type { FeedEvent } from '../../features/hub/event-log.js';

/** How often the event log is read (any process may have written it). */
const POLL_MS = 200;
/** On the team database, a notification wakes the reader at once: reading is only a fallback. */
const TEAM_POLL_MS = 1_000;
const BATCH = 500;

/** Something that says when new events may be in the log (the team database's LISTEN). */
export interface FeedWaker {
  close(): Promise<void>;
}

/**
 * The live feed of the event log, handed to each listener in order. Every process (and, on the
 * team database, every replica) writes the log through triggers; this reads it after the last id
 * it has handed out, every `POLL_MS`, and at once when woken. Ids are committed in order (writes
 * take turns on both backends), so reading after the last id leaves no gap, whatever wakes it.
 */
export class EventFeed {
  private readonly listeners = new Set<(event: FeedEvent) => void>();
  private last = -1;
  private timer: NodeJS.Timeout | null = null;
  private reading: Promise<void> | null = null;
  private again = false;
  private waker: FeedWaker | null = null;
  private readonly log;

  private constructor(private readonly app: App) {
    this.log = app.hub.events;
  }

  /**
   * Starts reading from the log's current end. `listen` (team mode) is given the feed's `wake` and
   * returns what to close with the feed.
   */
  static async start(app: App, listen?: (wake: () => void) => Promise<FeedWaker>): Promise<EventFeed> {
    const feed = new EventFeed(app);
    feed.last = await feed.log.lastId();
    feed.timer = setInterval(() => feed.wake(), listen ? TEAM_POLL_MS : POLL_MS);
    feed.timer.unref();
    if (listen) feed.waker = await listen(() => feed.wake());
    return feed;
  }

  /** Events after `id` (a replay), up to `limit`. */
  since(id: number, limit: number): Promise<FeedEvent[]> {
    return this.log.after(id, limit);
  }

  lastId(): Promise<number> {
    return this.log.lastId();
  }

  /** The oldest id still kept (older ones were purged). */
  oldestId(): Promise<number> {
    return this.log.oldestId();
  }

  /** Hands each event after `position` to `listener`, until the returned function is called. */
  subscribe(listener: (event: FeedEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** The id the live feed has handed out up to: a subscriber replays up to it, then listens. */
  get position(): number {
    return this.last;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.listeners.clear();
    await this.waker?.close();
  }

  /** Reads the log now (or right after the read under way). */
  wake(): void {
    if (this.reading !== null) {
      this.again = true;
      return;
    }
    this.reading = this.read().finally(() => {
      this.reading = null;
      if (this.again && this.timer) {
        this.again = false;
        this.wake();
      }
    });
  }

  private async read(): Promise<void> {
    // Nobody listens (no dashboard open): the position moves to the log's end, and no event is
    // described (a claim's, say, reads the claim: under many clients, two reads a claim made).
    // A subscriber replays from where it starts itself.
    // (One that subscribed while the end was read is handed what came after the position it saw.)
    if (this.listeners.size === 0) {
      let end: number;
      try {
        end = await this.log.lastId();
      } catch (error) {
        this.app.log.warn('hub.feed_failed', { message: (error as Error).message });
        return;
      }
      if (this.listeners.size === 0) {
        this.last = Math.max(this.last, end);
        return;
      }
    }
    let events: FeedEvent[];
    do {
      try {
        events = await this.log.after(this.last, BATCH);
      } catch (error) {
        this.app.log.warn('hub.feed_failed', { message: (error as Error).message });
        return;
      }
      for (const event of events) {
        this.last = event.id;
        for (const listener of this.listeners) {
          try {
            listener(event);
          } catch (error) {
            this.app.log.warn('hub.feed_listener_failed', { message: (error as Error).message });
          }
        }
      }
    } while (events.length === BATCH && this.timer);
  }
}
