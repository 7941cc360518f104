// The hook processes as a client runs them, each figure paired with a bare `node -e 0` in the
// same run (and with the peer's hook when `servers` holds it). Run alone:
//   node bench/hooks.mjs     (after npm run build)
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bareNode, cleanup, gitRepo, median, tempDir } from './common.mjs';
import { freshDatabase, startHub, stopHub } from './hub.mjs';
import { ours } from './servers.mjs';

/** A 1,000-line TypeScript file of 100 classes; `round` changes one method's body (0: none). */
function bigSource(round) {
  const out = [];
  for (let i = 0; i < 100; i++) {
    const body = round > 0 && i === round % 100 ? `    return x * ${round};` : '    return x * 2;';
    out.push(
      `export class Model${i} {`,
      '  save(x: number): number {',
      body,
      '  }',
      '  load(): number {',
      '    return 1;',
      '  }',
      '}',
      `function helper${i}(a: number) {`,
      '  return a;',
      '}',
    );
  }
  return `${out.slice(0, 1000).join('\n')}\n`;
}

/** A session of the project in `repo` holding one symbol, claimed through the tool. */
async function claimSymbol(home, repo, target) {
  const { homePaths, lib, tool } = await import('./common.mjs');
  const app = await lib.App.open({ paths: homePaths(home), config: lib.DEFAULT_CONFIG });
  const connection = new lib.Connection(app, app.sessions, {
    cwd: repo,
    client: () => 'bench',
    server: lib.ownProcess(),
  });
  await tool(app, connection, 'collab_session_start', { name: 'holder', project_root: repo });
  await tool(app, connection, 'collab_claim', { files: [target], intent: 'retry saves' });
  await app.close();
}

/**
 * The PreToolUse hook process with 1,000 live claims of 20 other sessions, for a file another
 * session holds (each run denies): ours, the peer's and a bare `node -e 0` in turn, 40 rounds. And
 * ours after every tool call (PostToolUse after a Read with nothing to deliver: no output).
 */
export async function hooks(servers = [ours]) {
  const repo = gitRepo();
  const big = join(repo, 'src', 'big.ts');
  mkdirSync(dirname(big), { recursive: true });
  writeFileSync(big, bigSource(0));
  // Its twin, edited only by the PreToolUse run where one method is held (the other is recorded).
  const held = join(repo, 'src', 'held.ts');
  writeFileSync(held, bigSource(0));
  const id = {
    GIT_AUTHOR_NAME: 'b',
    GIT_AUTHOR_EMAIL: 'b@b',
    GIT_COMMITTER_NAME: 'b',
    GIT_COMMITTER_EMAIL: 'b@b',
  };
  execFileSync('git', ['add', '.'], { cwd: repo });
  execFileSync('git', ['commit', '-qm', 'big'], { cwd: repo, env: { ...process.env, ...id } });
  const input = {
    session_id: 'bench-hook',
    transcript_path: '/dev/null',
    cwd: repo,
    hook_event_name: 'PreToolUse',
    tool_name: 'Edit',
    tool_input: { file_path: `${repo}/pkg7/src/file7.ts`, old_string: 'a', new_string: 'b' },
    tool_use_id: 'toolu_bench',
  };
  const runs = [];
  for (const s of servers) {
    const home = tempDir('bench-home-');
    await s.hook.seed(home, repo);
    const env = { ...process.env, ...s.env(home) };
    const run = (command, payload, ok) => () => {
      const t = performance.now();
      const r = spawnSync(command[0], command.slice(1), {
        input: JSON.stringify(payload),
        env,
        encoding: 'utf8',
      });
      const ms = performance.now() - t;
      if (!ok(r.stdout, r.stderr, r.status))
        throw new Error(`${s.name} hook answered unexpectedly: ${r.stdout} ${r.stderr}`);
      return ms;
    };
    runs.push({ s, home, name: `${s.name} pre`, run: run(s.hook.command, input, s.hook.denied), times: [] });
    if (s === ours) {
      const post = {
        ...input,
        session_id: 'bench-post',
        hook_event_name: 'PostToolUse',
        tool_name: 'Read',
        tool_input: { file_path: `${repo}/README.md` },
        tool_response: {},
      };
      const command = [process.execPath, ours.hook.command[1], 'hook', 'post-tool-use'];
      runs.push({ s, home, name: 'ours post', run: run(command, post, (out) => out === ''), times: [] });
      // After an Edit of a 1,000-line TypeScript file: the edit is recorded, the file's hunks read
      // (git diff) and its symbols parsed. Each run changes another line, so each parses anew.
      const edited = {
        ...post,
        session_id: 'bench-post-edit',
        tool_name: 'Edit',
        tool_input: { file_path: big, old_string: 'a', new_string: 'b' },
      };
      const recordEdit = run(command, edited, (out) => out === '');
      let round = 0;
      const editAndRecord = () => {
        round++;
        writeFileSync(big, bigSource(round));
        return recordEdit();
      };
      runs.push({ s, home, name: 'ours post edit', run: editAndRecord, times: [] });
      // Before an Edit of that file while another session holds one method of it: the hook loads
      // the parser, reads the symbols of the file before and after the edit, and lets it through
      // with a note (the edit is in another function).
      await claimSymbol(home, repo, 'src/held.ts#Model50.save');
      const apart = {
        ...input,
        session_id: 'bench-pre-symbol',
        tool_input: {
          file_path: held,
          old_string: 'function helper7(a: number) {\n  return a;',
          new_string: 'function helper7(a: number) {\n  return a + 1;',
        },
      };
      const noted = (out) => out.includes('additionalContext') && out.includes('is held by');
      runs.push({ s, home, name: 'ours pre symbol', run: run(s.hook.command, apart, noted), times: [] });
    }
  }
  // The same hook while the machine's server runs (clients' relays start it): the hook asks it
  // over its socket instead of opening the database.
  const warmHome = tempDir('bench-home-');
  await ours.hook.seed(warmHome, repo);
  const warm = await startHub(warmHome, false);
  const warmEnv = { ...process.env, ...ours.env(warmHome) };
  runs.push({
    s: ours,
    home: warmHome,
    name: 'ours pre, server running',
    run: () => {
      const t = performance.now();
      const r = spawnSync(ours.hook.command[0], ours.hook.command.slice(1), {
        input: JSON.stringify(input),
        env: warmEnv,
        encoding: 'utf8',
      });
      const ms = performance.now() - t;
      if (!ours.hook.denied(r.stdout)) throw new Error(`hook answered unexpectedly: ${r.stdout} ${r.stderr}`);
      return ms;
    },
    times: [],
  });
  // At a turn's end with nothing new (the Stop hook; the turn ends at once), the server running.
  const stop = {
    session_id: 'bench-stop',
    transcript_path: '/dev/null',
    cwd: repo,
    hook_event_name: 'Stop',
    stop_hook_active: false,
  };
  runs.push({
    s: ours,
    home: warmHome,
    name: 'ours stop, server running',
    run: () => {
      const t = performance.now();
      const r = spawnSync(process.execPath, [ours.hook.command[1], 'hook', 'turn-end'], {
        input: JSON.stringify(stop),
        env: warmEnv,
        encoding: 'utf8',
      });
      const ms = performance.now() - t;
      if (r.stdout !== '' || r.status !== 0)
        throw new Error(`stop hook answered unexpectedly: ${r.stdout} ${r.stderr}`);
      return ms;
    },
    times: [],
  });
  // Team mode: the same hook on a machine where a hub replica runs on the team database (the
  // hook asks it), the same 1,000 claims seeded through the same tools.
  const team = await freshDatabase();
  let replica = null;
  if (team) {
    const home = tempDir('bench-home-');
    const env = { ...process.env, SESSION_COLLAB_HOME: home, SESSION_COLLAB_DATABASE_URL: team.url };
    process.env.SESSION_COLLAB_DATABASE_URL = team.url;
    await ours.hook.seed(home, repo);
    delete process.env.SESSION_COLLAB_DATABASE_URL;
    replica = await startHub(home, false, { SESSION_COLLAB_DATABASE_URL: team.url });
    const run = () => {
      const t = performance.now();
      const r = spawnSync(ours.hook.command[0], ours.hook.command.slice(1), {
        input: JSON.stringify(input),
        env,
        encoding: 'utf8',
      });
      const ms = performance.now() - t;
      if (!ours.hook.denied(r.stdout))
        throw new Error(`team hook answered unexpectedly: ${r.stdout} ${r.stderr}`);
      return ms;
    };
    runs.push({ s: ours, home, name: 'ours team pre', run, times: [] });
  }
  for (const r of runs) r.run(); // saves the code cache and starts the session; not counted
  const bare = [];
  for (let i = 0; i < 40; i++) {
    for (const r of i % 2 ? [...runs].reverse() : runs) r.times.push(r.run());
    bare.push(bareNode());
  }
  const out = { bare: median(bare) };
  for (const r of runs) out[r.name] = median(r.times);
  if (replica) await stopHub(replica);
  await stopHub(warm);
  await team?.drop();
  cleanup(repo, ...new Set(runs.map((r) => r.home)));
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = await hooks();
  const line = (name) =>
    out[name] === undefined
      ? `${name}: skipped`
      : `${name}: ${out[name].toFixed(1)} ms, bare node + ${(out[name] - out.bare).toFixed(1)} ms`;
  console.log(`bare node -e 0: ${out.bare.toFixed(1)} ms`);
  for (const name of [
    'ours pre',
    'ours pre, server running',
    'ours stop, server running',
    'ours pre symbol',
    'ours post',
    'ours post edit',
    'ours team pre',
  ])
    console.log(line(name));
}
