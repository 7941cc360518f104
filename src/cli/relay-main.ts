/**
 * The entry of `serve` as clients spawn it: the relay to the machine's server, bundled on its own
 * (dist/relay.cjs: no SDK, no zod, no commander, none of the hooks' code), so that a client's
 * server starts in little more than Node's own start.
 */
import { relay } from './relay.js';

void relay(process.argv.slice(3));
