import type { App } from '../../app/app.js';
import { RealmService } from './realm-service.js';

const services = new WeakMap<App, RealmService>();

/**
 * The realm service of an app. Not a field of App: realms load YAML and zod, which the commands
 * that run on every edit (hooks, the commit guard) must not pay for.
 */
export function realmFor(app: App): RealmService {
  let service = services.get(app);
  if (!service) {
    service = new RealmService(app, app.sessions, app.notifications);
    services.set(app, service);
  }
  return service;
}
