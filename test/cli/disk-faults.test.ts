/**
 * A read-only home and a full disk, met for real: each case runs in its own mount namespace
 * (`unshare -m`) over a small tmpfs or a read-only bind mount, which disappear with the process.
 * Needs the right to mount (root); elsewhere these tests are skipped, and say so.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hookFixture } from '../helpers/hook-fixtures.js';
import { bareServe, CLI, requireBuild } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

const canMount =
  spawnSync('unshare', ['-m', 'sh', '-c', `mount -t tmpfs -o size=64k tmpfs "${tempDir('collab-probe-')}"`])
    .status === 0;
if (!canMount)
  console.warn('disk-faults: skipped — mounting a tmpfs in a mount namespace needs root (`unshare -m`).');

/** Runs a shell script in a mount namespace of its own; `$CLI` is the built CLI, `$H` the home. */
function inNamespace(home: string, script: string) {
  requireBuild();
  return spawnSync('unshare', ['-m', 'sh', '-c', script], {
    env: { ...process.env, SESSION_COLLAB_HOME: home, H: home, CLI, NODE: process.execPath, NO_COLOR: '1' },
    encoding: 'utf8',
  });
}

const oneLine = (stderr: string) => {
  expect(stderr).not.toMatch(/\n\s+at /);
  expect(stderr.trim().split('\n').length).toBeLessThanOrEqual(2); // the problem, and → the fix
};

describe.skipIf(!canMount)('a read-only home', () => {
  it('with a database in it: one line that says read-only, and doctor says the same', () => {
    const home = tempDir('collab-home-');
    expect(
      spawnSync(process.execPath, [CLI, 'status'], { env: { ...process.env, SESSION_COLLAB_HOME: home } })
        .status,
    ).toBe(0);
    const out = inNamespace(
      home,
      'mount --bind "$H" "$H" && mount -o remount,ro,bind "$H" && "$NODE" "$CLI" status; echo "exit=$?"; "$NODE" "$CLI" doctor',
    );
    const [status, doctor] = out.stdout.split(/exit=\d+\n/);
    expect(out.stdout).toContain('exit=1');
    expect(out.stderr).toContain('read-only');
    oneLine(out.stderr);
    expect(status).toBe('');
    expect(doctor).toMatch(/✗ home\s+.* is not writable \(read-only file system\)/);
  });

  it('empty: nothing half-written, one line', () => {
    const home = tempDir('collab-home-');
    const out = inNamespace(
      home,
      'mount --bind "$H" "$H" && mount -o remount,ro,bind "$H" && "$NODE" "$CLI" status',
    );
    expect(out.status).toBe(1);
    expect(out.stderr).toContain('read-only');
    oneLine(out.stderr);
  });
});

describe.skipIf(!canMount)('a read-only home, met by the hooks', () => {
  it('says so to the user once per session, and puts every edit to the user with why', () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo({ 'src/a.ts': 'a\n' });
    expect(
      spawnSync(process.execPath, [CLI, 'status'], { env: { ...process.env, SESSION_COLLAB_HOME: home } })
        .status,
    ).toBe(0);
    // Each hook's input in a file outside the home; a session id of this test's own (the marker
    // that says "told already" lives in the system's temporary folder).
    const session = `ro-${process.pid}-${Date.now()}`;
    const inputs = tempDir('collab-hook-inputs-');
    for (const name of ['session-start', 'user-prompt-submit', 'pre-tool-use-edit'])
      writeFileSync(
        join(inputs, `${name}.json`),
        JSON.stringify(hookFixture(`claude-code/${name}`, repo, session)),
      );
    const hook = (event: string, input: string) =>
      `"$NODE" "$CLI" hook ${event} < "${join(inputs, `${input}.json`)}"; echo "<<$?>>"`;
    const out = inNamespace(
      home,
      [
        'mount --bind "$H" "$H" && mount -o remount,ro,bind "$H" || exit 9',
        hook('session-start', 'session-start'),
        hook('user-prompt-submit', 'user-prompt-submit'),
        hook('pre-tool-use', 'pre-tool-use-edit'),
      ].join('\n'),
    );
    expect(out.status, out.stderr).toBe(0);
    const [start, prompt, edit] = out.stdout
      .split(/<<\d+>>\n/)
      .map((o) => (o.trim() ? JSON.parse(o) : undefined));
    expect(out.stdout.match(/<<(\d+)>>/g)).toEqual(['<<0>>', '<<0>>', '<<0>>']);
    // What is wrong, then what to do about it.
    expect(start?.systemMessage).toMatch(
      /^session-collab is not working here \([^)]*read-only file system\)\. \S/,
    );
    expect(start?.systemMessage).toContain('Point SESSION_COLLAB_HOME at a writable folder');
    expect(prompt?.systemMessage).toBeUndefined();
    expect(edit.hookSpecificOutput.permissionDecision).toBe('ask');
    expect(edit.hookSpecificOutput.permissionDecisionReason).toContain('could not check this Edit');
  });
});

describe.skipIf(!canMount)('a full disk', () => {
  it('on a first run: one line, no half-written config; with room again, everything works', () => {
    const home = tempDir('collab-home-');
    const out = inNamespace(
      home,
      `mount -t tmpfs -o size=48k tmpfs "$H" && "$NODE" "$CLI" status; echo "exit=$?"
       if [ -f "$H/config.json" ]; then echo config-present; "$NODE" -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$H/config.json" && echo config-whole; fi
       mount -o remount,size=8m "$H" && "$NODE" "$CLI" status; echo "again=$?"`,
    );
    expect(out.stdout).toContain('exit=1');
    expect(out.stderr).toContain('is full');
    expect(out.stderr.split('\n')[0]).toMatch(/^session-collab: The disk holding .* is full\.$/);
    // config.json is there whole (written aside, then linked into place) or not at all.
    expect(out.stdout.includes('config-present')).toBe(out.stdout.includes('config-whole'));
    expect(out.stdout).toContain('again=0');
  });

  it('while a server runs: the write is refused saying the disk is full, nothing is lost, and it goes on once there is room', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo({ 'src/a.ts': 'x\n' });
    const server = bareServe(repo, home, [
      'unshare',
      '-m',
      'sh',
      '-c',
      'mount -t tmpfs -o size=2m tmpfs "$SESSION_COLLAB_HOME" && exec "$@"',
      'sh',
      process.execPath,
    ]);
    try {
      const first = await server.call('collab_claim', {
        files: ['src/a.ts'],
        intent: 'before the disk fills',
      });
      expect(first).toContain('claim_id');
      // Fill the server's disk from inside its mount namespace.
      const fill = (cmd: string) =>
        spawnSync('nsenter', ['-t', String(server.child.pid), '-m', 'sh', '-c', cmd], {
          env: { ...process.env, H: home },
        });
      fill('dd if=/dev/zero of="$H/filler" bs=64k 2>/dev/null; true');
      const refused = JSON.parse(
        (await server.call('collab_claim', {
          // Larger than the whole 2 MB disk (each path stored with its indexes): it cannot fit in
          // whatever room the write-ahead log already has from earlier writes.
          files: Array.from({ length: 500 }, (_, i) => `src/many/file-${i}-${'x'.repeat(900)}.ts`),
          intent: 'y'.repeat(1900),
        }))!,
      );
      expect(refused.result.isError).toBe(true);
      expect(refused.result.structuredContent.error.code).toBe('DB_ERROR');
      expect(refused.result.structuredContent.error.message).toContain('is full');
      fill('rm -f "$H/filler"');
      const after = JSON.parse((await server.call('collab_claims_list'))!);
      expect(after.result.structuredContent.claims.map((c: { intent: string }) => c.intent)).toEqual([
        'before the disk fills',
      ]);
      expect(await server.call('collab_claim', { files: ['src/b.ts'], intent: 'with room again' })).toContain(
        'claim_id',
      );
    } finally {
      server.child.kill();
      await server.exit;
    }
    expect(existsSync(join(home, 'registry.db'))).toBe(false); // it lived on the tmpfs, gone with it
  });
});
