/**
 * The package as a user installs it, with the Node and npm this suite runs on (CI runs it on Node 24
 * with npm 12, and on the machine's Node 20 with its npm):
 * - `npm pack` of the build `npm test` made, installed from the tarball into a prefix of its own,
 *   and the installed `session-collab` run as a client would: its version, `serve` answering a tool
 *   call, the PreToolUse hook stopping an edit of what that session holds, `doctor` all good.
 * - A fresh clone (this checkout's files, as git would hand them out) installed with `npm install`
 *   and only node, npm, git and sh on PATH (no compiler), then `npm start`: the hub answers, and the
 *   same checks pass against it.
 * Where Node has node:sqlite nothing is built and every install script stays blocked, as npm 12 does
 * by default. On Node 20, better-sqlite3 must be built: the tarball's install is given the addon
 * this checkout built (it would compile for 80 s), and the fresh clone is CI's own `npm ci`.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NODE_HAS_SQLITE } from '../helpers/sqlite.js';
import { bareServe, stopServer } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BUILT_IN_SQLITE = NODE_HAS_SQLITE;
const NPM = execFileSync('npm', ['--version'], { encoding: 'utf8' }).trim();
const ADDON = join('node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');

/** A PATH holding only node, npm, git and sh (npm runs scripts with it), linked into a folder of their own: no compiler, no make. */
function pathWithoutCompiler(): string {
  const dir = tempDir('collab-path-');
  const which = (tool: string) =>
    execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim();
  symlinkSync(process.execPath, join(dir, 'node'));
  for (const tool of ['npm', 'git', 'sh']) symlinkSync(which(tool), join(dir, tool));
  for (const tool of ['cc', 'gcc', 'g++', 'make', 'python3'])
    expect(spawnSync('sh', ['-c', `command -v ${tool}`], { env: { PATH: dir } }).status).not.toBe(0);
  return dir;
}

/**
 * What a user checks after installing: `doctor` all good (the SQLite driver this Node uses), a
 * client's `serve` claiming a file, and the PreToolUse hook stopping another session's edit of it.
 */
async function expectWorks(bin: string, home: string): Promise<void> {
  const repo = gitRepo();
  const env = { ...process.env, SESSION_COLLAB_HOME: home };
  const doctor = spawnSync(bin, ['doctor', '--json'], { cwd: repo, env, encoding: 'utf8' });
  const report = JSON.parse(doctor.stdout) as {
    ok: boolean;
    checks: Array<{ name: string; ok: boolean; detail: string }>;
  };
  expect(report.checks.filter((c) => !c.ok)).toEqual([]);
  expect(report.ok).toBe(true);
  expect(report.checks.find((c) => c.name === 'sqlite driver')?.detail).toMatch(
    BUILT_IN_SQLITE ? /^node:sqlite, built into Node / : /^better-sqlite3 12\./,
  );
  const serve = bareServe(repo, home, [process.execPath], {
    cli: bin,
    env: { CLAUDE_CODE_SESSION_ID: 'packed-client' },
  });
  try {
    const claimed = await serve.call('collab_claim', { files: ['src/api.ts'], intent: 'from the package' });
    expect(claimed).toContain('Claimed src/api.ts');
    const hook = execFileSync(bin, ['hook', 'pre-tool-use'], {
      cwd: repo,
      env: { ...env, CLAUDE_CODE_SESSION_ID: '' },
      input: JSON.stringify({
        session_id: 'another-client',
        cwd: repo,
        hook_event_name: 'PreToolUse',
        tool_name: 'Edit',
        tool_input: { file_path: join(repo, 'src/api.ts'), old_string: 'a', new_string: 'b' },
      }),
      encoding: 'utf8',
    });
    expect(JSON.parse(hook)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny' } });
  } finally {
    serve.child.stdin.end();
    await serve.exit;
  }
}

/** This checkout's files as a fresh clone holds them (tracked, and new ones not ignored). */
function freshClone(): string {
  const dir = join(tempDir('collab-clone-'), 'session-collab');
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((f) => f && existsSync(join(ROOT, f)));
  for (const file of files) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(dir, file));
  }
  return dir;
}

describe(`the package, on Node ${process.versions.node} with npm ${NPM}`, () => {
  it('packs, installs from its tarball, and runs --version, doctor, serve and hook from the prefix', async () => {
    const packed = tempDir('collab-pack-');
    const prefix = tempDir('collab-prefix-');
    execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', packed], {
      cwd: ROOT,
      stdio: 'pipe',
    });
    const [tarball] = readdirSync(packed).filter((f) => f.endsWith('.tgz'));
    // As the README says to: nothing to allow where Node has node:sqlite. On Node 20 better-sqlite3's
    // addon is needed; this checkout's is put in place of the one its install would compile.
    const install = ['install', '-g', join(packed, tarball!), '--prefix', prefix, '--prefer-offline'];
    execFileSync(
      'npm',
      [...install, '--no-audit', '--no-fund', ...(BUILT_IN_SQLITE ? [] : ['--ignore-scripts'])],
      {
        cwd: packed,
        stdio: 'pipe',
      },
    );
    const installed = join(prefix, 'lib', 'node_modules', 'session-collab');
    if (BUILT_IN_SQLITE) {
      // Nothing was built: npm 12 runs no dependency's install script unless allowed.
      if (Number(NPM.split('.')[0]) >= 12) expect(existsSync(join(installed, ADDON))).toBe(false);
    } else {
      mkdirSync(dirname(join(installed, ADDON)), { recursive: true });
      copyFileSync(join(ROOT, ADDON), join(installed, ADDON));
    }
    const bin = join(prefix, 'bin', 'session-collab');
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim()).toBe(version);
    const home = tempDir('collab-home-');
    try {
      await expectWorks(bin, home);
    } finally {
      await stopServer(home);
    }
  }, 180_000);

  it.skipIf(!BUILT_IN_SQLITE)(
    'a fresh clone: npm install with no compiler on PATH, then npm start serves, and it all works',
    async () => {
      const clone = freshClone();
      const PATH = pathWithoutCompiler();
      const started = performance.now();
      const install = spawnSync('npm', ['install', '--no-audit', '--no-fund'], {
        cwd: clone,
        env: { ...process.env, PATH },
        encoding: 'utf8',
      });
      const seconds = (performance.now() - started) / 1000;
      expect(install.status, install.stderr).toBe(0);
      // Said, never asserted (the machine is shared): what a newcomer waits, downloads from the cache.
      console.log(
        `fresh clone: npm ${NPM} install on Node ${process.versions.node}, no compiler: ${seconds.toFixed(1)} s`,
      );
      expect(install.stderr).not.toMatch(/install scripts blocked|install-scripts/);
      expect(existsSync(join(clone, ADDON))).toBe(false);
      const home = tempDir('collab-home-');
      const hub = spawn('npm', ['start', '--', '--listen', '127.0.0.1:0', '--json'], {
        cwd: clone,
        env: { ...process.env, PATH, SESSION_COLLAB_HOME: home },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      try {
        const ready = await new Promise<{ url: string }>((resolve, reject) => {
          let out = '';
          hub.stdout.on('data', (d) => {
            out += d;
            const line = out.split('\n').find((l) => l.startsWith('{'));
            if (line) resolve(JSON.parse(line) as { url: string });
          });
          hub.once('exit', (code) => reject(new Error(`npm start exited (${code}): ${out}`)));
        });
        expect(ready.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
        // Its dashboard answers (a login page: the link to it is the hub's to give).
        expect((await fetch(ready.url)).status).toBeLessThan(500);
        await expectWorks(join(clone, 'dist', 'cli.cjs'), home);
      } finally {
        process.kill(-hub.pid!, 'SIGTERM');
        await new Promise((done) => hub.once('exit', done));
      }
    },
    240_000,
  );
});

if (!BUILT_IN_SQLITE)
  console.warn(
    `[skipped] the fresh-clone install without a compiler needs node:sqlite (Node 22.13 and later); on Node ${process.versions.node} better-sqlite3 is built by the install, which CI's own npm ci covers.`,
  );
