import type { Sql } from './sql.js';

/** Named leases: work that one process at a time does (e.g. watching a machine's files). */
export class LeasesStore {
  constructor(private readonly sql: Sql) {}

  /**
   * Takes or renews the lease `name` for `holder` until `until`: true when it holds it now. It
   * takes it only from nobody, from itself, or from a holder whose lease ran out (`now`). One
   * statement each, so two processes never both hold it.
   */
  async hold(name: string, holder: string, pid: number, now: number, until: number): Promise<boolean> {
    const renewed = await this.sql.run(
      'UPDATE leases SET holder = ?, holder_pid = ?, lease_until = ? WHERE name = ? AND (holder = ? OR lease_until < ?)',
      [holder, pid, until, name, holder, now],
    );
    if (renewed.changes > 0) return true;
    const taken = await this.sql.run(
      'INSERT INTO leases (name, holder, holder_pid, lease_until) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO NOTHING',
      [name, holder, pid, until],
    );
    return taken.changes > 0;
  }

  /** Who holds the lease `name` and until when (a read: those not holding it look before they write). */
  holder(name: string): Promise<{ holder: string; lease_until: number } | undefined> {
    return this.sql.get('SELECT holder, lease_until FROM leases WHERE name = ?', [name]);
  }

  /** Gives the lease up, so that another process takes over at once. */
  async release(name: string, holder: string): Promise<void> {
    await this.sql.run('UPDATE leases SET lease_until = 0 WHERE name = ? AND holder = ?', [name, holder]);
  }
}
