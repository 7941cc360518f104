import { perApp } from '../per-app.js';
import { AuditTrail } from './audit-trail.js';
import { QuestionsService } from './questions-service.js';

/**
 * The app's questions service (with the sessions' audit trail), made when the human toolset, the
 * CLI or a channel first needs it.
 */
export const humanFor = perApp((app) => new QuestionsService(app, app.notifications, new AuditTrail(app)));
