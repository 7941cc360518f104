/**
 * Runs no live server of this machine runs any more: their server was killed before it could end
 * them. Each one's CLI, when it still runs, is ended with what it started; the run is recorded.
 */
import type { AppContext } from '../../app/context.js';
import { endLeftGroup } from '../../integrations/agent-cli.js';
import { processAlive } from '../../integrations/process-probe.js';
import type { AgentRunRow } from '../../store/agent-runs-store.js';
import { endRun } from './cli-attempt.js';

/**
 * Runs left queued or running by a server process of this machine that is gone (killed before it
 * could end them): a CLI still running is ended with what it started, and the run recorded
 * cancelled; one that is gone is recorded lost.
 */
export async function endLeftRuns(app: AppContext): Promise<void> {
  for (const row of await app.store.agentRuns.open()) {
    if (
      row.runner_host === app.host &&
      row.runner_pid !== null &&
      !processAlive(row.runner_pid, row.runner_start)
    )
      await endLeft(app, row);
  }
}

/** Ends a run no live server of this machine runs: its CLI's group when it still runs, and the record. */
export async function endLeft(app: AppContext, row: AgentRunRow): Promise<void> {
  const ended =
    row.cli_pgid !== null &&
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
