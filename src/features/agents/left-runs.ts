/**
 * Runs no live server of this machine runs any more: their server was killed before it could end
 * them. Each one is first taken over by this process (one write, so that two servers starting
 * together do not both handle it); then what its CLI left running is ended, and the run recorded.
 */
import type { AppContext } from '../../app/context.js';
import { endLeftGroup } from '../../integrations/agent-cli.js';
import { processAlive, processStartTime } from '../../integrations/process-probe.js';
import type { AgentRunRow } from '../../store/agent-runs-store.js';
import { endRun } from './cli-attempt.js';

/** Whether the server process that runs `row` is alive (one of another machine is taken to be). */
export function runnerLives(app: AppContext, row: AgentRunRow): boolean {
  if (row.runner_pid === null) return false;
  return row.runner_host !== app.host || processAlive(row.runner_pid, row.runner_start);
}

/** Ends the runs that servers of this machine, killed, left queued or running. */
export async function endLeftRuns(app: AppContext): Promise<void> {
  for (const row of await app.store.agentRuns.open()) {
    if (row.runner_host === app.host && !runnerLives(app, row)) await endLeft(app, row);
  }
}

/**
 * Ends a run whose server is gone: taken over first (nothing is done when another process took it
 * meanwhile), then its CLI ended where it still runs, and the run recorded cancelled (lost when
 * nothing of it ran any more).
 */
export async function endLeft(app: AppContext, row: AgentRunRow): Promise<void> {
  const { store } = app;
  const mine = await store.write(() =>
    store.agentRuns.takeOver(row, process.pid, processStartTime(process.pid)),
  );
  if (!mine) return;
  const ended =
    row.runner_host === app.host &&
    (await endLeftGroup(
      row.cli_pgid,
      row.id,
      app.now() - (row.started_at ?? row.created_at),
      app.config.agents.timeout_seconds * 1000,
    ));
  await endRun(
    app,
    row.id,
    ended
      ? {
          status: 'cancelled',
          error: `its server (pid ${row.runner_pid}) stopped without ending it; the ${row.provider} CLI and what it started were ended by the next server`,
        }
      : { status: 'lost', error: 'the server running it stopped' },
  );
}
