import { perApp } from '../per-app.js';
import { QuestionsService } from './questions-service.js';

/** The app's questions service, made when the human toolset, the CLI or a channel first needs it. */
export const humanFor = perApp((app) => new QuestionsService(app, app.notifications));
