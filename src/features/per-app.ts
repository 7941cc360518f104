import type { Services, Wiring } from './tool-context.js';

/**
 * A service made on first use and kept for the app's life: for the toolsets whose code only some
 * processes load (the hooks and the commit guard must not pay for realms or reviews). What a
 * handler holds is the app itself, seen through `Services`; the service gets it whole.
 */
export function perApp<T>(make: (app: Wiring) => T): ((app: Services) => T) & {
  /** The service when it was made already (nothing is made). */
  made(app: Services): T | undefined;
} {
  const made = new WeakMap<Services, T>();
  const get = (app: Services) => {
    let service = made.get(app);
    if (service === undefined) {
      service = make(app as Wiring);
      made.set(app, service);
    }
    return service;
  };
  return Object.assign(get, { made: (app: Services) => made.get(app) });
}
