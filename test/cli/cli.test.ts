import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { CLI, connectStdio, requireBuild, runCli } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

const run = promisify(execFile);

const cli = runCli;

describe('the bundles', () => {
  it('the library bundle (dist/lib.js, which the benchmarks use) loads', async () => {
    requireBuild();
    const lib = new URL('../../dist/lib.js', import.meta.url).href;
    const { stdout } = await run(process.execPath, [
      '--input-type=module',
      '-e',
      `const lib = await import(${JSON.stringify(lib)}); console.log((await lib.allTools()).length);`,
    ]);
    expect(Number(stdout.trim())).toBeGreaterThan(30);
  });

  it('the listed schemas the build worked out are the ones the code gives', async () => {
    requireBuild();
    const { readFileSync } = await import('node:fs');
    const { allTools } = await import('../../src/mcp/registry.js');
    const { toolDefinitions } = await import('../../src/mcp/server.js');
    const built = JSON.parse(
      readFileSync(new URL('../../dist/tool-definitions.json', import.meta.url), 'utf8'),
    );
    expect(built).toEqual(Object.fromEntries(toolDefinitions(await allTools()).map((d) => [d.name, d])));
  });
});

describe('session-collab status', () => {
  it('shows sessions, claims and conflicts per project, as text and as JSON', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo({ 'src/api/auth.py': '' });
    const a = await connectStdio({ cwd: repo, home });
    const b = await connectStdio({ cwd: repo, home });
    try {
      await a.call('collab_session_start', { name: 'alpha', project_root: repo });
      await b.call('collab_session_start', { name: 'beta', project_root: repo });
      await a.call('collab_claim', { files: ['src/api/*'], intent: 'refactor login' });
      await b.call('collab_claim', { files: ['src/**/*.py'], intent: 'add type hints' });

      const text = await cli(home, ['status']);
      expect(text.code).toBe(0);
      expect(text.stdout).toContain(repo);
      expect(text.stdout).toMatch(/alpha\s+active/);
      expect(text.stdout).toContain('src/api/*');
      expect(text.stdout).toContain('Conflicts');
      expect(text.stdout).toContain('"alpha" (refactor login) and "beta" (add type hints)');

      // alpha's uncommitted change to a file beta holds is called out.
      writeFileSync(join(repo, 'src/api/auth.py'), 'changed by alpha\n');
      const warned = await cli(home, ['status']);
      expect(warned.stdout).toMatch(
        /"(alpha|beta)" has changed src\/api\/auth\.py, which "(alpha|beta)" holds/,
      );

      const json = await cli(home, ['status', '--json']);
      const parsed = JSON.parse(json.stdout) as {
        projects: Array<{
          root: string;
          sessions: unknown[];
          claims: unknown[];
          conflicts: Array<{ path: string }>;
        }>;
      };
      expect(parsed.projects).toHaveLength(1);
      expect(parsed.projects[0]!.sessions).toHaveLength(2);
      expect(parsed.projects[0]!.claims).toHaveLength(2);
      expect(parsed.projects[0]!.conflicts[0]!.path).toMatch(/^src\/api\/[^/]+\.py$/);
      const held = (
        parsed.projects[0]!.sessions as Array<{ changed_files_held_by_others: Array<{ file: string }> }>
      ).flatMap((s) => s.changed_files_held_by_others);
      expect(held.map((h) => h.file)).toEqual(['src/api/auth.py', 'src/api/auth.py']);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('for a person watching several agents: this project only, claims under their session, short ids, the dead apart', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo({ 'src/a.ts': '' });
    const other = gitRepo({ 'x.ts': '' });
    const app = await testApp({ home, backend: 'sqlite' });
    const alive = (
      await app.sessions.start({ projectRoot: repo, name: 'alpha', pid: process.pid, client: 'claude-code' })
    ).session;
    const gone = (await app.sessions.start({ projectRoot: repo, name: 'ghost', pid: 2 ** 22 + 7 })).session;
    await app.sessions.start({ projectRoot: other, name: 'elsewhere', pid: process.pid });
    const claimed = await app.claims.claim({
      session: alive,
      files: ['src/a.ts'],
      intent: 'refactor login\nand more',
      scope: 'small',
      exclusive: false,
      ttlSeconds: undefined,
    });
    await app.claims.claim({
      session: gone,
      files: ['src/old/**'],
      intent: 'abandoned work',
      scope: 'small',
      exclusive: false,
      ttlSeconds: undefined,
    });
    await app.close();

    const text = (await cli(home, ['status'], repo)).stdout;
    expect(text).not.toContain('elsewhere');
    const lines = text.split('\n');
    const at = lines.findIndex((l) => /alpha\s+active/.test(l));
    expect(lines[at]).toContain('claude-code');
    expect(lines[at]).toContain(`pid ${process.pid}`);
    expect(lines[at]).toContain(alive.id.slice(0, 8));
    expect(lines[at]).not.toContain(alive.id);
    // Its claim right under it, on one line, with the claim's short id.
    expect(lines[at + 1]).toContain('src/a.ts');
    expect(lines[at + 1]).toContain('refactor login and more');
    expect(lines[at + 1]).toContain(`claim ${claimed.claim_id.slice(0, 8)}`);
    // The dead one apart, with what it holds and how to clear it.
    const stale = lines.findIndex((l) => l.includes('Not answering'));
    expect(stale).toBeGreaterThan(at);
    expect(lines.slice(stale).join('\n')).toMatch(/ghost\s+inactive/);
    expect(lines.slice(stale).join('\n')).toContain('src/old/**');
    expect(lines.slice(stale).join('\n')).toContain('session-collab clean');
    expect(lines[at]).toMatch(/last heard \d+s ago {2}/);
    expect(text).not.toContain('ago ago');
    // --all: every project.
    expect((await cli(home, ['status', '--all'], repo)).stdout).toContain('elsewhere');
    // A folder of no project shows every project, and says so.
    const nowhere = tempDir('collab-nowhere-');
    const outside = (await cli(home, ['status'], nowhere)).stdout;
    expect(outside).toContain(
      `(${nowhere} is not in a project session-collab knows: every project is shown)`,
    );
    expect(outside).toContain('elsewhere');
    const watch = await cli(home, ['status', '--watch'], repo);
    expect(watch.code).not.toBe(0);
    expect(watch.stderr).toContain('--watch redraws a terminal');
  });

  it('shows a screenful per project however many claims there are, and says how many more', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo({ 'src/a.ts': '' });
    const a = await connectStdio({ cwd: repo, home });
    const b = await connectStdio({ cwd: repo, home });
    try {
      await a.call('collab_claim', {
        files: Array.from({ length: 500 }, (_, i) => `src/f${i}.ts`),
        intent: 'many',
      });
      for (let i = 0; i < 30; i++) await a.call('collab_claim', { files: [`lib/m${i}.ts`], intent: `m${i}` });
      await b.call('collab_claim', { files: ['**/*.ts'], intent: 'sweep' });

      const text = await cli(home, ['status', '--limit', '5']);
      expect(text.code).toBe(0);
      expect(text.stdout).toContain('and 27 more claims: see them with --limit 0');
      expect(text.stdout.match(/^ {4}⚠ /gm)).toHaveLength(5);
      const json = JSON.parse((await cli(home, ['status', '--json'])).stdout) as {
        projects: Array<{
          claims: unknown[];
          conflicts: unknown[];
          more: { claims: number; conflicts: boolean };
        }>;
      };
      expect(json.projects[0]!.claims).toHaveLength(20);
      expect(json.projects[0]!.more).toMatchObject({ claims: 12, conflicts: true });
      const all = JSON.parse((await cli(home, ['status', '--json', '--limit', '0'])).stdout) as typeof json;
      expect(all.projects[0]!.claims).toHaveLength(32);
      expect(all.projects[0]!.conflicts).toHaveLength(31);
      const bad = await cli(home, ['status', '--limit', 'x']);
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toContain('--limit: "x" is not a whole number');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('says so when nothing is going on', async () => {
    const out = await cli(tempDir('collab-home-'), ['status']);
    expect(out.stdout).toContain('No active sessions');
  });
});

describe('session-collab doctor', () => {
  it('checks home, config, database and versions', async () => {
    const home = tempDir('collab-home-');
    const out = await cli(home, ['doctor', '--json']);
    expect(out.code).toBe(0);
    const report = JSON.parse(out.stdout) as { ok: boolean; checks: Array<{ name: string; ok: boolean }> };
    expect(report.ok).toBe(true);
    // Then the wiring of the project it runs in (this repository: none set up, said, not a problem).
    expect(report.checks.map((c) => c.name).slice(0, 8)).toEqual([
      'node',
      'session-collab',
      'config',
      'home',
      'database',
      'code cache',
      'disk',
      'sqlite driver',
    ]);
  });

  it('tells a project Codex already trusts only what it lacks, reading its trust as Codex does', () => {
    requireBuild();
    const home = tempDir('collab-home-');
    const codexHome = tempDir('codex-home-');
    const repo = gitRepo();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      SESSION_COLLAB_HOME: home,
      CODEX_HOME: codexHome,
      NO_COLOR: '1',
    };
    const run = (cwd: string, ...args: string[]) =>
      spawnSync(process.execPath, [CLI, ...args], { cwd, env, encoding: 'utf8' });
    const config = join(codexHome, 'config.toml');
    // Trusted by the user, in TOML's other quoting and through a symlinked spelling of the folder.
    const link = join(tempDir('links-'), 'repo');
    symlinkSync(repo, link);
    writeFileSync(
      config,
      `model = 'gpt-5'

[projects.'${link}']
trust_level = 'trusted'
`,
    );
    const told = run(repo, 'init', '--client', 'codex');
    expect(told.status).toBe(0);
    expect(told.stdout).toContain('Codex CLI trusts this project');
    expect(told.stdout).toContain('ours are not yet');
    expect(told.stdout).not.toContain('trust_level');
    const json = JSON.parse(run(repo, 'init', '--client', 'codex', '--json').stdout) as {
      trust: Array<{ client: string; trusted: boolean; missing?: string[] }>;
    };
    expect(json.trust).toEqual([
      expect.objectContaining({ client: 'codex', trusted: false, missing: ['hooks'] }),
    ]);
    // --trust then adds only the hooks' trust: the project's entry is left as the user wrote it.
    expect(run(repo, 'init', '--client', 'codex', '--trust').status).toBe(0);
    const after = readFileSync(config, 'utf8');
    expect(
      after.startsWith(`model = 'gpt-5'

[projects.'${link}']
trust_level = 'trusted'
`),
    ).toBe(true);
    expect(after).toContain('trusted_hash');
    expect(after.match(/trust_level/g)).toHaveLength(1);
    expect(JSON.parse(run(repo, 'init', '--client', 'codex', '--json').stdout).trust[0]).toMatchObject({
      trusted: true,
      added: false,
    });
    // A linked worktree of it: Codex decides by the main checkout's entry, so it is trusted too.
    const worktree = join(tempDir('worktrees-'), 'feature');
    execFileSync('git', ['-C', repo, 'worktree', 'add', '-q', '-b', 'feature', worktree]);
    const there = JSON.parse(run(worktree, 'init', '--client', 'codex', '--json').stdout) as {
      trust: Array<{ missing?: string[] }>;
    };
    expect(there.trust[0]?.missing).toEqual(['hooks']);
    // An entry of the folder itself decides before the repository's: untrusted there, both are missing.
    writeFileSync(
      config,
      `${after}
[projects."${worktree}"]
trust_level = "untrusted"
`,
    );
    const untrusted = run(worktree, 'init', '--client', 'codex');
    expect(untrusted.stdout).toContain('here neither is');
    expect(untrusted.stdout).toContain('trust_level = "trusted"');
  });

  it('checks the wiring of the project it runs in, each problem with its fix', () => {
    requireBuild();
    const home = tempDir('collab-home-');
    const userHome = tempDir('client-home-');
    const repo = gitRepo();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      SESSION_COLLAB_HOME: home,
      HOME: userHome,
      PATH: '/usr/bin:/bin',
      NO_COLOR: '1',
    };
    delete env.CODEX_HOME;
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [CLI, ...args], { cwd: repo, env, encoding: 'utf8' });
    // Set up to run `session-collab` from PATH, on a machine that has none; Codex not trusting it.
    expect(run('init', '--client', 'claude,codex,cursor', '--command', 'session-collab').status).toBe(0);
    const out = run('doctor', '--json');
    expect(out.status).toBe(1);
    const checks = new Map(
      (
        JSON.parse(out.stdout) as {
          checks: Array<{ name: string; ok: boolean; detail: string; hint?: string }>;
        }
      ).checks.map((c) => [c.name, c]),
    );
    expect(checks.get('claude server')?.ok).toBe(true);
    expect(checks.get('claude hooks')).toMatchObject({ ok: false });
    expect(checks.get('claude hooks')?.detail).toContain('not on this machine');
    expect(checks.get('claude hooks')?.hint).toContain('npm link');
    expect(checks.get('cursor hooks')).toMatchObject({ ok: false });
    expect(checks.get('cursor hooks')?.detail).toContain('.cursor/hooks.json: the hooks run session-collab');
    expect(checks.get('codex trust')).toMatchObject({ ok: false });
    expect(checks.get('codex trust')?.hint).toContain('--trust');
    expect(checks.get('commit guard')?.ok).toBe(true);
    // Fixed as it says: trusted, and the hooks running this install.
    expect(run('init', '--client', 'claude,codex,cursor', '--trust').status).toBe(0);
    const fixed = JSON.parse(run('doctor', '--json').stdout) as {
      checks: Array<{ name: string; ok: boolean; detail: string }>;
    };
    expect(fixed.checks.filter((c) => !c.ok)).toEqual([]);
    expect(fixed.checks.find((c) => c.name === 'cursor hooks')?.detail).toContain('all 7 hooks');
  });

  it('fails with the bad config key named', async () => {
    const home = tempDir('collab-home-');
    writeFileSync(join(home, 'config.json'), JSON.stringify({ inactive_after: 3 }));
    const out = await cli(home, ['doctor']);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain('unknown key "inactive_after"');
    expect(out.stdout).toContain('✗ config');
  });
});

describe('session-collab serve', () => {
  it('refuses to start with a bad config, naming the key, instead of serving broken', async () => {
    const home = tempDir('collab-home-');
    writeFileSync(join(home, 'config.json'), JSON.stringify({ toolsets: ['collab', 'nope'] }));
    const child = spawn(process.execPath, [CLI, 'serve'], {
      env: { ...process.env, SESSION_COLLAB_HOME: home },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const code = await new Promise((r) => child.on('exit', r));
    expect(code).toBe(1);
    expect(stderr).toContain('Unknown toolset "nope"');
    expect(stderr).toContain('Available toolsets: collab');
  });

  it('explains itself when started from a terminal', async () => {
    // `script` gives the child a real TTY on stdin.
    const home = tempDir('collab-home-');
    const out = await run('script', ['-qec', `${process.execPath} ${CLI} serve`, '/dev/null'], {
      env: { ...process.env, SESSION_COLLAB_HOME: home },
      timeout: 10_000,
    });
    expect(out.stdout).toContain('MCP server');
    expect(out.stdout).toContain('claude mcp add');
  });

  it('`help`, `help --help` and `help -h` print the usage of every command', async () => {
    const home = tempDir('collab-home-');
    for (const args of [['help'], ['help', '--help'], ['help', '-h'], ['--help']]) {
      const help = await cli(home, args);
      expect(help.code, args.join(' ')).toBe(0);
      expect(help.stdout).toContain('Usage: session-collab [options] [command]');
      expect(help.stdout).toContain('help [command]');
    }
  });

  it('`hook --help` prints its usage and every event it takes; `hook` alone says the event is missing', async () => {
    const home = tempDir('collab-home-');
    const help = await cli(home, ['hook', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: session-collab hook');
    expect(help.stdout).toMatch(/user-prompt-submit, turn-end or wake/);
    const bare = await cli(home, ['hook']);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain("missing required argument 'event'");
  });

  it('a command asked for --json says a failure as JSON on standard output too, and exits 1', async () => {
    const home = tempDir('collab-home-');
    for (const args of [
      ['answer', '--json', 'nope', 'x'],
      ['token', 'revoke', 'nosuch', '--json'],
      // Usage errors too.
      ['guard', 'install', '--bogus', '--json'],
      ['token', '--json'],
    ]) {
      const failed = await cli(home, args);
      expect(failed.code, args.join(' ')).toBe(1);
      const said = JSON.parse(failed.stdout) as { error: { code: string; message: string; hint: string } };
      expect(said.error.code, args.join(' ')).toMatch(/^[A-Z_]+$/);
      expect(said.error.message.length).toBeGreaterThan(0);
      expect(said.error.hint.length).toBeGreaterThan(0);
      expect(failed.stderr).toContain(said.error.message);
    }
    // A default hint that names a command already is kept.
    expect(
      JSON.parse((await cli(home, ['token', 'revoke', 'nosuch', '--json'])).stdout).error.hint,
    ).toContain('`session-collab token list`');
    // Without --json, standard output stays empty; the hint is the command a person runs next.
    const plain = await cli(home, ['answer', 'nope', 'x']);
    expect(plain.stdout).toBe('');
    expect(plain.stderr).toContain('No question nope');
    expect(plain.stderr).toContain('a person sees every pending one with `session-collab answer --list`');
  });

  it('--toolsets selects what is listed', async () => {
    const home = tempDir('collab-home-');
    const c = await connectStdio({ cwd: gitRepo(), home, args: ['--toolsets', 'collab'] });
    try {
      expect((await c.client.listTools()).tools).toHaveLength(15);
    } finally {
      await c.close();
    }
  });
});

describe('the executable', () => {
  it('serve runs its relay without a code cache; a hook saves one, doctor checks it, and a corrupt one is started from fine', async () => {
    const { readdirSync } = await import('node:fs');
    const { hookClient, waitForExit } = await import('../helpers/stdio.js');
    const { hookFixture } = await import('../helpers/hook-fixtures.js');
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const caches = () => readdirSync(join(home, 'cache')).filter((f) => f.endsWith('.v8cache'));
    const first = await connectStdio({ cwd: repo, home });
    await first.call('collab_check', { files: ['README.md'] });
    await first.close();
    await waitForExit(first.pid);
    expect(existsSync(join(home, 'cache')) ? caches() : []).toEqual([]);
    // A hook's first step saves its cache when it exits.
    const hooks = await hookClient({ cwd: repo, home });
    const edit = hookFixture('claude-code/pre-tool-use-edit', repo, 'C-1');
    try {
      expect((await hooks.hook('pre-tool-use', edit)).code).toBe(0);
      const cached = caches();
      expect(cached.some((f) => f.startsWith('hook-'))).toBe(true);
      // doctor checks them as the launcher wrote them, and keeps them.
      const doctor = JSON.parse((await cli(home, ['doctor', '--json'])).stdout) as {
        checks: Array<{ name: string; detail: string }>;
      };
      expect(doctor.checks.find((c) => c.name === 'code cache')?.detail).toBe(
        `${cached.length} file(s), checksums match`,
      );
      expect(caches()).toEqual(cached);
      for (const file of cached) writeFileSync(join(home, 'cache', file), 'not a code cache');
      expect((await hooks.hook('pre-tool-use', edit)).code).toBe(0);
    } finally {
      await hooks.close();
    }
  });
});
