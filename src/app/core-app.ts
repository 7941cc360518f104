import { hostname } from 'node:os';
import { applyLimits } from '../core/limits.js';
import { ChangesService } from '../features/changes/changes-service.js';
import { ClaimsService } from '../features/claims/claims-service.js';
import { DecisionsService } from '../features/decisions/decisions-service.js';
import { EnforcementService } from '../features/enforcement/enforcement-service.js';
import { InboxService } from '../features/inbox/inbox-service.js';
import { MaintenanceService } from '../features/maintenance/maintenance-service.js';
import { MessagesService } from '../features/messages/messages-service.js';
import { NotificationsService } from '../features/notifications/notifications-service.js';
import { SessionsService } from '../features/sessions/sessions-service.js';
import { writeLockHolder } from '../integrations/lock-holder.js';
import { useSystemRandom } from '../integrations/random-bytes.js';
import { Store } from '../store/store.js';
import { type Config, databaseUrl, loadConfig } from './config.js';
import type { AppContext } from './context.js';
import { type HomePaths, resolveHome } from './home.js';
import { createLogger, type Logger } from './log.js';

export interface AppOptions {
  paths?: HomePaths;
  /** Overrides config.json (tests, benchmarks). */
  config?: Config;
  now?: () => number;
  /**
   * How long to wait for another process's write lock. Commands with a deadline (hooks, the
   * commit guard) wait less than the default, so that they answer in time: SQLite waits inside a
   * synchronous call, where no timer can interrupt it.
   */
  busyTimeoutMs?: number;
  /** An opened store (the team database); by default the embedded file in the home folder. */
  store?: Store;
  /**
   * A hub replica: its pool to the team database holds up to `database_pool_size` connections;
   * any other process's, two.
   */
  serving?: 'hub';
}

/**
 * The wired core: the services every process uses, over one database. The commands that run on
 * every edit or commit (hooks, the commit guard) use it alone; everything else uses `App`, which
 * adds the services only some processes load.
 */
export class CoreApp implements AppContext {
  readonly store: Store;
  readonly config: Config;
  readonly log: Logger;
  readonly paths: HomePaths;
  readonly host = hostname();
  readonly now: () => number;
  readonly notifications: NotificationsService;
  readonly sessions: SessionsService;
  readonly claims: ClaimsService;
  readonly changes: ChangesService;
  readonly messages: MessagesService;
  readonly decisions: DecisionsService;
  readonly maintenance: MaintenanceService;
  readonly enforcement: EnforcementService;
  readonly inbox: InboxService;

  constructor(options: AppOptions = {}) {
    this.paths = options.paths ?? resolveHome();
    this.config = options.config ?? loadConfig(this.paths.config);
    applyLimits(this.config.limits);
    useSystemRandom();
    this.log = createLogger(this.paths.log, this.config.log_level);
    this.now = options.now ?? Date.now;
    this.store =
      options.store ??
      Store.open(this.paths.database, {
        busyTimeoutMs: options.busyTimeoutMs ?? this.config.lock_wait_seconds * 1000,
        lockHolder: writeLockHolder,
      });
    this.notifications = new NotificationsService(this);
    this.claims = new ClaimsService(this, this.notifications);
    this.changes = new ChangesService(this, this.notifications);
    this.sessions = new SessionsService(this, this.claims, this.notifications);
    this.messages = new MessagesService(this, this.sessions, this.notifications);
    this.decisions = new DecisionsService(this);
    this.maintenance = new MaintenanceService(this);
    this.enforcement = new EnforcementService(this, this.sessions, this.claims, this.changes);
    this.inbox = new InboxService(this, this.notifications);
  }

  /**
   * The application over the team database when one is configured (SESSION_COLLAB_DATABASE_URL or
   * `database_url`), else over the embedded file.
   */
  static async open<T extends CoreApp>(
    this: new (
      options: AppOptions,
    ) => T,
    options: AppOptions = {},
  ): Promise<T> {
    if (options.store) return new this(options);
    const paths = options.paths ?? resolveHome();
    const config = options.config ?? loadConfig(paths.config);
    const url = databaseUrl(config);
    const store = url
      ? await Store.openTeam(url, options.serving === 'hub' ? config.database_pool_size : 2, {
          busyTimeoutMs: options.busyTimeoutMs ?? config.lock_wait_seconds * 1000,
        })
      : undefined;
    return new this({ ...options, paths, config, ...(store ? { store } : {}) });
  }

  /** For a long-lived server (the hub, the machine's server): see `Store.checkpointApart`. */
  checkpointApart(): void {
    this.store.checkpointApart((message) => this.log.warn('store.checkpoints_failed', { message }));
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
