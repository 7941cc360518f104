/**
 * The real Gemini CLI, set up by `session-collab init --client gemini`, with a scripted model (a
 * fake Gemini API on loopback): its write_file of a file another session holds is blocked by our
 * BeforeTool hook, and the model is told why. Needs the `gemini` executable: .ci/run installs it
 * into a temporary folder and sets SESSION_COLLAB_GEMINI_BIN; elsewhere the test is skipped, saying so.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFakeGemini, startScriptedGemini } from '../fixtures/fake-gemini-api.js';
import { findAgentCli, geminiUserHome, runAgentCli } from '../helpers/agent-cli.js';
import { hookFixture } from '../helpers/hook-fixtures.js';
import { CLI, connectStdio, hookClient } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

const gemini = findAgentCli('SESSION_COLLAB_GEMINI_BIN', 'gemini', 'test/e2e/real-gemini.test.ts');

/**
 * A home, a Gemini CLI user who chose API-key auth (folder trust off), and a repository holding
 * app.txt set up by `init --client gemini`; `run` runs the real CLI there against `apiUrl`.
 */
function initRepo() {
  const home = tempDir('collab-home-');
  const userHome = geminiUserHome();
  const repo = gitRepo({ 'app.txt': 'original line\n' });
  const init = spawnSync(process.execPath, [CLI, 'init', '--client', 'gemini'], {
    cwd: repo,
    env: { ...process.env, SESSION_COLLAB_HOME: home, PATH: '/usr/bin:/bin' },
    encoding: 'utf8',
  });
  expect(init.status).toBe(0);
  const run = (apiUrl: string, args: string[]) =>
    runAgentCli(gemini!, args, {
      cwd: repo,
      env: {
        ...process.env,
        HOME: userHome,
        SESSION_COLLAB_HOME: home,
        GEMINI_API_KEY: 'test-key',
        GOOGLE_GEMINI_BASE_URL: apiUrl,
      },
    });
  return { home, repo, run };
}

describe.skipIf(!gemini)('the real Gemini CLI', () => {
  it('is blocked before it writes a file another session holds, and told why', async () => {
    const { home, repo, run: runGemini } = initRepo();
    const target = join(repo, 'app.txt');
    const holder = await hookClient({ cwd: repo, home });
    const api = await startFakeGemini({
      name: 'write_file',
      args: { file_path: target, content: 'overwritten\n' },
    });
    try {
      await holder.hook(
        'post-tool-use',
        hookFixture('claude-code/post-tool-use-write', repo, 'holder-1', { file_path: target, content: 'x' }),
      );
      const run = await runGemini(api.url, ['-p', 'Change app.txt', '--yolo']);
      expect(readFileSync(target, 'utf8')).toBe('original line\n');
      expect(`${run.stdout}${run.stderr}`).toContain('would change files another session is working on');
      const answered = api.requests
        .map((r) => JSON.stringify(r.body.contents ?? []))
        .find((b) => b.includes('functionResponse'));
      expect(answered).toContain('session-collab: Editing');
      expect(answered).toContain('collab_message_send');
      // Our SessionStart hook's context reached the model too.
      expect(
        api.requests.some((r) =>
          JSON.stringify(r.body).includes('Edits to files another session holds are stopped'),
        ),
      ).toBe(true);
    } finally {
      await api.close();
      await holder.close();
    }
  }, 150_000);
  it('at the end of its turn (AfterAgent), a message that arrived while it worked is its next prompt; nothing new ends it', async () => {
    const { home, repo, run: runGemini } = initRepo();
    const other = await connectStdio({ cwd: repo, home });
    await other.call('collab_session_start', { name: 'backend-work', project_root: repo });
    const note = 'Before you finish: app.txt moves to src/.';
    let main = 0;
    const api = await startScriptedGemini(
      () => [{ text: main === 1 ? 'All done.' : 'Noted, moving it.' }],
      async () => {
        if (++main === 1) await other.call('collab_message_send', { content: note });
      },
    );
    try {
      const run = await runGemini(api.url, ['-p', 'Tidy app.txt', '--yolo']);
      const mains = api.requests.filter((r) => JSON.stringify(r.body.tools ?? []).includes('write_file'));
      // Sent back once with the message as a new prompt, then the turn ended.
      expect(mains.length, `${run.stdout}${run.stderr}`).toBe(2);
      expect(JSON.stringify(mains[0]!.body)).not.toContain(note);
      expect(JSON.stringify(mains[1]!.body)).toContain(`> ${note}`);
      expect(run.stdout).toContain('Noted, moving it.');
    } finally {
      await api.close();
      await other.close();
    }
  }, 150_000);
});
