/**
 * `session-collab demo`: three scripted agents at work in a repository made for the purpose, against
 * a hub whose dashboard the person watches (its link printed first): a claim, a collision, an edit
 * stopped by the real PreToolUse hook, a message, a question answered from the page, a review. At a
 * human pace for about a minute (`--fast`: at once, as the tests run it); in a home folder of its
 * own (never the person's, unless `--home` names one), removed when it ends.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from '../app/app.js';
import { homeAt } from '../app/home.js';
import { Connection } from '../features/sessions/connection.js';
import type { Tool } from '../features/tool-context.js';
import { startHub } from '../http/hub.js';
import { allTools, select } from '../mcp/registry.js';
import { callTool } from '../mcp/server.js';
import { bold, dim, green, yellow } from './format.js';
import { cliInvocation } from './invocation.js';

export interface DemoOptions {
  fast?: boolean;
  /** A home folder to run in (kept); default: a new one, removed at the end. */
  home?: string;
}

/** The pause between steps, and how long a person has to answer the question on the page. */
const PACE_MS = 5_000;
const ANSWER_MS = 20_000;

const FILES: Record<string, string> = {
  'src/auth.ts': 'export function login(user: string): string {\n  return user;\n}\n',
  'src/api.ts': 'export const routes = ["/login"];\n',
  'README.md': '# shop\n',
};

export async function demo(options: DemoOptions): Promise<void> {
  const pause = (ms = PACE_MS) => new Promise((resolve) => setTimeout(resolve, options.fast ? 0 : ms));
  const home = options.home ?? realpathSync(mkdtempSync(join(tmpdir(), 'session-collab-demo-')));
  const repo = realpathSync(mkdtempSync(join(tmpdir(), 'session-collab-demo-repo-')));
  for (const [file, text] of Object.entries(FILES)) {
    mkdirSync(join(repo, file, '..'), { recursive: true });
    writeFileSync(join(repo, file), text);
  }
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: repo,
      stdio: 'ignore',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'demo',
        GIT_AUTHOR_EMAIL: 'demo@example.invalid',
        GIT_COMMITTER_NAME: 'demo',
        GIT_COMMITTER_EMAIL: 'demo@example.invalid',
      },
    });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'the shop');

  const app = await App.open({ paths: homeAt(home) });
  const selection = await select(['collab', 'review', 'human'], { readOnly: false });
  const hub = await startHub({ app, selection, listen: '127.0.0.1:0', defaultProject: repo });
  const tools = new Map((await allTools()).map((t: Tool) => [t.name, t]));
  const say = (line: string) => process.stdout.write(`${line}\n`);
  try {
    say(`${bold('session-collab demo')}: three agents share ${repo}`);
    say(`Watch them on the dashboard: ${await hub.loginUrl()}`);
    say(dim(`(its own home folder: ${home}; nothing of yours is touched)`));
    await pause(options.fast ? 0 : 8_000);

    const agent = (name: string, client: string) => {
      const connection = new Connection(app, app.sessions, {
        cwd: repo,
        client: () => client,
        server: { pid: process.pid, start: null },
        name,
      });
      return async <T = Record<string, unknown>>(tool: string, args: Record<string, unknown>): Promise<T> => {
        const result = await callTool(app, connection, tools.get(tool)!, args);
        if (result.isError) throw new Error(`${name} ${tool}: ${JSON.stringify(result.structuredContent)}`);
        return result.structuredContent as T;
      };
    };
    const alice = agent('alice', 'claude-code');
    const bob = agent('bob', 'codex');
    const carol = agent('carol', 'gemini-cli');
    await alice('collab_session_start', { name: 'alice', project_root: repo });
    await bob('collab_session_start', { name: 'bob', project_root: repo });
    await carol('collab_session_start', { name: 'carol', project_root: repo });
    say(`\n1. alice, bob and carol start work (Claude Code, Codex, Gemini CLI).`);
    await pause();

    await alice('collab_claim', { files: ['src/auth.ts'], intent: 'move login to JWT' });
    say(`2. alice claims src/auth.ts: "move login to JWT".`);
    await pause();

    const check = await bob<{ safe: boolean }>('collab_check', { files: ['src/auth.ts'] });
    say(
      `3. bob checks src/auth.ts before a rewrite: ${check.safe ? 'safe' : yellow('not safe, alice holds it')}.`,
    );
    const formatting = await bob<{ claim_id: string }>('collab_claim', {
      files: ['src/**'],
      intent: 'format every file',
    });
    say(`   bob claims src/** anyway ("format every file"): a ${yellow('collision')} on the dashboard.`);
    await pause();

    // Carol's client runs the real PreToolUse hook before an edit, as init sets it up.
    const { command, args } = cliInvocation();
    const hook = spawnSync(command, [...args, 'hook', 'pre-tool-use'], {
      cwd: repo,
      env: { ...process.env, SESSION_COLLAB_HOME: home, CLAUDE_CODE_SESSION_ID: '' },
      input: JSON.stringify({
        session_id: 'demo-carol',
        cwd: repo,
        hook_event_name: 'PreToolUse',
        tool_name: 'Edit',
        tool_input: { file_path: join(repo, 'src/auth.ts'), old_string: 'user', new_string: 'user.trim()' },
      }),
      encoding: 'utf8',
    });
    const decision = (() => {
      try {
        return (JSON.parse(hook.stdout) as { hookSpecificOutput?: { permissionDecision?: string } })
          .hookSpecificOutput?.permissionDecision;
      } catch {
        return undefined;
      }
    })();
    say(
      `4. carol's editor tries to change src/auth.ts: the hook says ${decision === 'deny' ? green('deny') : yellow(String(decision ?? hook.stderr.trim()))} (alice holds it).`,
    );
    await pause();

    await bob('collab_message_send', {
      to_session_id: 'alice',
      content: 'Sorry: I will format src/ after your JWT change.',
    });
    await bob('collab_release', { claim_id: formatting.claim_id, status: 'abandoned' });
    say(`5. bob messages alice and steps back.`);
    await pause();

    const asked = await alice<{ question_id: string }>('ask_human', {
      question: 'Merge the JWT change now?',
      options: ['yes', 'not yet'],
      label: 'demo',
      wait_seconds: 0,
    });
    say(
      `6. alice asks you: "Merge the JWT change now?" Answer it on the dashboard (or: session-collab answer).`,
    );
    const deadline = Date.now() + (options.fast ? 0 : ANSWER_MS);
    let answer: string | null = null;
    while (answer === null) {
      const seen = await alice<{ questions: Array<{ status: string; answer?: string }> }>(
        'check_answers',
        {},
      );
      const mine = seen.questions.find((q) => q.status === 'answered');
      if (mine?.answer) answer = mine.answer;
      else if (Date.now() >= deadline) {
        await app.human.answer(asked.question_id, 'yes', 'web', 'demo');
        say(dim('   (nobody answered: the demo answers "yes" for you)'));
      } else await new Promise((resolve) => setTimeout(resolve, 500));
    }
    say(`   alice gets the answer: ${green(answer)}.`);
    await pause();

    const work = await alice<{ id: string }>('submit_work', {
      type: 'code',
      phase: 'review',
      title: 'Login with JWT',
      content: 'export function login(user: string): string {\n  return sign(user);\n}\n',
    });
    await bob('submit_review', {
      workItemId: work.id,
      verdict: 'approve',
      summary: 'Looks right; sign() is tested.',
    });
    say(`7. alice submits her change for review; bob ${green('approves')} it.`);
    say(`\nThat is the whole demo.${options.fast ? '' : ' The dashboard stays up for a minute.'}`);
    await pause(60_000);
  } finally {
    await hub.close();
    await app.close();
    rmSync(repo, { recursive: true, force: true });
    if (!options.home) rmSync(home, { recursive: true, force: true });
  }
}
