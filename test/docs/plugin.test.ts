import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { claudeHooks } from '../../src/integrations/client-hook-sets.js';
import { findAgentCli, runAgentCli } from '../helpers/agent-cli.js';
import { CLI } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

const claude = findAgentCli('SESSION_COLLAB_CLAUDE_BIN', 'claude', 'test/docs/plugin.test.ts');

const read = (path: string) => JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8'));

describe('the Claude Code plugin (plugin/)', () => {
  it('ships the same hooks as `init` writes, run as `session-collab` from PATH', () => {
    expect(read('plugin/hooks/hooks.json').hooks).toEqual(
      claudeHooks({ command: 'session-collab', args: [] }),
    );
    expect(read('plugin/.mcp.json')).toEqual({
      mcpServers: { 'session-collab': { command: 'session-collab', args: ['serve'] } },
    });
  });

  it('carries the package version, in its manifest and the marketplace entry', () => {
    const { version } = read('package.json');
    expect(read('plugin/.claude-plugin/plugin.json').version).toBe(version);
    expect(read('.claude-plugin/marketplace.json').plugins[0]).toMatchObject({
      name: 'session-collab',
      source: './plugin',
      version,
    });
  });
});

describe.skipIf(!claude)('the plugin installed in the real Claude Code', () => {
  it('doctor counts on it, and says when a project set up by init makes two of everything', async () => {
    const userHome = tempDir('claude-home-');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: userHome,
      SESSION_COLLAB_HOME: tempDir('collab-home-'),
      NO_COLOR: '1',
    };
    delete env.CLAUDE_CONFIG_DIR;
    const here = fileURLToPath(new URL('../..', import.meta.url));
    for (const args of [
      ['plugin', 'marketplace', 'add', here],
      ['plugin', 'install', 'session-collab@session-collab'],
    ]) {
      const run = await runAgentCli(claude!, args, { cwd: userHome, env });
      expect(run.stdout + run.stderr).toContain('Successfully');
    }
    const repo = gitRepo();
    const doctor = () => spawnSync(process.execPath, [CLI, 'doctor'], { cwd: repo, env, encoding: 'utf8' });
    const alone = doctor();
    expect(alone.stdout).toMatch(
      /✓ claude plugin\s+.*enables the session-collab plugin: its server and hooks serve Claude Code here/,
    );
    expect(alone.stdout).not.toContain('no client is set up');
    const init = spawnSync(process.execPath, [CLI, 'init', '--client', 'claude'], {
      cwd: repo,
      env,
      encoding: 'utf8',
    });
    expect(init.stdout).toContain('The session-collab plugin is enabled for Claude Code here');
    const twice = doctor();
    expect(twice.stdout).toMatch(/✗ claude plugin\s+.*two session-collab servers, and every hook twice/);
    expect(twice.status).not.toBe(0);
    await runAgentCli(claude!, ['plugin', 'uninstall', 'session-collab@session-collab'], {
      cwd: userHome,
      env,
    });
    const once = doctor();
    expect(once.stdout).not.toContain('claude plugin');
    expect(once.stdout).toMatch(/✓ claude server/);
  }, 120_000);
});
