/**
 * The real Codex CLI in a project `init --client codex --trust` set up, against a scripted model
 * (the Responses API on loopback): its apply_patch of a file another session holds, and its `rm` of
 * it through the shell, are stopped by session-collab's hooks, and the model's next request carries
 * the reason; a message another session broadcast reaches the model's context. The CLI comes from
 * .ci/run (a temporary install); without it the test is skipped, saying so.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { codexHome, startFakeResponses } from '../fixtures/fake-responses-api.js';
import { findAgentCli, runAgentCli } from '../helpers/agent-cli.js';
import { hookFixture } from '../helpers/hook-fixtures.js';
import { CLI, connectStdio } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

const FILE = 'test/e2e/real-codex.test.ts';
const codex = findAgentCli('SESSION_COLLAB_CODEX_BIN', 'codex', FILE);
const SOURCE = 'def login(user):\n    pass\n';

type Closable = { close: () => Promise<unknown> };
const open: Closable[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/** The text of every item of a Responses API request's input, in order. */
function inputTexts(body: Record<string, unknown>): string[] {
  return ((body.input ?? []) as Array<Record<string, unknown>>).map((item) => JSON.stringify(item));
}

/** The scripted model's CODEX_HOME, naming a model Codex knows (it then offers its apply_patch tool). */
function codexHomeFor(url: string): string {
  const dir = codexHome(join(tempDir('codex-'), 'home'), url);
  const config = join(dir, 'config.toml');
  writeFileSync(config, readFileSync(config, 'utf8').replace('model = "gpt-test"', 'model = "gpt-5.5"'));
  return dir;
}

/**
 * Codex run in `repo` (set up by `init --client codex --trust` first) against the scripted model at
 * `apiUrl`, with `prompt`: its environment (a user home of its own) and its output.
 */
async function runCodex(repo: string, home: string, apiUrl: string, prompt: string) {
  const userHome = tempDir('codex-user-');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${dirname(codex!)}:${process.env.PATH}`,
    CODEX_HOME: codexHomeFor(apiUrl),
    FAKE_OPENAI_KEY: 'test-key',
    SESSION_COLLAB_HOME: home,
    HOME: userHome,
  };
  const init = spawnSync(process.execPath, [CLI, 'init', '--client', 'codex', '--trust'], {
    cwd: repo,
    env,
    encoding: 'utf8',
  });
  expect(init.status, init.stderr).toBe(0);
  const run = await runAgentCli(codex!, ['exec', '--skip-git-repo-check', prompt], { cwd: repo, env });
  return { ...run, userHome };
}

describe.skipIf(!codex)('the real Codex CLI with session-collab hooks', () => {
  it('is stopped before it patches or removes a file another session holds, and its next turn says why', async () => {
    const repo = gitRepo({ 'src/api/auth.py': SOURCE });
    const home = tempDir('collab-home-');
    const requests: Array<Record<string, unknown>> = [];
    // Another agent edits the file (its hook records the edit: its claim) and, later, tells everyone.
    const other = await connectStdio({ cwd: repo, home, hooks: true });
    open.push(other);
    await other.hook('post-tool-use', hookFixture('claude-code/post-tool-use-write', repo, 'B-1'));

    let broadcast: Promise<unknown> | null = null;
    // The scripted model: patch the held file, then remove it through the shell, then run a
    // harmless command (after which its hook delivers what others said), then finish.
    const api = await startFakeResponses((body) => {
      requests.push(body);
      const tools = ((body.tools ?? []) as Array<{ name?: string }>).map((t) => t.name);
      const shell = (call: string, command: string) => ({
        type: 'function_call',
        call_id: call,
        name: tools.includes('exec_command') ? 'exec_command' : 'shell_command',
        arguments: JSON.stringify({ cmd: command, command }),
      });
      switch (requests.length) {
        case 1:
          // The other agent says something while Codex works.
          broadcast = other.call('collab_message_send', {
            content: 'I am moving login to JWT; leave auth.py to me',
          });
          return {
            type: 'custom_tool_call',
            call_id: 'call_patch',
            name: 'apply_patch',
            input:
              '*** Begin Patch\n*** Update File: src/api/auth.py\n@@\n-def login(user):\n+def login(user, token):\n*** End Patch',
          };
        case 2:
          return shell('call_rm', 'rm src/api/auth.py');
        case 3:
          return shell('call_ls', 'ls src/api');
        default:
          return 'Stopped: another session holds the file.';
      }
    });
    open.push(api);
    const run = await runCodex(repo, home, api.url, 'Add a token to login.');
    const { userHome } = run;
    expect(requests.length, `${run.stdout}\n${run.stderr}`).toBeGreaterThanOrEqual(4);
    await broadcast;
    // Each refusal reaches the model as the tool's output, in the next request.
    const afterPatch = inputTexts(requests[1]!).join('\n');
    expect(afterPatch).toMatch(/blocked by PreToolUse hook/i);
    expect(afterPatch).toContain('src/api/auth.py');
    const afterRm = inputTexts(requests[2]!).join('\n');
    expect(afterRm).toMatch(/blocked by PreToolUse hook/i);
    expect(readFileSync(join(repo, 'src/api/auth.py'), 'utf8')).toBe(SOURCE);
    // The broadcast reached the model's context (its hooks add it, once).
    expect(requests.map((r) => inputTexts(r).join('\n')).join('\n')).toContain('leave auth.py to me');
    // Codex passes its server only the variables init names (env_vars): the server it started
    // works in this home, as the hooks do, never in the user's default one.
    expect(existsSync(join(userHome, '.config', 'session-collab-mcp'))).toBe(false);
  }, 240_000);
  it('at the end of its turn, a message that arrived while it worked sends it back (Stop); nothing new ends it', async () => {
    const repo = gitRepo({ 'src/api/auth.py': SOURCE });
    const home = tempDir('collab-home-');
    const requests: Array<Record<string, unknown>> = [];
    const other = await connectStdio({ cwd: repo, home });
    open.push(other);
    await other.call('collab_session_start', { name: 'backend-work', project_root: repo });
    const note = 'Before you finish: login now takes a token.';
    let told: Promise<unknown> | null = null;
    const api = await startFakeResponses((body) => {
      requests.push(body);
      if (requests.length === 1) {
        told = other.call('collab_message_send', { content: note });
        return 'All done.';
      }
      return 'Noted, I will pass the token.';
    });
    open.push(api);
    const run = await runCodex(repo, home, api.url, 'Look at login.');
    await told;
    // Sent back once (its Stop hook blocked with the message), then the turn ended.
    expect(requests.length, `${run.stdout}\n${run.stderr}`).toBe(2);
    expect(inputTexts(requests[0]!).join('\n')).not.toContain(note);
    const second = inputTexts(requests[1]!).join('\n');
    expect(second).toContain('hook_prompt');
    expect(second).toContain(note);
  }, 240_000);
});
