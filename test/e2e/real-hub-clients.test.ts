/**
 * The real clients against the hub over HTTP, wired by `session-collab init --transport http`:
 * `claude mcp list`, `codex mcp list` and `gemini mcp list` see it; and Claude Code, with a scripted
 * model on loopback, is one collab session for its MCP connection and its hooks, and its Edit of a
 * file another HTTP client claimed is stopped by the PreToolUse hook. Each CLI comes from .ci/run
 * (a temporary install); without one its test is skipped, saying so.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readThenEdit, startFakeApi } from '../fixtures/fake-anthropic-api.js';
import { findAgentCli, runAgentCli } from '../helpers/agent-cli.js';
import { stoppedAfterEach } from '../helpers/hub.js';
import { CLI } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

const FILE = 'test/e2e/real-hub-clients.test.ts';
const claude = findAgentCli('SESSION_COLLAB_CLAUDE_BIN', 'claude', FILE);
const codex = findAgentCli('SESSION_COLLAB_CODEX_BIN', 'codex', FILE);
const gemini = findAgentCli('SESSION_COLLAB_GEMINI_BIN', 'gemini', FILE);

const tracked = stoppedAfterEach();

/** A repository wired to a running hub by `init --transport http`, and a user home for the CLIs. */
async function wired(clients: string, files: Record<string, string> = { 'app.txt': 'original line\n' }) {
  const home = tempDir('collab-home-');
  const userHome = tempDir('client-home-');
  const repo = gitRepo(files);
  const hub = await tracked.hub({ home });
  const init = spawnSync(process.execPath, [CLI, 'init', '--client', clients, '--transport', 'http'], {
    cwd: repo,
    env: { ...process.env, SESSION_COLLAB_HOME: home, PATH: '/usr/bin:/bin' },
    encoding: 'utf8',
  });
  expect(init.status, init.stderr).toBe(0);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: userHome,
    PWD: repo,
    SESSION_COLLAB_HOME: home,
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
  for (const key of ['CLAUDE_CODE_SESSION_ID', 'CLAUDE_CODE_CHILD_SESSION', 'SESSION_COLLAB_SESSION_ID'])
    delete env[key];
  return { home, userHome, repo, hub, env };
}

describe.skipIf(!claude)('Claude Code over HTTP', () => {
  it('lists the hub as connected', async () => {
    const { repo, hub, env } = await wired('claude');
    expect(
      JSON.parse(readFileSync(join(repo, '.mcp.json'), 'utf8')).mcpServers['session-collab'],
    ).toMatchObject({
      type: 'http',
      url: hub.mcp,
    });
    const listed = await runAgentCli(claude!, ['mcp', 'list'], { cwd: repo, env });
    expect(listed.stdout).toMatch(/session-collab: http:\/\/127\.0\.0\.1:\d+\/mcp \(HTTP\) - ✔ Connected/);
  }, 120_000);

  it('added by hand with `claude mcp add --transport http`, lists the hub as connected', async () => {
    const home = tempDir('collab-home-');
    const userHome = tempDir('client-home-');
    const repo = gitRepo();
    const hub = await tracked.hub({ home });
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: userHome, SESSION_COLLAB_HOME: home };
    const added = await runAgentCli(
      claude!,
      [
        'mcp',
        'add',
        '--transport',
        'http',
        'session-collab',
        hub.mcp,
        '--header',
        `X-Collab-Project: ${repo}`,
      ],
      { cwd: repo, env },
    );
    expect(added.stdout + added.stderr).toMatch(/Added HTTP MCP server session-collab/);
    const listed = await runAgentCli(claude!, ['mcp', 'list'], { cwd: repo, env });
    expect(listed.stdout).toMatch(/session-collab: http:\/\/127\.0\.0\.1:\d+\/mcp \(HTTP\) - ✔ Connected/);
  }, 120_000);

  it('is one session for its MCP connection and its hooks, and its edit of a file claimed over HTTP is stopped', async () => {
    const { repo, hub, env } = await wired('claude');
    const target = join(repo, 'app.txt');
    const holder = await tracked.client({ mcp: hub.mcp, project: repo, name: 'holder' });
    await holder.call('collab_claim', { files: ['app.txt'], intent: 'rewriting the app', exclusive: true });
    const api = await startFakeApi([
      [{ type: 'tool_use', id: 'toolu_list', name: 'mcp__session-collab__collab_session_list', input: {} }],
      ...readThenEdit(target),
    ]);
    try {
      const run = await runAgentCli(
        claude!,
        [
          '-p',
          'Change app.txt',
          '--permission-mode',
          'acceptEdits',
          '--allowedTools',
          'mcp__session-collab__collab_session_list',
          '--output-format',
          'json',
        ],
        { cwd: repo, env: { ...env, ANTHROPIC_API_KEY: 'sk-ant-api03-test', ANTHROPIC_BASE_URL: api.url } },
      );
      const result = JSON.parse(run.stdout.trim().split('\n').pop()!);
      expect(result.permission_denials).toEqual([
        expect.objectContaining({ tool_name: 'Edit', tool_use_id: 'toolu_edit' }),
      ]);
      expect(readFileSync(target, 'utf8')).toBe('original line\n');
      const told = api.requests
        .map((r) => JSON.stringify(r.body))
        .filter((b) => b.includes('toolu_edit'))
        .pop()!;
      expect(told).toContain('rewriting the app');
      // The MCP tool answered over HTTP, listing the holder and Claude Code's own session.
      const listing = api.requests
        .map((r) => JSON.stringify(r.body))
        .find((b) => b.includes('toolu_list') && b.includes('tool_result'))!;
      expect(listing).toContain('holder');
      // One Claude Code session: the one its hooks started is the one its MCP connection used.
      const sessions = await holder.call<{ sessions: Array<{ client: string | null }> }>(
        'collab_session_list',
        {
          include_inactive: true,
        },
      );
      expect(sessions.sessions.filter((s) => s.client === 'claude-code')).toHaveLength(1);
    } finally {
      await api.close();
    }
  }, 150_000);
});

describe.skipIf(!codex)('Codex CLI over HTTP', () => {
  it('reads the hub from the project config init writes (a trusted project)', async () => {
    const { repo, hub, env, userHome } = await wired('codex');
    const codexHome = join(userHome, '.codex');
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(
      join(codexHome, 'config.toml'),
      `[projects.${JSON.stringify(repo)}]\ntrust_level = "trusted"\n`,
    );
    const listed = await runAgentCli(codex!, ['mcp', 'list'], {
      cwd: repo,
      env: { ...env, CODEX_HOME: codexHome },
    });
    expect(listed.stdout).toMatch(
      new RegExp(`session-collab\\s+${hub.mcp.replace(/[./]/g, '\\$&')}\\s+-\\s+enabled`),
    );
  }, 120_000);
});

describe.skipIf(!codex)('Codex CLI over HTTP, by hand', () => {
  it('reads the table the hub prints for ~/.codex/config.toml, pasted as shown', async () => {
    const home = tempDir('collab-home-');
    const userHome = tempDir('client-home-');
    const repo = gitRepo();
    const { spawn } = await import('node:child_process');
    const hub = spawn(process.execPath, [CLI, 'hub', '--listen', '127.0.0.1:0'], {
      env: { ...process.env, SESSION_COLLAB_HOME: home, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let printed = '';
    hub.stdout.on('data', (d) => {
      printed += d;
    });
    try {
      const deadline = Date.now() + 20_000;
      while (!printed.includes('Stop with Ctrl-C.')) {
        if (Date.now() > deadline) throw new Error(`the hub printed no connect lines:\n${printed}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      hub.kill('SIGTERM');
    }
    const lines = printed.split('\n');
    const at = lines.findIndex((l) => l.includes('~/.codex/config.toml'));
    const table = lines
      .slice(at + 1)
      .filter((l) => l.startsWith('                  '))
      .map((l) => l.trim())
      .join('\n');
    expect(table).toMatch(/^\[mcp_servers\.session-collab\]\nurl = "http:\/\/127\.0\.0\.1:\d+\/mcp"/);
    const codexHome = join(userHome, '.codex');
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(join(codexHome, 'config.toml'), `${table}\n`);
    const listed = await runAgentCli(codex!, ['mcp', 'list'], {
      cwd: repo,
      env: { ...process.env, HOME: userHome, CODEX_HOME: codexHome },
    });
    expect(listed.stderr).not.toContain('error');
    expect(listed.stdout).toMatch(/session-collab\s+http:\/\/127\.0\.0\.1:\d+\/mcp\s+-\s+enabled/);
  }, 120_000);
});

describe.skipIf(!gemini)('Gemini CLI over HTTP', () => {
  it('connects to the hub from the project settings init writes (a trusted folder)', async () => {
    const { repo, hub, env, userHome } = await wired('gemini');
    mkdirSync(join(userHome, '.gemini'), { recursive: true });
    writeFileSync(
      join(userHome, '.gemini', 'trustedFolders.json'),
      JSON.stringify({ [repo]: 'TRUST_FOLDER' }),
    );
    const listed = await runAgentCli(gemini!, ['mcp', 'list'], { cwd: repo, env });
    expect(listed.stdout + listed.stderr).toContain(`session-collab: ${hub.mcp} (http) - Connected`);
  }, 120_000);
});
