/**
 * Codex CLI and Gemini CLI load a project's configuration only where the user trusts the folder:
 * `init` says so when it is not, and `init --trust` trusts it, after which the real `codex mcp list`
 * and `gemini mcp list` see the server. Each CLI comes from .ci/run (a temporary install); without
 * one its test is skipped, saying so.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { findAgentCli, runAgentCli } from '../helpers/agent-cli.js';
import { CLI } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

const FILE = 'test/e2e/real-trust.test.ts';
const codex = findAgentCli('SESSION_COLLAB_CODEX_BIN', 'codex', FILE);
const gemini = findAgentCli('SESSION_COLLAB_GEMINI_BIN', 'gemini', FILE);

/** A repository, a user home for the CLIs, and `init` run there as that user. */
function project() {
  const home = tempDir('collab-home-');
  const userHome = tempDir('client-home-');
  const repo = gitRepo({ 'app.txt': 'x\n' });
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: userHome, SESSION_COLLAB_HOME: home, NO_COLOR: '1' };
  delete env.CODEX_HOME;
  const init = (...args: string[]) => {
    const run = spawnSync(process.execPath, [CLI, 'init', ...args], { cwd: repo, env, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    return run.stdout;
  };
  return { repo, userHome, env, init };
}

describe.skipIf(!codex)('Codex CLI and a project it does not trust', () => {
  it('init says what to add; init --trust adds it, and `codex mcp list` then lists the server', async () => {
    const { repo, userHome, env, init } = project();
    const first = init('--client', 'codex');
    expect(first).toContain(
      'runs .codex/hooks.json only in trusted projects, and each hook only once trusted',
    );
    expect(first).toContain(`[projects.${JSON.stringify(repo)}]`);
    expect(first).toContain('session-collab init --trust');
    const untrusted = await runAgentCli(codex!, ['mcp', 'list'], { cwd: repo, env });
    expect(untrusted.stdout).not.toMatch(/session-collab\s/);
    const doctor = () =>
      spawnSync(process.execPath, [CLI, 'doctor'], { cwd: repo, env, encoding: 'utf8' }).stdout;
    expect(doctor()).toMatch(
      /✗ codex hook trust\s+6 of the 6 session-collab hooks in \.codex\/hooks\.json are not trusted/,
    );

    const trusted = init('--client', 'codex', '--trust');
    expect(trusted).toContain('Trusted this folder in');
    expect(trusted).toContain('+trust_level = "trusted"');
    expect(readFileSync(join(userHome, '.codex', 'config.toml'), 'utf8')).toContain(
      `[projects.${JSON.stringify(repo)}]\ntrust_level = "trusted"`,
    );
    const listed = await runAgentCli(codex!, ['mcp', 'list'], { cwd: repo, env });
    expect(listed.stdout).toMatch(/session-collab\s+\S+.*enabled/);
    // Codex itself finds each of our hooks trusted (the hash init wrote is the one it computes).
    expect(await codexHookTrust(repo, env)).toEqual({
      pre_tool_use: 'trusted',
      post_tool_use: 'trusted',
      session_start: 'trusted',
      session_end: 'trusted',
      user_prompt_submit: 'trusted',
      stop: 'trusted',
    });
    expect(doctor()).toMatch(/✓ codex hook trust\s+.*trusts the 6 session-collab hooks/);
    expect(doctor()).toMatch(/✓ codex hooks\s+\.codex\/hooks\.json: all 6 hooks/);
    // Once trusted, nothing more to say or change.
    const again = init('--client', 'codex', '--trust');
    expect(again).not.toContain('Trusted this folder');
    expect(again).not.toContain('only in trusted projects');
  }, 120_000);
});

/** What Codex's own app server says of the project's hooks: trust status by event. */
async function codexHookTrust(repo: string, env: NodeJS.ProcessEnv): Promise<Record<string, string>> {
  const child = spawn(codex!, ['app-server'], { cwd: repo, env, stdio: ['pipe', 'pipe', 'ignore'] });
  const lines = createInterface({ input: child.stdout });
  const answers = new Map<
    number,
    (value: { result?: { data?: Array<{ hooks: Array<{ key: string; trustStatus: string }> }> } }) => void
  >();
  lines.on('line', (line) => {
    try {
      const message = JSON.parse(line);
      answers.get(message.id)?.(message);
    } catch {
      // not ours
    }
  });
  const ask = (id: number, method: string, params: unknown) =>
    new Promise<Parameters<NonNullable<ReturnType<typeof answers.get>>>[0]>((resolve) => {
      answers.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
    });
  try {
    await ask(1, 'initialize', { clientInfo: { name: 'session-collab-test', version: '0' } });
    child.stdin.write(`${JSON.stringify({ method: 'initialized' })}\n`);
    const listed = await ask(2, 'hooks/list', { cwds: [repo] });
    const hooks = listed.result?.data?.[0]?.hooks ?? [];
    return Object.fromEntries(
      hooks
        .filter((h) => h.key.startsWith(join(repo, '.codex', 'hooks.json')))
        .map((h) => [h.key.split(':').at(-3)!, h.trustStatus]),
    );
  } finally {
    child.kill();
  }
}

describe.skipIf(!codex)("Codex CLI with session-collab also in the user's config", () => {
  it('init and doctor say that Codex would merge the two into one it cannot start, and how to fix it', async () => {
    const { repo, userHome, env, init } = project();
    // The README's by-hand line (a stdio server in ~/.codex/config.toml), then a project on the hub.
    const added = await runAgentCli(
      codex!,
      ['mcp', 'add', 'session-collab', '--', process.execPath, CLI, 'serve'],
      { cwd: repo, env },
    );
    expect(added.stdout + added.stderr).toContain('session-collab');
    const out = init('--client', 'codex', '--transport', 'http', '--url', 'http://127.0.0.1:9/', '--trust');
    expect(out).toContain('Codex CLI will not start here');
    expect(out).toContain('codex mcp remove session-collab');
    // What Codex itself says: it refuses the merged table.
    const broken = await runAgentCli(codex!, ['mcp', 'list'], { cwd: repo, env });
    expect(broken.stdout + broken.stderr).toMatch(/url is not supported for stdio/);
    const doctor = spawnSync(process.execPath, [CLI, 'doctor'], { cwd: repo, env, encoding: 'utf8' });
    expect(doctor.stdout).toMatch(/✗ codex server\s+.*merges it with this project's \(http\)/);
    expect(doctor.status).not.toBe(0);
    // The fix it names works.
    await runAgentCli(codex!, ['mcp', 'remove', 'session-collab'], { cwd: userHome, env });
    const listed = await runAgentCli(codex!, ['mcp', 'list'], { cwd: repo, env });
    expect(listed.stdout).toMatch(/session-collab\s+http:\/\/127\.0\.0\.1:9\/\s+-\s+enabled/);
    const healed = spawnSync(process.execPath, [CLI, 'doctor'], { cwd: repo, env, encoding: 'utf8' });
    expect(healed.stdout).toMatch(/✓ codex server/);
  }, 120_000);
});

describe.skipIf(!gemini)('Gemini CLI and a folder it does not trust', () => {
  it('init says what to add; init --trust adds it, and `gemini mcp list` then connects', async () => {
    const { repo, userHome, env, init } = project();
    const first = init('--client', 'gemini');
    expect(first).toContain(
      'Gemini CLI loads .gemini/settings.json only in trusted folders, and this one is not',
    );
    const untrusted = await runAgentCli(gemini!, ['mcp', 'list'], { cwd: repo, env });
    expect(untrusted.stdout + untrusted.stderr).not.toContain('Connected');

    const trusted = init('--client', 'gemini', '--trust');
    expect(trusted).toContain('Trusted this folder in');
    expect(JSON.parse(readFileSync(join(userHome, '.gemini', 'trustedFolders.json'), 'utf8'))).toEqual({
      [repo]: 'TRUST_FOLDER',
    });
    const listed = await runAgentCli(gemini!, ['mcp', 'list'], { cwd: repo, env });
    expect(listed.stdout + listed.stderr).toMatch(/session-collab: .* - Connected/);
  }, 120_000);
});
