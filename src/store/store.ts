import { ClaimsStore } from './claims-store.js';
import { type Db, immediate, openDatabase, schemaVersion } from './database.js';
import { DecisionsStore } from './decisions-store.js';
import { MessagesStore } from './messages-store.js';
import { MetaStore } from './meta-store.js';
import { NotificationsStore } from './notifications-store.js';
import { ProjectsStore } from './projects-store.js';
import { RealmStateStore } from './realm-state-store.js';
import { ReviewsStore } from './reviews-store.js';
import { SessionsStore } from './sessions-store.js';
import { WorkEventsStore } from './work-events-store.js';
import { WorkItemsStore } from './work-items-store.js';

/** The one way into the database: one module per aggregate, plus transactions. */
export class Store {
  readonly projects: ProjectsStore;
  readonly sessions: SessionsStore;
  readonly claims: ClaimsStore;
  readonly messages: MessagesStore;
  readonly decisions: DecisionsStore;
  readonly meta: MetaStore;
  readonly notifications: NotificationsStore;
  readonly realmState: RealmStateStore;
  readonly workItems: WorkItemsStore;
  readonly reviews: ReviewsStore;
  readonly workEvents: WorkEventsStore;

  constructor(readonly db: Db) {
    this.projects = new ProjectsStore(db);
    this.sessions = new SessionsStore(db);
    this.claims = new ClaimsStore(db);
    this.messages = new MessagesStore(db);
    this.decisions = new DecisionsStore(db);
    this.meta = new MetaStore(db);
    this.notifications = new NotificationsStore(db);
    this.realmState = new RealmStateStore(db);
    this.workItems = new WorkItemsStore(db);
    this.reviews = new ReviewsStore(db);
    this.workEvents = new WorkEventsStore(db);
  }

  static open(file: string, busyTimeoutMs?: number): Store {
    return new Store(openDatabase(file, busyTimeoutMs));
  }

  /** A `BEGIN IMMEDIATE` transaction: for every write that decides on what it reads. */
  write<T>(fn: () => T): T {
    return immediate(this.db, fn);
  }

  schemaVersion(): number {
    return schemaVersion(this.db);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
