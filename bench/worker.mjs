// One process of the multi-process benchmark: claim + check + release in a loop on the shared
// database from `start` until `deadline`; prints its counts as JSON.
import { homePaths, lib, tool } from './common.mjs';

const [home, repo, index, start, deadline] = process.argv.slice(2);
const app = new lib.App({ paths: homePaths(home), config: lib.DEFAULT_CONFIG });
const connection = new lib.Connection(app, app.sessions, {
  cwd: repo,
  client: () => 'bench',
  server: lib.ownProcess(),
});
tool(app, connection, 'collab_session_start', { name: `worker-${index}`, project_root: repo });
// All workers begin together, once every process has started.
while (Date.now() < Number(start)) await new Promise((r) => setTimeout(r, 1));
let cycles = 0;
let busy = 0;
const ids = [];
while (Date.now() < Number(deadline)) {
  try {
    const { claim_id } = tool(app, connection, 'collab_claim', {
      files: [`shared/${cycles % 7}.ts`, `own/${index}/${cycles}.ts`],
      intent: 'bench',
    });
    tool(app, connection, 'collab_check', { files: [`shared/${(cycles + 3) % 7}.ts`] });
    tool(app, connection, 'collab_release', { claim_id, status: 'completed' });
    ids.push(claim_id);
    cycles++;
  } catch (error) {
    if (/busy|locked/i.test(String(error))) busy++;
    else throw error;
  }
}
app.close();
process.stdout.write(JSON.stringify({ cycles, busy, ids }));
