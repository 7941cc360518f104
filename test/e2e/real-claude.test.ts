/**
 * The real Claude Code CLI, set up by `session-collab init`, with a scripted model (a fake Messages
 * API on loopback): its Edit of a file another session holds is stopped by our PreToolUse hook,
 * and the model is told why; a message another session sends while it works reaches the model
 * with its next request, through our PostToolUse hook. Needs the `claude` executable: .ci/run installs it into a temporary
 * folder and sets SESSION_COLLAB_CLAUDE_BIN; elsewhere the test is skipped, saying so.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readThenEdit, startFakeApi } from '../fixtures/fake-anthropic-api.js';
import { findAgentCli, runAgentCli } from '../helpers/agent-cli.js';
import { hookFixture } from '../helpers/hook-fixtures.js';
import { CLI, connectStdio, hookClient } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

const claude = findAgentCli('SESSION_COLLAB_CLAUDE_BIN', 'claude', 'test/e2e/real-claude.test.ts');
/** tmux renders the terminal UI into a screen a test can read (Debian's tmux; .ci/run installs it). */
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
if (claude && !hasTmux)
  console.warn('SKIPPED the terminal UI test of test/e2e/real-claude.test.ts: no tmux.');

/**
 * A repository with `app.txt`, set up for Claude Code by `session-collab init`, and a way to run
 * the real CLI there against a fake model API (its result: the last JSON line it prints).
 */
function initRepo(initArgs: string[] = []) {
  const home = tempDir('collab-home-');
  const userHome = tempDir('claude-home-');
  const repo = gitRepo({ 'app.txt': 'original line\n' });
  const init = spawnSync(process.execPath, [CLI, 'init', '--client', 'claude', ...initArgs], {
    cwd: repo,
    env: { ...process.env, SESSION_COLLAB_HOME: home, PATH: '/usr/bin:/bin' },
    encoding: 'utf8',
  });
  expect(init.status).toBe(0);
  // Asynchronous: the fake API answers from this process's event loop.
  const runClaude = async (apiUrl: string, args: string[], extraEnv: Record<string, string> = {}) => {
    const run = await runAgentCli(claude!, args, {
      cwd: repo,
      env: {
        ...process.env,
        ...extraEnv,
        HOME: userHome,
        SESSION_COLLAB_HOME: home,
        ANTHROPIC_API_KEY: 'sk-ant-api03-test',
        ANTHROPIC_BASE_URL: apiUrl,
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      },
    });
    const lastLine = run.stdout.trim().split('\n').pop() ?? '';
    if (!lastLine.startsWith('{')) throw new Error(`claude printed no result:\n${run.stdout}\n${run.stderr}`);
    return JSON.parse(lastLine);
  };
  return { home, repo, runClaude };
}

/**
 * The real Claude Code's terminal UI in tmux, as a user who has been through its first-run screens
 * for `repo`, against the fake API at `apiUrl`: its screen, a wait for what it shows (or any
 * condition), keys, and its end.
 */
function inTerminal(home: string, repo: string, apiUrl: string, args: string[]) {
  const userHome = tempDir('claude-home-');
  const key = 'sk-ant-api03-test-0123456789abcdefghij';
  writeFileSync(
    join(userHome, '.claude.json'),
    JSON.stringify({
      hasCompletedOnboarding: true,
      theme: 'dark',
      customApiKeyResponses: { approved: [key.slice(-20)], rejected: [] },
      projects: { [repo]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } },
    }),
  );
  const env = {
    HOME: userHome,
    SESSION_COLLAB_HOME: home,
    ANTHROPIC_API_KEY: key,
    ANTHROPIC_BASE_URL: apiUrl,
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    TERM: 'xterm-256color',
  };
  const tmux = `collab-${process.pid}-${Date.now()}`;
  const command = `cd '${repo}' && exec env ${Object.entries(env)
    .map(([k, v]) => `${k}='${v}'`)
    .join(' ')} '${claude}' ${args.map((a) => `'${a}'`).join(' ')}`;
  const screen = () => execFileSync('tmux', ['capture-pane', '-p', '-t', tmux], { encoding: 'utf8' });
  execFileSync('tmux', ['new-session', '-d', '-s', tmux, '-x', '160', '-y', '50', command]);
  return {
    screen,
    /** Resolves with the screen once it shows `text` (or once `test` holds); fails after `ms`. */
    async until(what: string | (() => boolean), ms = 60_000): Promise<string> {
      const deadline = Date.now() + ms;
      for (;;) {
        const shown = screen();
        if (typeof what === 'string' ? shown.includes(what) : what()) return shown;
        if (Date.now() > deadline) throw new Error(`the terminal never showed ${String(what)}:\n${shown}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    keys: (keys: string) => execFileSync('tmux', ['send-keys', '-t', tmux, keys]),
    close: () => execFileSync('tmux', ['kill-session', '-t', tmux]),
  };
}

describe.skipIf(!claude)('the real Claude Code CLI', () => {
  it('in a project set up for a teammate who lacks session-collab, stops an edit and says what to install', async () => {
    // The committed setup runs `session-collab` from PATH; this machine has none.
    const { repo, runClaude } = initRepo(['--command', 'session-collab']);
    const target = join(repo, 'app.txt');
    expect(readFileSync(join(repo, '.claude', 'settings.json'), 'utf8')).toContain(
      'command -v session-collab',
    );
    const api = await startFakeApi(readThenEdit(target));
    try {
      const result = await runClaude(
        api.url,
        ['-p', 'Change app.txt', '--permission-mode', 'acceptEdits', '--output-format', 'json'],
        { PATH: '/usr/bin:/bin' },
      );
      // Never edited in silence: stopped, and the model is told why and what to do.
      expect(result.permission_denials).toEqual([
        expect.objectContaining({ tool_name: 'Edit', tool_use_id: 'toolu_edit' }),
      ]);
      expect(readFileSync(target, 'utf8')).toBe('original line\n');
      const told = api.requests.map((r) => JSON.stringify(r.body)).pop()!;
      expect(told).toContain('session-collab is not installed on this machine');
      expect(told).toContain('npm link');
    } finally {
      await api.close();
    }
  }, 150_000);

  it('is stopped before it edits a file another session holds, and told why', async () => {
    const { home, repo, runClaude } = initRepo();
    const target = join(repo, 'app.txt');

    // Another session (a client process of its own) has edited app.txt.
    const holder = await hookClient({ cwd: repo, home });
    const api = await startFakeApi(readThenEdit(target));
    try {
      await holder.hook(
        'post-tool-use',
        hookFixture('claude-code/post-tool-use-write', repo, 'holder-1', { file_path: target, content: 'x' }),
      );
      const result = await runClaude(api.url, [
        '-p',
        'Change app.txt',
        '--permission-mode',
        'acceptEdits',
        '--output-format',
        'json',
      ]);
      expect(result.permission_denials).toEqual([
        expect.objectContaining({ tool_name: 'Edit', tool_use_id: 'toolu_edit' }),
      ]);
      expect(readFileSync(target, 'utf8')).toBe('original line\n');
      const toolResults = api.requests.flatMap(
        (r) =>
          JSON.stringify(r.body.messages ?? []).match(/"tool_result"[^}]*"tool_use_id":"toolu_edit"/g) ?? [],
      );
      expect(toolResults.length).toBeGreaterThan(0);
      const last = api.requests
        .map((r) => JSON.stringify(r.body))
        .filter((b) => b.includes('toolu_edit'))
        .pop()!;
      expect(last).toContain('would change files another session is working on');
      expect(last).toContain('collab_message_send');
      // Claude Code's own session was registered by the SessionStart hook, and ended with it.
      const status = JSON.parse(
        spawnSync(process.execPath, [CLI, 'status', '--json', '--all'], {
          cwd: repo,
          env: { ...process.env, SESSION_COLLAB_HOME: home },
          encoding: 'utf8',
        }).stdout,
      );
      const names = status.projects[0].sessions.map(
        (s: { client: string; status: string }) => `${s.client}:${s.status}`,
      );
      expect(names).toContain('claude-code:ended');
    } finally {
      await api.close();
      await holder.close();
    }
  }, 150_000);

  it('gets a message another session sent while it worked, with its next request after a tool use', async () => {
    const { home, repo, runClaude } = initRepo();
    const other = await connectStdio({ cwd: repo, home });
    await other.call('collab_session_start', { name: 'backend-work', project_root: repo });
    const note = 'Heads up: I am renaming app.txt to main.txt in ten minutes.';
    const api = await startFakeApi(
      [
        [{ type: 'tool_use', id: 'toolu_read', name: 'Read', input: { file_path: join(repo, 'app.txt') } }],
        [{ type: 'text', text: 'Done.' }],
      ],
      // While the model decides to read the file, the other session broadcasts.
      async (turn) => {
        if (turn === 0) await other.call('collab_message_send', { content: note });
      },
    );
    try {
      await runClaude(api.url, ['-p', 'Look at app.txt', '--output-format', 'json']);
      const main = api.requests.filter((r) => JSON.stringify(r.body.tools ?? []).includes('"Edit"'));
      const before = main.filter((r) => !JSON.stringify(r.body.messages).includes('toolu_read'));
      const after = main.filter((r) => JSON.stringify(r.body.messages).includes('"tool_result"'));
      expect(before.length).toBeGreaterThan(0);
      expect(after.length).toBeGreaterThan(0);
      for (const r of before) expect(JSON.stringify(r.body)).not.toContain('renaming app.txt');
      const next = JSON.stringify(after[0]!.body);
      expect(next).toContain(`> ${note}`);
      expect(next).toContain('Broadcast from \\"backend-work\\"');
      // Delivered once: the later requests carry it in the history, not as a second delivery.
      const deliveries = JSON.stringify(after.at(-1)!.body).split(`> ${note}`).length - 1;
      expect(deliveries).toBe(1);
    } finally {
      await api.close();
      await other.close();
    }
  }, 150_000);

  it('at the end of its turn, a message that arrived while it worked sends it back; with nothing new the turn ends', async () => {
    const { home, repo, runClaude } = initRepo();
    const other = await connectStdio({ cwd: repo, home });
    await other.call('collab_session_start', { name: 'backend-work', project_root: repo });
    const note = 'Before you finish: the API now needs a version header.';
    let main = 0;
    let told = false;
    const api = await startFakeApi(
      () =>
        ++main === 1
          ? [{ type: 'text', text: 'All done.' }]
          : [{ type: 'text', text: 'Noted, header added.' }],
      // While the model writes its answer, the other session broadcasts.
      async () => {
        if (told) return;
        told = true;
        await other.call('collab_message_send', { content: note });
      },
    );
    try {
      const started = Date.now();
      const result = await runClaude(api.url, ['-p', 'Tidy app.txt', '--output-format', 'json']);
      const requests = api.requests.filter((r) => JSON.stringify(r.body.tools ?? []).includes('"Edit"'));
      // Sent back once with the message, then the turn ended: two requests, the second carrying it.
      expect(requests).toHaveLength(2);
      expect(JSON.stringify(requests[0]!.body)).not.toContain(note);
      const second = JSON.stringify(requests[1]!.body);
      expect(second).toContain('Stop hook feedback');
      expect(second).toContain(`> ${note}`);
      expect(result.result).toContain('Noted');
      // The wake hook ran in the foreground (-p) and ended at once: no wait on the run.
      expect(Date.now() - started).toBeLessThan(60_000);
    } finally {
      await api.close();
      await other.close();
    }
  }, 150_000);

  it.skipIf(!hasTmux)(
    'its terminal UI, idle after its turn, is woken by a message another session sends, within 2 s',
    async () => {
      const { home, repo } = initRepo();
      const other = await connectStdio({ cwd: repo, home });
      await other.call('collab_session_start', { name: 'backend-work', project_root: repo });
      const note = 'Wake up: the schema of users changed.';
      let main = 0;
      const api = await startFakeApi(() =>
        ++main === 1
          ? [{ type: 'text', text: 'Hello there.' }]
          : [{ type: 'text', text: 'Woken and on it.' }],
      );
      const terminal = inTerminal(home, repo, api.url, ['Say hello']);
      try {
        await terminal.until('Hello there.');
        // Idle now: its turn ended with nothing new (the turn-end hook said nothing), and the wake
        // hook waits in the background. Let both settle, then another session writes to it.
        await new Promise((r) => setTimeout(r, 2_000));
        const before = main;
        const sent = Date.now();
        await other.call('collab_message_send', { content: note });
        await terminal.until(() => main > before, 10_000);
        const woken = Date.now() - sent;
        expect(woken).toBeLessThan(2_000);
        const request = api.requests
          .filter((r) => JSON.stringify(r.body.tools ?? []).includes('"Edit"'))
          .at(-1)!;
        expect(JSON.stringify(request.body)).toContain(`> ${note}`);
        await terminal.until('Woken and on it.');
      } finally {
        terminal.close();
        await api.close();
        await other.close();
      }
    },
    150_000,
  );

  it.skipIf(!hasTmux)(
    'with enforcement "ask", its terminal UI asks the person even under acceptEdits, and then shows why',
    async () => {
      const { home, repo } = initRepo();
      writeFileSync(join(home, 'config.json'), JSON.stringify({ enforcement: 'ask' }));
      const target = join(repo, 'app.txt');
      const holder = await hookClient({ cwd: repo, home });
      await holder.hook(
        'post-tool-use',
        hookFixture('claude-code/post-tool-use-write', repo, 'holder-1', { file_path: target, content: 'x' }),
      );
      const api = await startFakeApi(readThenEdit(target));
      const terminal = inTerminal(home, repo, api.url, [
        '--permission-mode',
        'acceptEdits',
        'Change app.txt',
      ]);
      try {
        // Asked, in acceptEdits mode, which would otherwise take the edit without asking.
        await terminal.until('Do you want to make this edit to app.txt?');
        expect(readFileSync(target, 'utf8')).toBe('original line\n');
        terminal.keys('1'); // Yes
        const after = await terminal.until('Done.');
        expect(readFileSync(target, 'utf8')).toBe('overwritten line\n');
        // The prompt itself does not show a hook's reason; the transcript shows it once answered.
        expect(after.replace(/\s+/g, ' ')).toContain('would change files another session is working on');
      } finally {
        terminal.close();
        await api.close();
        await holder.close();
      }
    },
    150_000,
  );
});
