// The machine's server of a home SIGKILLed again and again under a test's load.
import { serverPid, waitFor, waitForExit } from './stdio.js';

/**
 * Kills the machine's server of `home` `kills` times, each once it has run `lifeMs` (past 3 s: a
 * relay does not take its death for a crash loop), and waits for the next to run. `burst(true)`
 * is called `burstMs` before each kill, `burst(false)` once the next server runs. The pids killed.
 */
export async function killServers(
  home: string,
  options: { kills: number; lifeMs: number; burstMs: number; burst: (on: boolean) => void },
): Promise<number[]> {
  const killed: number[] = [];
  for (let k = 0; k < options.kills; k++) {
    await waitFor(() => serverPid(home) !== null, 10_000, 'the next machine server');
    options.burst(false);
    const pid = serverPid(home)!;
    await new Promise((r) => setTimeout(r, options.lifeMs - options.burstMs));
    options.burst(true);
    await new Promise((r) => setTimeout(r, options.burstMs));
    process.kill(pid, 'SIGKILL');
    await waitForExit(pid);
    killed.push(pid);
  }
  await waitFor(() => serverPid(home) !== null, 10_000, 'the last machine server');
  options.burst(false);
  return killed;
}
