// One client of the throughput benchmark, in its own process as a real client is: it starts its
// own `serve` over stdio (ours: a relay to the machine's server; or the peer with PEER_DIR), waits
// for the common start of the warm-up (`WARM_MS` before `start`), then loops claim → check →
// release until the deadline and prints its counts as JSON: those of the calls from `start` on.
import { targetNamed } from './servers.mjs';
import { stdioServer } from './stdio-client.mjs';
import { WARM_MS } from './warm-up.mjs';

const [which, home, repo, index, start, deadline] = process.argv.slice(2);
const target = targetNamed(which);
const server = stdioServer(target.command, { cwd: repo, env: { ...process.env, ...target.env(home) } });
const sid = await target.startSession(server, repo, `worker-${index}`);
await target.check(server, sid, ['warm-up.ts']);
while (Date.now() < Number(start) - WARM_MS) await new Promise((r) => setTimeout(r, 1));
let cpuBefore = null;
/** Cycles in all (they name the files), and those from `start` on. */
let loops = 0;
let cycles = 0;
let counting = false;
const errors = {};
const ids = [];
const failed = (r) => {
  const text = target.errorText(r)?.slice(0, 80) ?? null;
  if (text) errors[text] = (errors[text] ?? 0) + 1;
  return text !== null;
};
const latencies = [];
const timed = async (promise) => {
  const t = performance.now();
  const r = await promise;
  if (counting) latencies.push(performance.now() - t);
  return r;
};
while (Date.now() < Number(deadline)) {
  if (!counting && Date.now() >= Number(start)) {
    counting = true;
    cpuBefore = server.cpuMs();
  }
  if (server.exited) {
    errors['its serve exited'] = (errors['its serve exited'] ?? 0) + 1;
    break;
  }
  const claimed = await timed(
    target.claim(server, sid, [`shared/${loops % 7}.ts`, `own/${index}/${loops}.ts`]),
  );
  if (failed(claimed)) continue;
  const id = target.claimId(claimed);
  ids.push(id);
  failed(await timed(target.check(server, sid, [`shared/${(loops + 3) % 7}.ts`])));
  failed(await timed(target.release(server, sid, id)));
  loops++;
  if (counting) cycles++;
}
const rss = server.rssMb('now');
const pss = server.pssMb();
const cpuPerCall = cpuBefore === null ? 0 : (server.cpuMs() - cpuBefore) / Math.max(1, cycles * 3);
await server.close();
process.stdout.write(JSON.stringify({ cycles, errors, ids, rss, pss, cpuPerCall, latencies }));
