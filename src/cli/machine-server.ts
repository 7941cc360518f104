import { existsSync, readFileSync } from 'node:fs';
import { type HubFile, hubFileIn } from '../http/hub.js';
import { processAlive } from '../integrations/process-probe.js';
import { serverFailureFile } from '../integrations/relay-address.js';

/** This home's running hub, as its hub.json says (null when none runs). */
export function runningHub(home: string): HubFile | null {
  try {
    const file = JSON.parse(readFileSync(hubFileIn(home), 'utf8')) as HubFile;
    return typeof file.pid === 'number' && processAlive(file.pid, null) ? file : null;
  } catch {
    return null;
  }
}

/**
 * Stops the server clients' relays started in this home (never a hub a person started): it lets
 * its relays go, and they start another when next needed. Resolves once it has exited (5 s at most).
 */
export async function stopMachineServer(home: string): Promise<boolean> {
  const hub = runningHub(home);
  if (!hub?.machine) return false;
  try {
    process.kill(hub.pid, 'SIGTERM');
  } catch {
    return false;
  }
  const gone = () => {
    try {
      process.kill(hub.pid, 0);
      return false;
    } catch {
      return true;
    }
  };
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline && !gone()) await new Promise((resolve) => setTimeout(resolve, 50));
  return gone();
}

/** `doctor`'s word on the machine's server: running, started with the first client, or why it could not run. */
export function machineServerCheck(home: string): {
  name: string;
  ok: boolean;
  detail: string;
  hint?: string;
} {
  const hub = runningHub(home);
  if (hub)
    return {
      name: 'machine server',
      ok: true,
      detail: `running (pid ${hub.pid}, ${hub.machine ? 'started by a client' : 'a hub started by hand'}) at ${hub.url}`,
    };
  let failure: { at: string; reason: string } | null = null;
  try {
    if (existsSync(serverFailureFile(home)))
      failure = JSON.parse(readFileSync(serverFailureFile(home), 'utf8')) as { at: string; reason: string };
  } catch {
    failure = null;
  }
  if (failure)
    return {
      name: 'machine server',
      ok: false,
      detail: `not running; at ${failure.at} a client could not start it: ${failure.reason.slice(0, 500)}. Its sessions were served in their own processes.`,
      hint: 'Fix what the reason names (the home folder must be writable and allow a Unix socket), then start a client again; `session-collab hub` shows the error in full.',
    };
  return { name: 'machine server', ok: true, detail: 'not running; the first client starts it' };
}
