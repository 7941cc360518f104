import type { Wiring } from '../tool-context.js';
import { DashboardLogins } from './dashboard-logins.js';
import { DashboardViews } from './dashboard-views.js';
import { EventLog } from './event-log.js';
import { HubSessions } from './hub-sessions.js';
import { HubTokens } from './hub-tokens.js';
import { PersonActions } from './person-actions.js';

/** The hub's services: agents' tokens, MCP sessions over HTTP, dashboard logins. */
export class HubServices {
  readonly tokens: HubTokens;
  readonly sessions: HubSessions;
  readonly logins: DashboardLogins;
  readonly views: DashboardViews;
  readonly events: EventLog;
  /** What a person does from the dashboard. */
  readonly dashboardPerson: PersonActions;

  constructor(app: Wiring) {
    this.tokens = new HubTokens(app);
    this.sessions = new HubSessions(app);
    this.logins = new DashboardLogins(app);
    this.views = new DashboardViews(app);
    this.events = new EventLog(app);
    this.dashboardPerson = new PersonActions(app, { name: 'a person (dashboard)', via: 'web' });
  }
}
