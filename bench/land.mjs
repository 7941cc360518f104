// Landing 8 pieces of work: what the queue costs over the git it runs. A bare origin and 8 clones,
// each with one commit to its own file, no `land.check` (the check's time is the project's).
// Ours: 8 `serve` processes (relays to one machine server) each call `collab_land` at once, and the
// queue lands them one at a time (fetch, scratch worktree, rebase, push with a lease). The floor,
// on a fresh copy of the same setup: a script landing the same 8 branches one after the other with
// plain git in each clone (fetch, rebase, push; again when the push is refused). Wall time for all 8,
// and per landing; bare `node -e 0` in the same run.
//   node bench/land.mjs     (after npm run build)
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bareNode, cleanup, git, median, stdioServer, tempDir } from './common.mjs';

const CLI = fileURLToPath(new URL('../dist/cli.cjs', import.meta.url));
const PIECES = 8;
/** A bare origin with a few files on main, and `n` clones each one commit ahead on a branch of its own. */
function setup(n) {
  const root = tempDir('bench-land-');
  const seed = join(root, 'seed');
  git(root, 'init', '-q', '-b', 'main', seed);
  for (let i = 0; i < 20; i++) writeFileSync(join(seed, `file${i}.ts`), `export const v${i} = ${i};\n`);
  git(seed, 'add', '-A');
  git(seed, 'commit', '-qm', 'start');
  const bare = join(root, 'origin.git');
  git(root, 'clone', '-q', '--bare', seed, bare);
  const clones = [];
  for (let i = 0; i < n; i++) {
    const dir = join(root, `clone${i}`);
    git(root, 'clone', '-q', bare, dir);
    git(dir, 'switch', '-q', '-c', `work${i}`);
    writeFileSync(join(dir, `piece${i}.ts`), `export const piece${i} = ${i};\n`);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', `piece ${i}`);
    clones.push(dir);
  }
  return { root, bare, clones };
}

async function ours() {
  const { root, bare, clones } = setup(PIECES);
  const home = tempDir('bench-land-home-');
  const servers = clones.map((cwd) =>
    stdioServer([process.execPath, CLI, 'serve'], {
      cwd,
      env: { ...process.env, SESSION_COLLAB_HOME: home },
    }),
  );
  try {
    await Promise.all(
      servers.map((s, i) => s.call('collab_session_start', { name: `s${i}`, project_root: clones[i] })),
    );
    const started = performance.now();
    const each = await Promise.all(
      servers.map(async (s) => {
        const { ms, result } = await s.call('collab_land', { wait_seconds: 110 });
        return { ms, state: result?.structuredContent?.state ?? 'error' };
      }),
    );
    const wall = performance.now() - started;
    const landed = each.filter((e) => e.state === 'landed').length;
    const commits = Number(git(bare, 'rev-list', '--count', 'main').trim()) - 1;
    return { wall, landed, commits, p50: median(each.map((e) => e.ms)) };
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    // The machine's server the relays started: stopped as the relays' last one left it.
    try {
      const { pid } = JSON.parse((await import('node:fs')).readFileSync(join(home, 'hub.json'), 'utf8'));
      process.kill(pid, 'SIGTERM');
    } catch {}
    if (process.env.LAND_KEEP) console.error(`kept ${home}`);
    else cleanup(root, home);
  }
}

function floor() {
  const { root, bare, clones } = setup(PIECES);
  try {
    const started = performance.now();
    for (const dir of clones) {
      for (;;) {
        git(dir, 'fetch', '-q', 'origin', 'main');
        git(dir, 'rebase', '-q', 'origin/main');
        try {
          git(dir, 'push', '-q', 'origin', 'HEAD:main');
          break;
        } catch {
          // Moved meanwhile: again.
        }
      }
    }
    const wall = performance.now() - started;
    const commits = Number(git(bare, 'rev-list', '--count', 'main').trim()) - 1;
    return { wall, commits };
  } finally {
    cleanup(root);
  }
}

/** Both, alternating for `rounds`; medians. */
export async function landBench(rounds = 2) {
  const a = [];
  const b = [];
  const bare = [];
  for (let r = 0; r < rounds; r++) {
    bare.push(bareNode());
    a.push(await ours());
    b.push(floor());
  }
  return {
    pieces: PIECES,
    ours: {
      wall: median(a.map((x) => x.wall)),
      p50: median(a.map((x) => x.p50)),
      landed: Math.min(...a.map((x) => x.landed)),
      commits: Math.min(...a.map((x) => x.commits)),
    },
    floor: { wall: median(b.map((x) => x.wall)), commits: Math.min(...b.map((x) => x.commits)) },
    bare: median(bare),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await landBench(Number(process.env.LAND_ROUNDS ?? 2));
  console.log(JSON.stringify(r, null, 2));
  console.log(
    `${r.pieces} pieces: ours ${(r.ours.wall / 1000).toFixed(2)} s (${(r.ours.wall / r.pieces).toFixed(0)} ms each, ${r.ours.landed} landed, ${r.ours.commits} commits on main) · plain git ${(r.floor.wall / 1000).toFixed(2)} s (${(r.floor.wall / r.pieces).toFixed(0)} ms each) · ratio ${(r.ours.wall / r.floor.wall).toFixed(2)} · bare node ${r.bare.toFixed(0)} ms`,
  );
}
