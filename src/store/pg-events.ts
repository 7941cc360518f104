import type { Client, Notification } from 'pg';
import { Backoff } from '../core/backoff.js';
import { openPgClient } from './pg-database.js';

export const EVENTS_CHANNEL = 'collab_events';

export interface EventListenerOptions {
  url: string;
  /**
   * Something new may be in the events table: called with the id a notification announced, or
   * with null after (re)connecting, when whatever was announced meanwhile is unknown. The reader
   * reads the table after the last id it has, so a reconnect leaves no gap.
   */
  wake(id: number | null): void;
  /** Told when the connection drops and each time it is back. */
  onStatus?(status: 'connected' | 'disconnected', detail?: string): void;
}

/** The longest wait between two attempts to reconnect. */
const MAX_BACKOFF_MS = 5_000;

/**
 * LISTENs on the team database for new events (each replica's triggers NOTIFY their ids), on a
 * connection of its own that it re-opens whenever it drops, with backoff.
 */
export class PgEventListener {
  private client: Client | null = null;
  private closed = false;
  private readonly backoff = new Backoff(100, MAX_BACKOFF_MS);
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly options: EventListenerOptions) {}

  /** Connects (and keeps reconnecting until `close`); resolves once the first LISTEN is in place. */
  async start(): Promise<void> {
    await this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }

  /** The backend pid of the listening connection (for tests and doctor). */
  async backendPid(): Promise<number | null> {
    if (!this.client) return null;
    const { rows } = await this.client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return rows[0]?.pid ?? null;
  }

  private async connect(): Promise<void> {
    const client = openPgClient(this.options.url);
    client.on('notification', (n: Notification) => {
      if (n.channel !== EVENTS_CHANNEL) return;
      const id = Number(n.payload);
      this.options.wake(Number.isSafeInteger(id) ? id : null);
    });
    const dropped = (error?: Error) => {
      if (this.client !== client) return;
      this.client = null;
      client.end().catch(() => {});
      this.options.onStatus?.('disconnected', error?.message);
      this.retry();
    };
    client.on('error', dropped);
    client.on('end', () => dropped());
    try {
      await client.connect();
      await client.query(`LISTEN ${EVENTS_CHANNEL}`);
    } catch (error) {
      client.end().catch(() => {});
      if (this.closed) return;
      this.options.onStatus?.('disconnected', (error as Error).message);
      this.retry();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.backoff.reset();
    this.options.onStatus?.('connected');
    // Whatever was announced while not listening: the reader catches up from its last id.
    this.options.wake(null);
  }

  private retry(): void {
    if (this.closed || this.timer) return;
    const wait = this.backoff.next();
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.connect();
    }, wait);
    this.timer.unref();
  }
}
