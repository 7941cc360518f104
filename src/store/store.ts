import type { CollabError } from '../core/errors.js';
import { damagedDatabase, type LockHolder, lockedDatabase } from '../core/storage-faults.js';
import { AgentRunsStore } from './agent-runs-store.js';
import { ClaimsStore } from './claims-store.js';
import { DashboardStore } from './dashboard-store.js';
import {
  type Db,
  DEFAULT_BUSY_TIMEOUT_MS,
  immediate,
  isBusy,
  openDatabase,
  schemaVersion,
  whileBusy,
} from './database.js';
import { DecisionsStore } from './decisions-store.js';
import { EventsStore } from './events-store.js';
import { HubStore } from './hub-store.js';
import { MessagesStore } from './messages-store.js';
import { MetaStore } from './meta-store.js';
import { NotificationsStore } from './notifications-store.js';
import { ProjectsStore } from './projects-store.js';
import { QuestionsStore } from './questions-store.js';
import { RealmStateStore } from './realm-state-store.js';
import { RealmsStore } from './realms-store.js';
import { ReviewsStore } from './reviews-store.js';
import { SessionsStore } from './sessions-store.js';
import { type SqlDatabase, sqliteSql } from './sql.js';
import { TelegramStore } from './telegram-store.js';
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

  constructor(
    readonly db: Db,
    private readonly options: StoreOptions = {},
  ) {}

  private module<T>(name: string, make: (db: Db) => T): T {
    let m = this.modules.get(name) as T | undefined;
    if (m === undefined) {
      m = make(this.db);
      this.modules.set(name, m);
    }
    return m;
  }

  get projects(): ProjectsStore {
    return this.module('projects', (db) => new ProjectsStore(db));
  }
  get sessions(): SessionsStore {
    return this.module('sessions', (db) => new SessionsStore(db));
  }
  get claims(): ClaimsStore {
    return this.module('claims', (db) => new ClaimsStore(db));
  }
  get messages(): MessagesStore {
    return this.module('messages', (db) => new MessagesStore(db));
  }
  get decisions(): DecisionsStore {
    return this.module('decisions', () => new DecisionsStore(this.sql));
  }
  /**
   * The asynchronous SQL interface over this database (store/sql.ts), that the store modules move
   * onto one by one so that the team database can stand behind them.
   */
  get sql(): SqlDatabase {
    return this.module('sql', (db) => sqliteSql(db, this.options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS));
  }
  get meta(): MetaStore {
    return this.module('meta', (db) => new MetaStore(db));
  }
  get notifications(): NotificationsStore {
    return this.module('notifications', (db) => new NotificationsStore(db));
  }
  get realms(): RealmsStore {
    return this.module('realms', (db) => new RealmsStore(db));
  }
  get realmState(): RealmStateStore {
    return this.module('realmState', (db) => new RealmStateStore(db));
  }
  get workItems(): WorkItemsStore {
    return this.module('workItems', (db) => new WorkItemsStore(db));
  }
  get reviews(): ReviewsStore {
    return this.module('reviews', (db) => new ReviewsStore(db));
  }
  get workEvents(): WorkEventsStore {
    return this.module('workEvents', (db) => new WorkEventsStore(db));
  }
  get questions(): QuestionsStore {
    return this.module('questions', (db) => new QuestionsStore(db));
  }
  get agentRuns(): AgentRunsStore {
    return this.module('agentRuns', (db) => new AgentRunsStore(db));
  }
  get telegram(): TelegramStore {
    return this.module('telegram', (db) => new TelegramStore(db));
  }
  get hub(): HubStore {
    return this.module('hub', (db) => new HubStore(db));
  }
  get dashboard(): DashboardStore {
    return this.module('dashboard', (db) => new DashboardStore(db));
  }
  get events(): EventsStore {
    return this.module('events', (db) => new EventsStore(db));
  }

  static open(file: string, options: StoreOptions = {}): Store {
    return new Store(openDatabase(file, options.busyTimeoutMs, options.lockHolder), options);
  }

  /**
   * A `BEGIN IMMEDIATE` transaction: for every write that decides on what it reads. It waits for
   * another process's write lock up to the busy timeout (SQLite refuses some locks without waiting:
   * those are asked for again until then); past it, a DB_BUSY error names the holder.
   */
  write<T>(fn: () => T): T {
    if (this.damage) throw this.damage;
    const wait = this.options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
    const started = Date.now();
    try {
      return whileBusy(wait, () => immediate(this.db, fn));
    } catch (error) {
      if (!isBusy(error)) throw error;
      throw lockedDatabase(
        this.db.name,
        Date.now() - started,
        this.options.lockHolder?.(this.db.name) ?? null,
      );
    }
  }

  /**
   * SQLite's quick check of the whole file (it reads every page: run it off the request path).
   * A damaged file is refused for writes from then on, so that nothing more is built on it.
   */
  verify(): { ok: boolean; detail: string } {
    let detail: string;
    try {
      detail = String(this.db.pragma('quick_check', { simple: true }));
    } catch (error) {
      // Pages too damaged to read at all.
      detail = (error as Error).message;
    }
    if (detail !== 'ok') this.damage = damagedDatabase(this.db.name, `quick_check: ${detail}`);
    return { ok: detail === 'ok', detail };
  }

  /** What `doctor` reports: schema version, journal mode, SQLite's quick check and version. */
  health(): { version: number; journal: string; integrity: string; sqlite: string } {
    return {
      version: schemaVersion(this.db),
      journal: String(this.db.pragma('journal_mode', { simple: true })),
      integrity: String(this.db.pragma('quick_check', { simple: true })),
      sqlite: (this.db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v,
    };
  }

  schemaVersion(): number {
    return schemaVersion(this.db);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
