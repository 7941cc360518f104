// How long a client waits when the machine's server is killed: one client (its own `serve`, a
// relay) checks, the server is SIGKILLed, and the next check is timed until its answer, which the
// relay gets from the server it starts (the crash-loop rule leaves alone a server that lived 3 s).
// Run alone, after npm run build:   node bench/server-restart.mjs [kills]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, gitRepo, median, tempDir } from './common.mjs';
import { targetNamed } from './servers.mjs';
import { stdioServer } from './stdio-client.mjs';

const kills = Number(process.argv[2] ?? 5);
const home = tempDir('bench-home-');
const repo = gitRepo();
const target = targetNamed('ours');
const server = stdioServer(target.command, { cwd: repo, env: { ...process.env, ...target.env(home) } });
const sid = await target.startSession(server, repo, 'restart');
const gaps = [];
for (let i = 0; i < kills; i++) {
  await target.check(server, sid, ['a.ts']);
  // Past the 3 s within which a server that dies counts towards a crash loop.
  await new Promise((resolve) => setTimeout(resolve, 3_500));
  const { pid } = JSON.parse(readFileSync(join(home, 'hub.json'), 'utf8'));
  const at = performance.now();
  process.kill(pid, 'SIGKILL');
  const answer = await target.check(server, sid, ['a.ts']);
  if (target.errorText(answer))
    throw new Error(`the call after the kill failed: ${target.errorText(answer)}`);
  gaps.push(performance.now() - at);
}
await server.close();
cleanup(home, repo);
console.log(
  `SIGKILL of the machine's server → the next call answered: median ${median(gaps).toFixed(0)} ms (${gaps.map((g) => g.toFixed(0)).join(', ')} ms over ${kills} kills)`,
);
