import { perApp } from '../per-app.js';
import { RealmService } from './realm-service.js';

/**
 * The realm service of an app. Not a field of App: realms load YAML and zod, which the commands
 * that run on every edit (hooks, the commit guard) must not pay for.
 */
export const realmFor = perApp((app) => new RealmService(app, app.sessions, app.notifications));
