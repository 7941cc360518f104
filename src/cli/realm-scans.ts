import type { App } from '../app/app.js';

/** How long after a folder's first connection its realm membership is looked at (off start-up's path). */
const FIRST_SCAN_MS = 200;

/**
 * Realm members' contract and binding changes noticed even when no realm tool is called: each
 * folder a connection works in is scanned every `realm_scan_seconds` while a connection works
 * there, when it is a realm member.
 */
export class RealmScans {
  private readonly folders = new Map<string, { count: number; timers: NodeJS.Timeout[] }>();

  constructor(private readonly app: App) {}

  add(folder: string): void {
    const entry = this.folders.get(folder);
    if (entry) {
      entry.count += 1;
      return;
    }
    const added = { count: 1, timers: [] as NodeJS.Timeout[] };
    this.folders.set(folder, added);
    const first = setTimeout(async () => {
      try {
        const { findMembership } = await import('../integrations/realm-files.js');
        if (!findMembership(folder) || this.folders.get(folder) !== added) return;
        await this.scan(folder);
        const every = setInterval(() => void this.scan(folder), this.app.config.realm_scan_seconds * 1000);
        every.unref();
        added.timers.push(every);
      } catch (error) {
        this.app.log.warn('realm.scan_failed', { message: (error as Error).message });
      }
    }, FIRST_SCAN_MS);
    first.unref();
    added.timers.push(first);
  }

  remove(folder: string): void {
    const entry = this.folders.get(folder);
    if (!entry) return;
    entry.count -= 1;
    if (entry.count > 0) return;
    for (const t of entry.timers) clearTimeout(t);
    this.folders.delete(folder);
  }

  stop(): void {
    for (const entry of this.folders.values()) for (const t of entry.timers) clearTimeout(t);
    this.folders.clear();
  }

  private async scan(folder: string): Promise<void> {
    try {
      await this.app.realm.context(folder);
    } catch (error) {
      this.app.log.warn('realm.scan_failed', { message: (error as Error).message });
    }
  }
}
