import type { CollabError } from '../core/errors.js';
import { damagedDatabase, type LockHolder, lockedDatabase } from '../core/storage-faults.js';
import { describeTeamDatabaseFault } from '../core/team-database-faults.js';
import { AgentRunsStore } from './agent-runs-store.js';
import {
  type CallRecording,
  CallRecordsStore,
  DoneElsewhere,
  FORGOTTEN_TOGETHER,
  insideWrite,
  nextStepOf,
  recordedCall,
  stepOf,
} from './call-records-store.js';
import { ChangesStore } from './changes-store.js';
import { type Checkpoints, checkpointsApart } from './checkpoints.js';
import { ClaimPatternsStore } from './claim-patterns-store.js';
import { ClaimWaitsStore } from './claim-waits-store.js';
import { ClaimsStore } from './claims-store.js';
import { DashboardStore } from './dashboard-store.js';
import { type Db, DEFAULT_BUSY_TIMEOUT_MS, isBusy, openDatabase, schemaVersion } from './database.js';
import { DecisionsStore } from './decisions-store.js';
import { EventsStore } from './events-store.js';
import { HubStore } from './hub-store.js';
import { IdPrefixesStore } from './id-prefixes.js';
import { LandingsStore } from './landings-store.js';
import { LeasesStore } from './leases-store.js';
import { MessagesStore } from './messages-store.js';
import { MetaStore } from './meta-store.js';
import { NotificationsStore } from './notifications-store.js';
import { migratePg, openPgPool } from './pg-database.js';
import { ProjectsStore } from './projects-store.js';
import { QuestionsStore } from './questions-store.js';
import { RealmStateStore } from './realm-state-store.js';
import { RealmsStore } from './realms-store.js';
import { ReviewsStore } from './reviews-store.js';
import { SessionsStore } from './sessions-store.js';
import { SightingsStore } from './sightings-store.js';
import {
  type Dialect,
  postgresSql,
  type SqlDatabase,
  type SqliteSqlDatabase,
  sqliteSql,
  type WriteScope,
} from './sql.js';
import { pragmaValue } from './sqlite.js';
import { TelegramStore } from './telegram-store.js';
import { TimelineStore } from './timeline-store.js';
import { WorkEventsStore } from './work-events-store.js';
import { WorkItemsStore } from './work-items-store.js';

export interface StoreOptions {
  /** How long a write waits for another process's write lock. */
  busyTimeoutMs?: number;
  /** Who holds the database's write lock, where the system can tell (named in DB_BUSY). */
  lockHolder?: (file: string) => LockHolder | null;
}

/**
 * The one way into the database: one module per aggregate, plus transactions. Each module prepares
 * its statements when first used, so that a short process (a hook) prepares only what it runs.
 */
export class Store {
  private readonly modules = new Map<string, unknown>();
  /** Set once the file is known to be damaged: writes are refused from then on, with why. */
  private damage: CollabError | null = null;
  private checkpoints: Checkpoints | null = null;
  /** Told after each write of this process commits (`onWrite`). */
  private readonly written = new Set<() => void>();

  /**
   * @param sql the asynchronous SQL interface (store/sql.ts) every module speaks, over either backend
   * @param db the embedded SQLite file underneath, or null on the team database
   */
  constructor(
    readonly sql: SqlDatabase,
    readonly db: Db | null,
    private readonly options: StoreOptions = {},
  ) {}

  get dialect(): Dialect {
    return this.sql.dialect;
  }

  private module<T>(name: string, make: () => T): T {
    let m = this.modules.get(name) as T | undefined;
    if (m === undefined) {
      m = make();
      this.modules.set(name, m);
    }
    return m;
  }

  get projects(): ProjectsStore {
    return this.module('projects', () => new ProjectsStore(this.sql));
  }
  get sessions(): SessionsStore {
    return this.module('sessions', () => new SessionsStore(this.sql));
  }
  get claims(): ClaimsStore {
    return this.module('claims', () => new ClaimsStore(this.sql));
  }
  /** What claims hold where (the read side of every overlap). */
  get claimWaits(): ClaimWaitsStore {
    return this.module('claimWaits', () => new ClaimWaitsStore(this.sql));
  }
  get claimPatterns(): ClaimPatternsStore {
    return this.module('claimPatterns', () => new ClaimPatternsStore(this.sql));
  }
  get changes(): ChangesStore {
    return this.module('changes', () => new ChangesStore(this.sql));
  }
  get sightings(): SightingsStore {
    return this.module('sightings', () => new SightingsStore(this.sql));
  }
  /** The landing queue (features/landing/). */
  get landings(): LandingsStore {
    return this.module('landings', () => new LandingsStore(this.sql));
  }
  get leases(): LeasesStore {
    return this.module('leases', () => new LeasesStore(this.sql));
  }
  get messages(): MessagesStore {
    return this.module('messages', () => new MessagesStore(this.sql));
  }
  get decisions(): DecisionsStore {
    return this.module('decisions', () => new DecisionsStore(this.sql));
  }
  get meta(): MetaStore {
    return this.module('meta', () => new MetaStore(this.sql));
  }
  get notifications(): NotificationsStore {
    return this.module('notifications', () => new NotificationsStore(this.sql));
  }
  get realms(): RealmsStore {
    return this.module('realms', () => new RealmsStore(this.sql));
  }
  get realmState(): RealmStateStore {
    return this.module('realmState', () => new RealmStateStore(this.sql));
  }
  get workItems(): WorkItemsStore {
    return this.module('workItems', () => new WorkItemsStore(this.sql));
  }
  get reviews(): ReviewsStore {
    return this.module('reviews', () => new ReviewsStore(this.sql));
  }
  get workEvents(): WorkEventsStore {
    return this.module('workEvents', () => new WorkEventsStore(this.sql));
  }
  get questions(): QuestionsStore {
    return this.module('questions', () => new QuestionsStore(this.sql));
  }
  get agentRuns(): AgentRunsStore {
    return this.module('agentRuns', () => new AgentRunsStore(this.sql));
  }
  get telegram(): TelegramStore {
    return this.module('telegram', () => new TelegramStore(this.sql));
  }
  get hub(): HubStore {
    return this.module('hub', () => new HubStore(this.sql));
  }
  get dashboard(): DashboardStore {
    return this.module('dashboard', () => new DashboardStore(this.sql));
  }
  get timeline(): TimelineStore {
    return this.module('timeline', () => new TimelineStore(this.sql));
  }
  get events(): EventsStore {
    return this.module('events', () => new EventsStore(this.sql));
  }
  /** What the writes of calls a client may send again did (store/call-records-store.ts). */
  get callRecords(): CallRecordsStore {
    return this.module('callRecords', () => new CallRecordsStore(this.sql));
  }
  get ids(): IdPrefixesStore {
    return this.module('ids', () => new IdPrefixesStore(this.sql));
  }

  /** The embedded database: a SQLite file, created and migrated as needed. */
  static open(file: string, options: StoreOptions = {}): Store {
    const db = openDatabase(file, options.busyTimeoutMs, options.lockHolder);
    return new Store(sqliteSql(db, options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS), db, options);
  }

  /** The team database on PostgreSQL, brought up to the current schema. */
  static async openTeam(url: string, poolSize?: number, options: StoreOptions = {}): Promise<Store> {
    const pool = openPgPool(url, poolSize);
    try {
      await migratePg(pool);
    } catch (error) {
      await pool.end().catch(() => {});
      throw describeTeamDatabaseFault(error, url) ?? error;
    }
    return new Store(postgresSql(pool, options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS), null, options);
  }

  /**
   * A `BEGIN IMMEDIATE` transaction: for every write that decides on what it reads. It waits for
   * another process's write lock up to the busy timeout (SQLite refuses some locks without waiting:
   * those are asked for again until then); past it, a DB_BUSY error names the holder. A `scope`
   * (the one project it decides on) lets the team database run it beside other projects' writes.
   */
  async write<T>(fn: () => Promise<T>, scope?: WriteScope): Promise<T> {
    if (this.damage) throw this.damage;
    const call = recordedCall();
    const result = await (call ? this.recordedWrite(call, fn, scope) : this.transaction(fn, scope));
    // A write nested in another tells early (and the outer one again once it commits): what is
    // told is only "look again".
    for (const listener of this.written) listener();
    return result;
  }

  /**
   * Whether, in a call sent again, the next run of the write `fn` was done when the call was sent
   * before (its record holds what it returned): a call that decided on what was true then (a wait
   * that handed news over) decides the same, though it is no longer so.
   */
  async doneBefore(fn: () => Promise<unknown>): Promise<boolean> {
    const call = recordedCall();
    if (!call?.again) return false;
    return (await this.callRecords.get(call.call, nextStepOf(call, fn))) !== undefined;
  }

  /**
   * Calls `listener` after every write of this process (what waits for news looks again); the
   * returned function stops it. Writes of other processes are seen in the events table.
   */
  onWrite(listener: () => void): () => void {
    this.written.add(listener);
    return () => this.written.delete(listener);
  }

  /**
   * A write of a call whose writes are recorded (store/call-records-store.ts): done once. In a call
   * sent again, a step already done returns what it returned then; otherwise it runs, and what it
   * returns is recorded in its transaction, with the records of the client's calls answered since
   * forgotten once `FORGOTTEN_TOGETHER` wait.
   */
  private async recordedWrite<T>(call: CallRecording, fn: () => Promise<T>, scope?: WriteScope): Promise<T> {
    const step = stepOf(call, fn);
    const answered = call.answered.length >= FORGOTTEN_TOGETHER ? call.answered.splice(0) : [];
    try {
      return await this.transaction(
        () =>
          insideWrite(call, async () => {
            await this.callRecords.forget(answered);
            // Asked inside the write: a server replaced while it ran this call may still be
            // finishing it. Whichever of the two writes first does the step; the other answers
            // from its record (an original finding it recorded undoes its own run: below).
            call.fromRecord = false;
            if (call.again) {
              const done = await this.callRecords.get(call.call, step);
              call.fromRecord = done !== undefined;
              if (done) return done.value as T;
            }
            const value = await fn();
            const kept = await this.callRecords.put(call.call, step, value, Date.now());
            if (kept === 'taken') throw new DoneElsewhere();
            if (kept === 'kept') call.wrote = true;
            return value;
          }),
        scope,
      );
    } catch (error) {
      call.answered.push(...answered);
      if (!(error instanceof DoneElsewhere)) throw error;
      // Rolled back: the step's effect stands as the other server's run made it.
      const done = await this.callRecords.get(call.call, step);
      if (!done) throw error;
      call.fromRecord = true;
      return done.value as T;
    }
  }

  private async transaction<T>(fn: () => Promise<T>, scope?: WriteScope): Promise<T> {
    const started = Date.now();
    try {
      return await this.sql.write(fn, scope);
    } catch (error) {
      if (!this.db || !isBusy(error)) throw error;
      throw lockedDatabase(
        this.db.name,
        Date.now() - started,
        this.options.lockHolder?.(this.db.name) ?? null,
      );
    }
  }

  /**
   * SQLite's quick check of the whole file. It reads every page: in a long-lived server it runs on
   * the checkpointer's thread, with that thread's connection, so that no call waits for it.
   * A damaged file is refused for writes from then on, so that nothing more is built on it.
   */
  async verify(): Promise<{ ok: boolean; detail: string }> {
    if (!this.db) return { ok: true, detail: 'ok' };
    let detail = (await this.checkpoints?.quickCheck()) ?? null;
    if (detail === null) {
      try {
        detail = String(pragmaValue(this.db, 'quick_check'));
      } catch (error) {
        // Pages too damaged to read at all.
        detail = (error as Error).message;
      }
    }
    if (detail !== 'ok') this.damage = damagedDatabase(this.db.name, `quick_check: ${detail}`);
    return { ok: detail === 'ok', detail };
  }

  /** What `doctor` reports: schema version, journal mode, SQLite's quick check and version. */
  health(): { version: number; journal: string; integrity: string; sqlite: string; driver: string } {
    if (!this.db) throw new Error('health() is of the embedded database');
    return {
      version: schemaVersion(this.db),
      journal: String(pragmaValue(this.db, 'journal_mode')),
      integrity: String(pragmaValue(this.db, 'quick_check')),
      sqlite: (this.db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v,
      driver: this.db.driver,
    };
  }

  async schemaVersion(): Promise<number> {
    if (this.db) return schemaVersion(this.db);
    const row = await this.sql.get<{ value: string }>("SELECT value FROM meta WHERE key = 'schema_version'");
    return Number(row?.value ?? 0);
  }

  /**
   * For a long-lived server: the embedded file's checkpoints on a thread of their own
   * (store/checkpoints.ts), so that its commits never wait for the file's fsyncs.
   */
  checkpointApart(onFailure: (message: string) => void): void {
    if (!this.db || this.checkpoints) return;
    const checkpoints = checkpointsApart(this.db, {
      busyTimeoutMs: this.options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS,
      onFailure,
    });
    this.checkpoints = checkpoints;
    if (checkpoints && 'gateWrites' in this.sql)
      (this.sql as SqliteSqlDatabase).gateWrites(() => checkpoints.gate());
  }

  async close(): Promise<void> {
    await this.checkpoints?.stop();
    // Through the SQL interface: a write whose group has not committed yet (a read may have seen
    // it already, and told the user) commits before the file closes, never rolled back by it.
    if (!this.db || this.db.open) await this.sql.close();
  }
}
