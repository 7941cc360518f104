/**
 * The package as a user installs it: `npm pack` (of the build `npm test` made), installed from the
 * tarball into a prefix of its own, and the installed `session-collab` run as a client would: its
 * version, `serve` answering a tool call, and the PreToolUse hook stopping an edit of what that
 * session holds. npm fetches the dependencies (from its cache, else the registry); their install
 * scripts are not run, and the SQLite addon this checkout built is put in place of the one
 * better-sqlite3 would compile from source (80 s on this machine).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bareServe, stopServer } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('the package', () => {
  it('packs, installs from its tarball, and runs --version, serve and hook from the prefix', async () => {
    const packed = tempDir('collab-pack-');
    const prefix = tempDir('collab-prefix-');
    execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', packed], {
      cwd: ROOT,
      stdio: 'pipe',
    });
    const [tarball] = readdirSync(packed).filter((f) => f.endsWith('.tgz'));
    execFileSync(
      'npm',
      [
        'install',
        '-g',
        join(packed, tarball!),
        '--prefix',
        prefix,
        '--prefer-offline',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
      ],
      { cwd: packed, stdio: 'pipe' },
    );
    const installed = join(prefix, 'lib', 'node_modules', 'session-collab');
    const addon = join('node_modules', 'better-sqlite3', 'build', 'Release');
    mkdirSync(join(installed, addon), { recursive: true });
    copyFileSync(join(ROOT, addon, 'better_sqlite3.node'), join(installed, addon, 'better_sqlite3.node'));
    const bin = join(prefix, 'bin', 'session-collab');
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim()).toBe(version);

    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const env = { ...process.env, SESSION_COLLAB_HOME: home };
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
      await stopServer(home);
    }
  }, 120_000);
});
