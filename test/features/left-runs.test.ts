/**
 * A running server ends the agent runs another process of this machine left when it was killed,
 * without waiting to be the next one started (a `serve` in its own process, killed while the
 * machine's server runs): what `endLeft` does every 30 s in every serving process.
 */
import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { processStartTime } from '../../src/integrations/process-probe.js';
import { connectInMemory, testApp } from '../helpers/app.js';
import { gitRepo } from '../helpers/temp.js';

it('a run whose server is gone is ended by a server that runs; its own runs are left alone', async () => {
  const app = await testApp();
  const repo = gitRepo();
  const s = await connectInMemory(app, repo, 's', ['collab', 'agent']);
  await s.call('collab_session_start', { name: 's', project_root: repo });
  const session = await app.sessions.get(s.connection.currentId!);
  // A process that ran and is gone: its pid names no live process of that start.
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  const run = (id: string, pid: number, start: string | null) =>
    app.store.write(() =>
      app.store.agentRuns.insert({
        id,
        session_id: session.id,
        project_id: session.project_id,
        provider: 'claude',
        conversation: id,
        cwd: repo,
        prompt: 'x',
        files: null,
        resumed_from: null,
        runner_pid: pid,
        runner_start: start,
        runner_host: app.host,
        created_at: app.now(),
      }),
    );
  // The service runs already (it swept once when made): what is left after is found by the next look.
  await app.agents.endLeft();
  await run('left-behind', Number(gone.stdout), processStartTime(Number(gone.stdout)) ?? 'gone');
  // One of this very process (alive): not touched.
  await run('mine', process.pid, processStartTime(process.pid));
  await app.agents.endLeft();
  expect(await app.store.agentRuns.get('left-behind')).toMatchObject({ status: 'lost' });
  expect(await app.store.agentRuns.get('mine')).toMatchObject({ status: 'queued' });
});
