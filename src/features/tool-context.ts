import type { z } from 'zod';
import type { Config } from '../app/config.js';
import type { AppContext } from '../app/context.js';
import type { HomePaths } from '../app/home.js';
import type { Logger } from '../app/log.js';
import type { ToolDescriptor } from '../core/tool.js';
import type { AgentsService } from './agents/agents-service.js';
import type { ChangesService } from './changes/changes-service.js';
import type { ClaimsService } from './claims/claims-service.js';
import type { DecisionsService } from './decisions/decisions-service.js';
import type { EnforcementService } from './enforcement/enforcement-service.js';
import type { HubServices } from './hub/hub.js';
import type { QuestionsService } from './human/questions-service.js';
import type { InboxService } from './inbox/inbox-service.js';
import type { LandingService } from './landing/landing-service.js';
import type { MaintenanceService } from './maintenance/maintenance-service.js';
import type { MessagesService } from './messages/messages-service.js';
import type { NotificationsService } from './notifications/notifications-service.js';
import type { RealmService } from './realm/realm-service.js';
import type { ReviewService } from './reviews/review-service.js';
import type { Connection } from './sessions/connection.js';
import type { SessionsService } from './sessions/sessions-service.js';
import type { IdleWakes } from './waits/idle-wakes.js';
import type { Wakeups } from './waits/wakeups.js';

/**
 * What a tool handler (or a command) may use: the services, the settings, log and clock, but not
 * the store: every read and write goes through a service, where the transactions are. The core:
 * what the commands that run on every edit or commit load.
 */
export interface CoreServices {
  readonly config: Config;
  readonly log: Logger;
  readonly paths: HomePaths;
  readonly host: string;
  now(): number;
  readonly sessions: SessionsService;
  readonly claims: ClaimsService;
  readonly changes: ChangesService;
  readonly messages: MessagesService;
  readonly decisions: DecisionsService;
  readonly notifications: NotificationsService;
  readonly maintenance: MaintenanceService;
  readonly enforcement: EnforcementService;
  readonly inbox: InboxService;
}

/** The core and the services only some processes load, each made on first use (`App`). */
export interface Services extends CoreServices {
  readonly human: QuestionsService;
  readonly agents: AgentsService;
  readonly realm: RealmService;
  readonly reviews: ReviewService;
  readonly hub: HubServices;
  readonly wakeups: Wakeups;
  readonly idleWakes: IdleWakes;
  readonly landing: LandingService;
  /** The agents' service when this process made it already (nothing is made): what only its runs need. */
  made(name: 'agents'): AgentsService | undefined;
}

/** The context of one tool call: the services, and the connection it came over. */
export interface ToolContext {
  app: Services;
  connection: Connection;
  /** For a tool that waits (`waits: true`); absent when called from elsewhere (tests, the CLI). */
  call?: CallControls;
}

/** What a waiting call can do besides answer: see it was cancelled, say it still works, ask the person in the client. */
export interface CallControls {
  /** Aborted when the client cancels the request or goes away. */
  signal: AbortSignal;
  /**
   * How long the call waited before it reached this server (a relay sent it again after its server
   * died, `WAITED_MS`); 0 for a call sent once. Its wait is already cut by as much.
   */
  waitedBefore: number;
  /** Tells the client the call is still working (an MCP progress notification, when the request asked for them). */
  progress(message: string): void;
  /**
   * Puts a question to the person in the client (an MCP form elicitation); null when the client
   * cannot show one. `options` become a choice list.
   */
  elicit:
    | ((
        request: { message: string; options: string[] | null },
        options: { signal: AbortSignal; timeoutMs: number },
      ) => Promise<ElicitOutcome>)
    | null;
}

/** What the person did with the client's form. */
export type ElicitOutcome = { action: 'accept'; answer: string } | { action: 'decline' | 'cancel' };

/** The services and what they are built on: what a service sees of the app. */
export type Wiring = Services & AppContext;

/** The core services and what they are built on (the commands that run on every edit or commit). */
export type CoreWiring = CoreServices & AppContext;

export type Tool<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> = ToolDescriptor<
  ToolContext,
  I,
  O
>;

/** Identity, for type inference of a descriptor's handler from its schemas. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(d: Tool<I, O>): Tool<I, O> {
  return d;
}
