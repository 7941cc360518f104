// One client of the throughput benchmark, in its own process as a real client is: it starts its
// own `serve` over stdio (ours: a relay to the machine's server; or the peer with PEER_DIR), waits
// for the common start, then loops claim → check → release until the deadline and prints its
// counts as JSON.
import { targetNamed } from './servers.mjs';
import { stdioServer } from './stdio-client.mjs';

const [which, home, repo, index, start, deadline] = process.argv.slice(2);
const target = targetNamed(which);
const server = stdioServer(target.command, { cwd: repo, env: { ...process.env, ...target.env(home) } });
const sid = await target.startSession(server, repo, `worker-${index}`);
await target.check(server, sid, ['warm-up.ts']);
while (Date.now() < Number(start)) await new Promise((r) => setTimeout(r, 1));
const cpuBefore = server.cpuMs();
let cycles = 0;
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
  latencies.push(performance.now() - t);
  return r;
};
while (Date.now() < Number(deadline)) {
  if (server.exited) {
    errors['its serve exited'] = (errors['its serve exited'] ?? 0) + 1;
    break;
  }
  const claimed = await timed(
    target.claim(server, sid, [`shared/${cycles % 7}.ts`, `own/${index}/${cycles}.ts`]),
  );
  if (failed(claimed)) continue;
  const id = target.claimId(claimed);
  ids.push(id);
  failed(await timed(target.check(server, sid, [`shared/${(cycles + 3) % 7}.ts`])));
  failed(await timed(target.release(server, sid, id)));
  cycles++;
}
const rss = server.rssMb('now');
const pss = server.pssMb();
const cpuPerCall = (server.cpuMs() - cpuBefore) / Math.max(1, cycles * 3);
await server.close();
process.stdout.write(JSON.stringify({ cycles, errors, ids, rss, pss, cpuPerCall, latencies }));
