import type { App } from '../app/app.js';

/**
 * A service made on first use and kept for the app's life: for the toolsets whose code only some
 * processes load (the hooks and the commit guard must not pay for realms or reviews).
 */
export function perApp<T>(make: (app: App) => T): (app: App) => T {
  const made = new WeakMap<App, T>();
  return (app) => {
    let service = made.get(app);
    if (service === undefined) {
      service = make(app);
      made.set(app, service);
    }
    return service;
  };
}
