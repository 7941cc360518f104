import type { App } from '../../app/app.js';
import type { FeedEvent } from '../../features/hub/event-log.js';
import { hubFor } from '../../features/hub/hub.js';

/** How often the event log is read while someone listens (any process may have written it). */
const POLL_MS = 200;
const BATCH = 500;

/**
 * The live feed of the event log: read while at least one listener is subscribed, and handed to
 * each in order. Every process writes the log (through triggers); this reads it.
 */
export class EventFeed {
  private readonly listeners = new Set<(event: FeedEvent) => void>();
  private last = -1;
  private timer: NodeJS.Timeout | null = null;
  private readonly log;

  constructor(private readonly app: App) {
    this.log = hubFor(app).events;
  }

  /** Events after `id` (a replay), up to `limit`. */
  since(id: number, limit: number): FeedEvent[] {
    return this.log.after(id, limit);
  }

  lastId(): number {
    return this.log.lastId();
  }

  /** The oldest id still kept (older ones were purged). */
  oldestId(): number {
    return this.log.oldestId();
  }

  subscribe(listener: (event: FeedEvent) => void): () => void {
    if (this.listeners.size === 0) {
      this.last = this.log.lastId();
      this.timer = setInterval(() => this.poll(), POLL_MS);
    }
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = null;
      }
    };
  }

  /** The id the live feed has handed out up to: a subscriber replays up to it, then listens. */
  get position(): number {
    return this.last;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.listeners.clear();
  }

  private poll(): void {
    let events: FeedEvent[];
    try {
      events = this.log.after(this.last, BATCH);
    } catch (error) {
      this.app.log.warn('hub.feed_failed', { message: (error as Error).message });
      return;
    }
    for (const event of events) {
      this.last = event.id;
      for (const listener of this.listeners) listener(event);
    }
  }
}
