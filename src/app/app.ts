import { AgentsService } from '../features/agents/agents-service.js';
import { HubServices } from '../features/hub/hub.js';
import { AuditTrail } from '../features/human/audit-trail.js';
import { QuestionsService } from '../features/human/questions-service.js';
import { LandingService } from '../features/landing/landing-service.js';
import { RealmService } from '../features/realm/realm-service.js';
import { ReviewService } from '../features/reviews/review-service.js';
import type { Services } from '../features/tool-context.js';
import { IdleWakes } from '../features/waits/idle-wakes.js';
import { Wakeups } from '../features/waits/wakeups.js';
import { CoreApp } from './core-app.js';

export type { AppOptions } from './core-app.js';

/** The services made on first use, by name. */
interface MadeOnUse {
  human: QuestionsService;
  agents: AgentsService;
  realm: RealmService;
  reviews: ReviewService;
  hub: HubServices;
  wakeups: Wakeups;
  idleWakes: IdleWakes;
  landing: LandingService;
}

/**
 * The whole application: the core, and the services only some processes use, each made on its
 * first use and kept for the app's life (a `serve` that never reviews builds no review service).
 * Every service is a property of the app: there is no other way to reach one.
 */
export class App extends CoreApp implements Services {
  readonly #made: Partial<MadeOnUse> = {};

  /** Questions to a person, with the sessions' audit trail. */
  get human(): QuestionsService {
    return this.#once('human', () => new QuestionsService(this, this.notifications, new AuditTrail(this)));
  }

  /** Agent CLIs run as sub-workers. */
  get agents(): AgentsService {
    return this.#once('agents', () => new AgentsService(this));
  }

  get realm(): RealmService {
    return this.#once('realm', () => new RealmService(this, this.sessions, this.notifications));
  }

  get reviews(): ReviewService {
    return this.#once('reviews', () => new ReviewService(this, this.sessions, this.notifications));
  }

  /** The hub's services: agents' tokens, MCP sessions over HTTP, the dashboard. */
  get hub(): HubServices {
    return this.#once('hub', () => new HubServices(this));
  }

  /** What wakes calls that wait for news or for a release. */
  get wakeups(): Wakeups {
    return this.#once('wakeups', () => new Wakeups(this));
  }

  /** Idle sessions watched for news that wakes them (Claude Code's wake hook). */
  get idleWakes(): IdleWakes {
    return this.#once('idleWakes', () => new IdleWakes(this));
  }

  /** The landing queue: requests, and landing this machine's (features/landing/). */
  get landing(): LandingService {
    return this.#once(
      'landing',
      () =>
        new LandingService({
          app: this,
          enforcement: this.enforcement,
          changes: this.changes,
          notifications: this.notifications,
          sessions: this.sessions,
          wakeups: this.wakeups,
        }),
    );
  }

  override async close(): Promise<void> {
    this.#made.landing?.stop();
    await this.#made.wakeups?.close();
    await super.close();
  }

  /** A service when it was made already; nothing is made. */
  made<K extends keyof MadeOnUse>(name: K): MadeOnUse[K] | undefined {
    return this.#made[name];
  }

  #once<K extends keyof MadeOnUse>(name: K, make: () => MadeOnUse[K]): MadeOnUse[K] {
    const service: MadeOnUse[K] = this.#made[name] ?? make();
    this.#made[name] = service;
    return service;
  }
}
