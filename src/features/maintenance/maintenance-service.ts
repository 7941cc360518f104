import type { AppContext } from '../../app/context.js';
import { NOTIFICATION_TTL_MS } from '../../core/notifications.js';
import { CALL_RECORDS_KEPT_MS } from '../../store/call-records-store.js';
import { SIGHTINGS_KEPT_MS } from '../../store/sightings-store.js';

const LAST_VERIFY = 'last_verify_at';
const VERIFY_INTERVAL_MS = 10 * 60_000;
const LAST_PURGE = 'last_purge_at';

export interface PurgeResult {
  sessions: number;
  claims: number;
  messages: number;
  expired: number;
  notifications: number;
}

/** Housekeeping: expires claims past their time-to-live and purges old rows after the retention period. */
export class MaintenanceService {
  constructor(private readonly app: AppContext) {}

  /** Purges if the last purge (by any process) is older than the configured interval. */
  /**
   * SQLite's quick check of the whole file, when no process ran it in the last ten minutes: it
   * reads every page, which on a large database is seconds a server would not answer in, so many
   * servers starting together share one. A damaged file is refused for writes from then on.
   */
  async verifyIfDue(): Promise<{ ok: boolean; detail: string } | null> {
    const { store } = this.app;
    const now = this.app.now();
    let last = 0;
    try {
      last = Number((await store.meta.get(LAST_VERIFY)) ?? 0);
    } catch {
      // unreadable: check
    }
    if (now - last < VERIFY_INTERVAL_MS) return null;
    const result = await store.verify();
    if (result.ok) await store.write(() => store.meta.set(LAST_VERIFY, String(now)));
    return result;
  }

  purgeIfDue(): Promise<PurgeResult | null> {
    const { store, config } = this.app;
    const now = this.app.now();
    return store.write(async () => {
      const last = Number((await store.meta.get(LAST_PURGE)) ?? 0);
      if (now - last < config.purge_interval_minutes * 60_000) return null;
      return this.purgeNow();
    });
  }

  async purgeNow(): Promise<PurgeResult> {
    const { store, config } = this.app;
    const now = this.app.now();
    const before = now - config.retention_days * 86_400_000;
    const result = await store.write(async () => {
      const expired = (await store.claims.expireDue(now)).length;
      // Sessions silent for the whole retention period are ended; what they held is abandoned.
      for (const id of await store.sessions.silentSince(before)) {
        await store.claims.releaseAllOf(id, 'abandoned', 'released: the session went silent', now);
        await store.sessions.end(id, now, 'silent');
      }
      const claims = await store.claims.purgeReleased(before);
      const messages = await store.messages.purgeOlderThan(before);
      // Notifications expire after 7 days, and go once the retention period has passed too.
      await store.notifications.expire(now - NOTIFICATION_TTL_MS);
      const notifications = await store.notifications.purgeExpired(
        Math.min(before, now - NOTIFICATION_TTL_MS),
      );
      const sessions = await store.sessions.purgeEnded(before);
      // The dashboard's event log keeps a day (and at least the last 10,000 events); the hub's MCP
      // sessions, logins and cookies go once unused for the retention period or expired.
      await store.events.purge(now - 86_400_000, 10_000);
      // What hooks saw sessions do matters for minutes (the watcher also forgets it as it goes).
      await store.sightings.purge(now - SIGHTINGS_KEPT_MS, 10_000);
      await store.hub.purge(before, now);
      // What a call's writes did matters until its answer reached its client: left over only by
      // clients that went away before it did.
      await store.callRecords.purge(now - CALL_RECORDS_KEPT_MS);
      // Landing outcomes, and what landed work met, go with the retention period.
      await store.landings.purge(before);
      await store.meta.set(LAST_PURGE, String(now));
      return { sessions, claims, messages, expired, notifications };
    });
    this.app.log.info('purge', { ...result });
    return result;
  }
}
