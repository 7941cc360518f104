import { perApp } from '../per-app.js';
import { DashboardLogins } from './dashboard-logins.js';
import { DashboardViews } from './dashboard-views.js';
import { EventLog } from './event-log.js';
import { HubSessions } from './hub-sessions.js';
import { HubTokens } from './hub-tokens.js';
import { PersonActions } from './person-actions.js';

/** The hub's services: agents' tokens, MCP sessions over HTTP, dashboard logins. */
export const hubFor = perApp((app) => ({
  tokens: new HubTokens(app),
  sessions: new HubSessions(app),
  logins: new DashboardLogins(app),
  views: new DashboardViews(app),
  events: new EventLog(app),
  /** What a person does from the dashboard. */
  dashboardPerson: new PersonActions(app, { name: 'a person (dashboard)', via: 'web' }),
}));
