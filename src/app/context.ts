import type { Store } from '../store/store.js';
import type { Config } from './config.js';
import type { HomePaths } from './home.js';
import type { Logger } from './log.js';

/**
 * What every feature service may use: the store, configuration, log, clock and host. A leaf: it
 * imports no service, so services depend on it without depending on the app that wires them.
 */
export interface AppContext {
  readonly store: Store;
  readonly config: Config;
  readonly log: Logger;
  readonly paths: HomePaths;
  readonly host: string;
  now(): number;
}
