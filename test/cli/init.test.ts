import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CODEX_SERVER_ENV } from '../../src/integrations/codex-toml.js';
import { CLI, requireBuild } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

function init(cwd: string, ...args: string[]) {
  requireBuild();
  return spawnSync(process.execPath, [CLI, 'init', ...args], {
    cwd,
    env: {
      ...process.env,
      SESSION_COLLAB_HOME: tempDir('collab-home-'),
      NO_COLOR: '1',
      PATH: '/usr/bin:/bin',
    },
    encoding: 'utf8',
  });
}

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

/** A repository where the user already configured Claude Code. */
function configuredRepo() {
  const repo = gitRepo();
  mkdirSync(join(repo, '.claude'));
  writeFileSync(
    join(repo, '.claude/settings.json'),
    JSON.stringify({
      model: 'opus',
      permissions: { allow: ['Bash(npm test)'] },
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './scripts/check-bash.sh' }] }],
        Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }],
      },
    }),
  );
  writeFileSync(
    join(repo, '.mcp.json'),
    JSON.stringify({ mcpServers: { github: { command: 'gh-mcp', args: [] } } }),
  );
  writeFileSync(join(repo, 'CLAUDE.md'), '# My project\n\nUse pnpm.\n');
  return repo;
}

describe('session-collab init', () => {
  it('merges into existing Claude Code settings, and a second run changes nothing', () => {
    const repo = configuredRepo();
    const first = init(repo, '--client', 'claude');
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/updated\s+\.claude\/settings\.json/);
    expect(first.stdout).toMatch(/created\s+\.claude\/settings\.local\.json/);
    const snapshot = ['.mcp.json', '.claude/settings.json', '.claude/settings.local.json', 'CLAUDE.md'].map(
      (f) => readFileSync(join(repo, f), 'utf8'),
    );

    const second = init(repo, '--client', 'claude');
    expect(second.stdout.match(/unchanged/g), second.stdout).toHaveLength(5);
    expect(
      ['.mcp.json', '.claude/settings.json', '.claude/settings.local.json', 'CLAUDE.md'].map((f) =>
        readFileSync(join(repo, f), 'utf8'),
      ),
    ).toEqual(snapshot);

    const settings = readJson(join(repo, '.claude/settings.json'));
    expect(settings.model).toBe('opus');
    expect(settings.permissions).toEqual({ allow: ['Bash(npm test)'] });
    // Theirs kept first; ours at a turn's end after them: the turn-end hook and the wake hook.
    expect(settings.hooks.Stop[0]).toEqual({ hooks: [{ type: 'command', command: 'say done' }] });
    expect(settings.hooks.Stop[1].hooks.map((h: { command: string }) => h.command)).toEqual([
      expect.stringMatching(/hook turn-end$/),
      expect.stringMatching(/hook wake$/),
    ]);
    expect(settings.hooks.Stop[1].hooks[1]).toMatchObject({ asyncRewake: true, timeout: 86_460 });
    expect(settings.hooks.PreToolUse).toHaveLength(2);
    expect(settings.hooks.PreToolUse[0]).toEqual({
      matcher: 'Bash',
      hooks: [{ type: 'command', command: './scripts/check-bash.sh' }],
    });
    expect(settings.hooks.PreToolUse[1].matcher).toBe('Edit|Write|MultiEdit|NotebookEdit|Bash');
    expect(settings.hooks.PreToolUse[1].hooks[0].command).toMatch(/cli\.cjs hook pre-tool-use; else /);
    for (const event of ['SessionStart', 'SessionEnd', 'PostToolUse', 'UserPromptSubmit'])
      expect(settings.hooks[event]).toHaveLength(1);

    const mcp = readJson(join(repo, '.mcp.json'));
    expect(Object.keys(mcp.mcpServers)).toEqual(['github', 'session-collab']);
    expect(mcp.mcpServers['session-collab']).toMatchObject({
      type: 'stdio',
      command: process.execPath,
      args: [CLI, 'serve'],
    });
    expect(readJson(join(repo, '.claude/settings.local.json'))).toEqual({
      enabledMcpjsonServers: ['session-collab'],
    });

    const claudeMd = readFileSync(join(repo, 'CLAUDE.md'), 'utf8');
    expect(claudeMd.startsWith('# My project\n\nUse pnpm.\n')).toBe(true);
    expect(claudeMd.match(/session-collab:start/g)).toHaveLength(1);
    expect(claudeMd).toContain('collab_check');
  });

  it("keeps the user's formatting where it changes nothing, and keeps the machine's approval out of git", () => {
    const repo = configuredRepo();
    const local = '{\n    "permissions": { "allow": ["Bash(ls)"], "deny": [] },\n    "model": "opus"\n}\n';
    writeFileSync(join(repo, '.claude/settings.local.json'), local);
    writeFileSync(join(repo, '.gitignore'), 'node_modules/\n');
    expect(init(repo, '--client', 'claude').status).toBe(0);
    // Its lines stay as they were; ours is added after them, indented as the file is.
    expect(readFileSync(join(repo, '.claude/settings.local.json'), 'utf8')).toBe(
      '{\n    "permissions": { "allow": ["Bash(ls)"], "deny": [] },\n    "model": "opus",\n    "enabledMcpjsonServers": [\n        "session-collab"\n    ]\n}\n',
    );
    const ignore = readFileSync(join(repo, '.gitignore'), 'utf8');
    expect(ignore.startsWith('node_modules/\n')).toBe(true);
    expect(ignore.split('\n')).toContain('.claude/settings.local.json');
    const status = spawnSync('git', ['status', '--porcelain', '--untracked-files=all'], {
      cwd: repo,
      encoding: 'utf8',
    });
    expect(status.stdout).not.toContain('settings.local.json');
    // Already ignored (by its folder): left as it is.
    writeFileSync(join(repo, '.gitignore'), '/.claude/\n');
    expect(init(repo, '--client', 'claude').status).toBe(0);
    expect(readFileSync(join(repo, '.gitignore'), 'utf8')).toBe('/.claude/\n');
  });

  it("keeps the comments in every client's settings (which the clients allow), and a second run changes nothing", () => {
    const repo = gitRepo();
    const commented = (key: string) =>
      `{\n  // my own notes, kept\n  "${key}": {\n    /* a server of mine */\n    "mine": { "command": "mine" },\n  },\n  "model": "x", // trailing\n}\n`;
    const files: Record<string, string> = {
      '.claude/settings.json':
        '{\n  // hooks of my own\n  "hooks": {\n    "Stop": [ /* a sound */ { "hooks": [{ "type": "command", "command": "say done" }] } ],\n  },\n}\n',
      '.mcp.json': commented('mcpServers'),
      '.gemini/settings.json': commented('mcpServers'),
      '.cursor/mcp.json': commented('mcpServers'),
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(repo, path, '..'), { recursive: true });
      writeFileSync(join(repo, path), text);
    }
    const first = init(repo, '--client', 'claude,gemini,cursor');
    expect(first.status, first.stderr).toBe(0);
    for (const path of Object.keys(files)) {
      const after = readFileSync(join(repo, path), 'utf8');
      const comments = [...files[path]!.matchAll(/\/\/[^\n]*|\/\*.*?\*\//g)].map((m) => m[0]);
      expect(comments.length, path).toBeGreaterThan(0);
      for (const comment of comments) expect(after, path).toContain(comment);
      expect(after, path).toContain('session-collab');
    }
    expect(readFileSync(join(repo, '.claude/settings.json'), 'utf8')).toContain('"command": "say done"');
    const again = init(repo, '--client', 'claude,gemini,cursor');
    expect(again.status).toBe(0);
    expect(again.stdout).not.toMatch(/updated|created/);
  });

  it('--dry-run prints the diff and writes nothing', () => {
    const repo = configuredRepo();
    const before = readFileSync(join(repo, '.claude/settings.json'), 'utf8');
    const out = init(repo, '--dry-run');
    expect(out.status).toBe(0);
    expect(out.stdout).toContain('--- a/.claude/settings.json');
    expect(out.stdout).toContain('+++ b/.claude/settings.json');
    expect(out.stdout).toContain('--- /dev/null\n+++ b/.claude/settings.local.json');
    expect(out.stdout).toMatch(/^\+.*hook pre-tool-use/m);
    expect(out.stdout).toContain('dry run: nothing written');
    expect(readFileSync(join(repo, '.claude/settings.json'), 'utf8')).toBe(before);
    expect(existsSync(join(repo, '.claude/settings.local.json'))).toBe(false);
  });

  it('writes Codex, Gemini CLI and Cursor configuration, keeping what is there', () => {
    const repo = gitRepo();
    mkdirSync(join(repo, '.codex'));
    writeFileSync(
      join(repo, '.codex/config.toml'),
      'model = "gpt-5"\n\n[mcp_servers.other]\ncommand = "other"\n',
    );
    mkdirSync(join(repo, '.gemini'));
    writeFileSync(
      join(repo, '.gemini/settings.json'),
      JSON.stringify({ theme: 'dark', mcpServers: { other: { command: 'x' } } }),
    );
    for (let i = 0; i < 2; i++) expect(init(repo, '--client', 'codex,gemini,cursor').status).toBe(0);

    const toml = readFileSync(join(repo, '.codex/config.toml'), 'utf8');
    expect(toml).toBe(
      `model = "gpt-5"\n\n[mcp_servers.other]\ncommand = "other"\n\n[mcp_servers.session-collab]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(CLI)}, "serve"]\nenv_vars = [${CODEX_SERVER_ENV.map((v) => JSON.stringify(v)).join(', ')}]\n`,
    );
    expect(readFileSync(join(repo, 'AGENTS.md'), 'utf8')).toContain('collab_claim');

    const gemini = readJson(join(repo, '.gemini/settings.json'));
    expect(gemini.theme).toBe('dark');
    expect(Object.keys(gemini.mcpServers)).toEqual(['other', 'session-collab']);
    expect(gemini.hooks.BeforeTool).toEqual([
      {
        matcher: '^(write_file|replace|run_shell_command)$',
        hooks: [
          {
            name: 'session-collab pre-tool-use',
            type: 'command',
            command: expect.stringMatching(/hook pre-tool-use; else /),
            timeout: 10000,
          },
        ],
      },
    ]);
    expect(gemini.hooks.AfterTool).toEqual([
      { hooks: [expect.objectContaining({ command: expect.stringMatching(/hook post-tool-use$/) })] },
    ]);
    expect(gemini.hooks.BeforeAgent).toEqual([
      { hooks: [expect.objectContaining({ command: expect.stringMatching(/hook user-prompt-submit$/) })] },
    ]);
    // At the agent's end: the turn-end hook (news sends it back).
    expect(gemini.hooks.AfterAgent).toEqual([
      {
        hooks: [
          expect.objectContaining({ command: expect.stringMatching(/hook turn-end$/), timeout: 10000 }),
        ],
      },
    ]);
    expect(Object.keys(gemini.hooks).sort()).toEqual([
      'AfterAgent',
      'AfterTool',
      'BeforeAgent',
      'BeforeTool',
      'SessionEnd',
      'SessionStart',
    ]);
    expect(readFileSync(join(repo, 'GEMINI.md'), 'utf8')).toContain('collab_check');

    expect(readJson(join(repo, '.cursor/mcp.json')).mcpServers['session-collab'].args).toEqual([
      CLI,
      'serve',
    ]);
    expect(readFileSync(join(repo, '.cursor/rules/session-collab.mdc'), 'utf8')).toMatch(
      /^---\ndescription: .*\nalwaysApply: true\n---\n/,
    );
  });

  it("writes Cursor's hooks into its hooks file, keeping another tool's entries; a hook that cannot run says so in Cursor's shape", () => {
    const repo = gitRepo();
    mkdirSync(join(repo, '.cursor'));
    const theirs = { command: './audit.sh', timeout: 5 };
    writeFileSync(
      join(repo, '.cursor/hooks.json'),
      JSON.stringify({
        version: 1,
        hooks: { beforeShellExecution: [theirs], stop: [{ command: 'say done' }] },
      }),
    );
    for (let i = 0; i < 2; i++)
      expect(init(repo, '--client', 'cursor', '--command', 'session-collab').status).toBe(0);
    const { version, hooks } = readJson(join(repo, '.cursor/hooks.json'));
    expect(version).toBe(1);
    expect(Object.keys(hooks).sort()).toEqual([
      'afterFileEdit',
      'beforeShellExecution',
      'postToolUse',
      'preToolUse',
      'sessionEnd',
      'sessionStart',
      'stop',
    ]);
    expect(hooks.stop).toEqual([
      { command: 'say done' },
      { command: expect.stringMatching(/hook stop$/), timeout: 10 },
    ]);
    // Theirs first, ours once (a second run replaced it); the gating hooks fail closed.
    expect(hooks.beforeShellExecution).toEqual([
      theirs,
      { command: expect.stringMatching(/hook beforeShellExecution; else /), timeout: 10, failClosed: true },
    ]);
    expect(hooks.preToolUse).toEqual([
      {
        command: expect.stringMatching(/hook preToolUse; else /),
        timeout: 10,
        matcher: 'Write|Edit|Replace|Patch|Delete|Notebook',
        failClosed: true,
      },
    ]);
    for (const event of ['afterFileEdit', 'postToolUse', 'sessionEnd'])
      expect(hooks[event]).toEqual([
        { command: `session-collab hook ${event}`, timeout: event === 'sessionEnd' ? 5 : 10 },
      ]);

    // session-collab is not on this PATH: the edit is stopped and the session told, as Cursor reads it.
    const run = (command: string) =>
      JSON.parse(
        spawnSync('sh', ['-c', command], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } }).stdout,
      );
    const stopped = run(hooks.preToolUse[0].command);
    expect(Object.keys(stopped)).toEqual(['permission', 'user_message', 'agent_message']);
    expect(stopped.permission).toBe('deny');
    expect(stopped.agent_message).toContain('session-collab is not installed on this machine');
    expect(run(hooks.beforeShellExecution[1].command).permission).toBe('deny');
    expect(Object.keys(run(hooks.sessionStart[0].command))).toEqual(['additional_context']);
  });

  it('with enforcement_on_error "allow", Cursor is not asked to stop a call whose hook failed', () => {
    const repo = gitRepo();
    const home = tempDir('collab-home-');
    writeFileSync(join(home, 'config.json'), JSON.stringify({ enforcement_on_error: 'allow' }));
    const out = spawnSync(process.execPath, [CLI, 'init', '--client', 'cursor'], {
      cwd: repo,
      env: { ...process.env, SESSION_COLLAB_HOME: home, NO_COLOR: '1' },
      encoding: 'utf8',
    });
    expect(out.status, out.stderr).toBe(0);
    const { hooks } = readJson(join(repo, '.cursor/hooks.json'));
    expect(hooks.preToolUse[0].failClosed).toBe(false);
    expect(hooks.beforeShellExecution[0].failClosed).toBe(false);
  });

  it('finds the clients a project uses, and refuses bad input without writing', () => {
    const repo = gitRepo();
    mkdirSync(join(repo, '.gemini'));
    const json = JSON.parse(init(repo, '--json').stdout);
    expect(json.files.map((f: { client: string }) => f.client)).toEqual(['gemini', 'gemini']);

    const broken = gitRepo();
    mkdirSync(join(broken, '.claude'));
    writeFileSync(join(broken, '.claude/settings.json'), '{ "hooks": ');
    const bad = init(broken, '--client', 'claude');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('.claude/settings.json is not valid JSON');
    expect(existsSync(join(broken, '.mcp.json'))).toBe(false);
    expect(init(broken, '--client', 'vim').stderr).toContain('Unknown client "vim"');
  });

  it('names the bare command when `session-collab` on PATH is this install', () => {
    const repo = gitRepo();
    const bin = tempDir('collab-bin-');
    symlinkSync(CLI, join(bin, 'session-collab'));
    const out = spawnSync(process.execPath, [CLI, 'init', '--client', 'claude', '--json'], {
      cwd: repo,
      env: { ...process.env, PATH: `${bin}:/usr/bin:/bin` },
      encoding: 'utf8',
    });
    expect(JSON.parse(out.stdout).command).toEqual(['session-collab']);
    expect(readJson(join(repo, '.mcp.json')).mcpServers['session-collab']).toMatchObject({
      command: 'session-collab',
      args: ['serve'],
    });
  });
});

describe('session-collab init --remove', () => {
  const INIT_FILES = [
    '.mcp.json',
    '.claude/settings.json',
    '.claude/settings.local.json',
    'CLAUDE.md',
    '.gitignore',
    '.codex/hooks.json',
    '.codex/config.toml',
    'AGENTS.md',
    '.gemini/settings.json',
    'GEMINI.md',
    '.cursor/mcp.json',
    '.cursor/hooks.json',
    '.cursor/rules/session-collab.mdc',
  ];

  it('in a project init set up from nothing: every file it made goes', () => {
    const repo = gitRepo();
    expect(init(repo, '--client', 'all').status).toBe(0);
    for (const file of INIT_FILES) expect(existsSync(join(repo, file)), file).toBe(true);
    const dry = init(repo, '--remove', '--dry-run');
    expect(dry.status).toBe(0);
    expect(dry.stdout).toContain('/dev/null');
    for (const file of INIT_FILES) expect(existsSync(join(repo, file)), file).toBe(true);
    const removed = init(repo, '--remove', '--json');
    expect(removed.status, removed.stderr).toBe(0);
    const out = JSON.parse(removed.stdout) as { files: Array<{ path: string; removed: boolean }> };
    expect(
      out.files
        .filter((f) => f.removed)
        .map((f) => f.path)
        .sort(),
    ).toEqual([...INIT_FILES].sort());
    for (const file of INIT_FILES) expect(existsSync(join(repo, file)), file).toBe(false);
    // A second run has nothing to do.
    expect(init(repo, '--remove').stdout).toContain('Nothing of session-collab');
  });

  it('beside the user’s own entries: exactly what was there before init comes back', () => {
    const repo = configuredRepo();
    mkdirSync(join(repo, '.codex'));
    mkdirSync(join(repo, '.gemini'));
    mkdirSync(join(repo, '.cursor'));
    const own: Record<string, string> = {
      '.gitignore': 'node_modules/\n',
      '.codex/config.toml': '[mcp_servers.github]\ncommand = "gh-mcp"\n',
      'AGENTS.md': '# Agents\n\nRun the tests.\n',
      '.gemini/settings.json': '{\n  // the theme\n  "theme": "dark"\n}\n',
      'GEMINI.md': 'Be brief.\n',
      '.cursor/mcp.json': JSON.stringify({ mcpServers: { github: { command: 'gh-mcp' } } }),
      '.cursor/hooks.json': JSON.stringify({ version: 1, hooks: { stop: [{ command: './audit.sh' }] } }),
    };
    for (const [file, text] of Object.entries(own)) writeFileSync(join(repo, file), text);
    const before = Object.fromEntries(
      [...Object.keys(own), '.mcp.json', '.claude/settings.json', 'CLAUDE.md'].map((f) => [
        f,
        readFileSync(join(repo, f), 'utf8'),
      ]),
    );
    expect(init(repo, '--client', 'all').status).toBe(0);
    const removed = init(repo, '--remove', '--client', 'claude,codex,gemini,cursor');
    expect(removed.status, removed.stderr).toBe(0);
    expect(removed.stdout).toContain('removed   .claude/settings.local.json');
    for (const [file, text] of Object.entries(before)) {
      const now = readFileSync(join(repo, file), 'utf8');
      if (file.endsWith('.json') && !file.startsWith('.gemini'))
        expect(JSON.parse(now), file).toEqual(JSON.parse(text));
      else expect(now, file).toBe(text);
    }
    for (const file of [
      '.claude/settings.local.json',
      '.codex/hooks.json',
      '.cursor/rules/session-collab.mdc',
    ])
      expect(existsSync(join(repo, file)), file).toBe(false);
  });
});

describe("Codex's server gets our environment", () => {
  it('init names our variables in env_vars; doctor finds a table without them, and init again mends it', () => {
    const repo = gitRepo();
    const doctorCodex = () => {
      const out = spawnSync(process.execPath, [CLI, 'doctor', '--json'], {
        cwd: repo,
        env: { ...process.env, SESSION_COLLAB_HOME: tempDir('collab-home-'), HOME: tempDir('user-') },
        encoding: 'utf8',
      });
      const checks = (
        JSON.parse(out.stdout) as {
          checks: Array<{ name: string; ok: boolean; detail: string; hint?: string }>;
        }
      ).checks;
      return checks.find((c) => c.name === 'codex server')!;
    };
    expect(init(repo, '--client', 'codex').status).toBe(0);
    const config = join(repo, '.codex', 'config.toml');
    expect(readFileSync(config, 'utf8')).toContain(
      `env_vars = [${CODEX_SERVER_ENV.map((v) => JSON.stringify(v)).join(', ')}]`,
    );
    expect(doctorCodex().ok).toBe(true);
    // As an earlier init wrote it: Codex would start the server without SESSION_COLLAB_HOME.
    writeFileSync(config, readFileSync(config, 'utf8').replace(/^env_vars = .*\n/m, ''));
    const stale = doctorCodex();
    expect(stale.ok).toBe(false);
    expect(stale.detail).toContain('without passing SESSION_COLLAB_HOME, SESSION_COLLAB_DATABASE_URL');
    expect(stale.hint).toBe('Run session-collab init --client codex again (it adds env_vars).');
    expect(init(repo, '--client', 'codex').status).toBe(0);
    expect(doctorCodex().ok).toBe(true);
  });
});
