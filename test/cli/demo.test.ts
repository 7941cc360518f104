import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI, requireBuild } from '../helpers/stdio.js';
import { tempDir } from '../helpers/temp.js';

describe('session-collab demo', () => {
  it('runs by itself (--fast): the dashboard link first, every step, in a home of its own that it removes', () => {
    requireBuild();
    const mine = tempDir('collab-home-');
    const run = spawnSync(process.execPath, [CLI, 'demo', '--fast'], {
      env: { ...process.env, SESSION_COLLAB_HOME: mine, NO_COLOR: '1' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[1]).toMatch(/^Watch them on the dashboard: http:\/\/127\.0\.0\.1:\d+\/login\?code=/);
    expect(run.stdout).toContain('not safe, alice holds it');
    expect(run.stdout).toContain('a collision on the dashboard');
    expect(run.stdout).toContain('the hook says deny');
    // Answered from another terminal, the command names the demo's home (not the person's).
    expect(run.stdout).toMatch(/or, in another terminal: SESSION_COLLAB_HOME=\S+ .*answer\)/);
    expect(run.stdout).toContain('alice gets the answer: yes');
    expect(run.stdout).toContain('and alice commits');
    expect(run.stdout).toContain('bob approves it');
    // The person's own home was never touched; the demo's is gone.
    expect(readdirSync(mine)).toEqual([]);
    const own = /its own home folder: (\S+);/.exec(run.stdout)?.[1];
    expect(own).toBeDefined();
    expect(run.stdout).toContain(`SESSION_COLLAB_HOME=${own} `);
    expect(existsSync(own!)).toBe(false);
  });
});
