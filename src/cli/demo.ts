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
import { inline } from '../core/fence.js';
import { shellQuote } from '../core/shell-words.js';
import { Connection } from '../features/sessions/connection.js';
import type { Tool } from '../features/tool-context.js';
import { startHub } from '../http/hub.js';
import { processStartTime } from '../integrations/process-probe.js';
import { processNamed } from '../integrations/process-tree.js';
import { allTools, select } from '../mcp/registry.js';
import { callTool } from '../mcp/server.js';
import { bold, dim, green, yellow } from './format.js';
import { cliInvocation, commandForPerson } from './invocation.js';

export interface DemoOptions {
  fast?: boolean;
  /** Seconds the dashboard stays up after the last step (default 60; 0 with `fast`). Ctrl-C ends it sooner. */
  linger?: string | number;
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
  // Ctrl-C (or SIGTERM) ends the demo at its next pause, and the folders still go.
  const stop = new AbortController();
  const interrupt = () => stop.abort();
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  const wait = (ms: number) =>
    new Promise<void>((resolve, reject) => {
      if (stop.signal.aborted) return reject(new Interrupted());
      const abort = () => {
        clearTimeout(timer);
        reject(new Interrupted());
      };
      const timer = setTimeout(() => {
        stop.signal.removeEventListener('abort', abort);
        resolve();
      }, ms);
      stop.signal.addEventListener('abort', abort, { once: true });
    });
  const pause = (ms = PACE_MS) => wait(options.fast ? 0 : ms);
  const linger = options.linger === undefined ? (options.fast ? 0 : 60) : Number(options.linger);
  if (!Number.isFinite(linger) || linger < 0 || linger > 86_400)
    throw new Error(`--linger: "${options.linger}" is not a number of seconds from 0 to 86400.`);
  const home = options.home ?? realpathSync(mkdtempSync(join(tmpdir(), 'session-collab-demo-')));
  const repo = realpathSync(mkdtempSync(join(tmpdir(), 'session-collab-demo-repo-')));
  for (const [file, text] of Object.entries(FILES)) {
    mkdirSync(join(repo, file, '..'), { recursive: true });
    writeFileSync(join(repo, file), text);
  }
  const git = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
    execFileSync('git', args, {
      cwd: repo,
      stdio: 'ignore',
      env: {
        ...process.env,
        ...extra,
        GIT_AUTHOR_NAME: 'demo',
        GIT_AUTHOR_EMAIL: 'demo@example.invalid',
        GIT_COMMITTER_NAME: 'demo',
        GIT_COMMITTER_EMAIL: 'demo@example.invalid',
      },
    });
  git(['init', '-q']);
  git(['add', '.']);
  // The shop was there before the agents came: an hour ago.
  const before = `${Math.floor(Date.now() / 1000) - 3600} +0000`;
  git(['commit', '-qm', 'the shop'], { GIT_AUTHOR_DATE: before, GIT_COMMITTER_DATE: before });

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

    // The demo is each agent's client process; carol's client session id is the one her hook names.
    const start = processStartTime(process.pid);
    const me = start === null ? null : processNamed(process.pid, start);
    const agent = (name: string, client: string) => {
      const connection = new Connection(app, app.sessions, {
        cwd: repo,
        client: () => client,
        server: { pid: process.pid, start: null },
        name,
        identity: () => ({ sessionId: `demo-${name}`, process: me }),
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

    // Carol's client runs the real hooks around an edit, as init sets them up.
    const { command, args } = cliInvocation();
    const carolHook = (event: 'PreToolUse' | 'PostToolUse', file: string) =>
      spawnSync(command, [...args, 'hook', event === 'PreToolUse' ? 'pre-tool-use' : 'post-tool-use'], {
        cwd: repo,
        env: { ...process.env, SESSION_COLLAB_HOME: home, CLAUDE_CODE_SESSION_ID: '' },
        input: JSON.stringify({
          session_id: 'demo-carol',
          cwd: repo,
          hook_event_name: event,
          tool_name: 'Edit',
          tool_input: { file_path: join(repo, file), old_string: 'shop', new_string: 'shop, with logins' },
          ...(event === 'PostToolUse' ? { tool_response: { success: true } } : {}),
        }),
        encoding: 'utf8',
      });
    const hook = carolHook('PreToolUse', 'src/auth.ts');
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
    carolHook('PreToolUse', 'README.md');
    writeFileSync(join(repo, 'README.md'), '# shop, with logins\n');
    carolHook('PostToolUse', 'README.md');
    say(`   carol edits README.md instead: nobody holds it, and her edit becomes her claim.`);
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
      `6. alice asks you: "Merge the JWT change now?" Answer it on the dashboard (or, in another terminal: SESSION_COLLAB_HOME=${shellQuote(home)} ${commandForPerson()} answer).`,
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
      } else await wait(500);
    }
    say(`   alice gets the answer: ${green(inline(answer, 80))}.`);
    // She merges only on a yes; the review goes on either way.
    const merge = answer.trim().toLowerCase() === 'yes';
    await pause();

    const work = await alice<{ id: string }>('submit_work', {
      type: 'code',
      phase: 'review',
      title: 'Login with JWT',
      content: 'export function login(user: string): string {\n  return sign(user);\n}\n',
    });
    await bob('submit_review', {
      workItemId: work.id,
      verdict: 'request_changes',
      summary: 'Names arrive with spaces from the form.',
      suggestions: [
        {
          type: 'bug',
          severity: 'major',
          title: 'Trim the name before signing',
          explanation: '" alice" and "alice" would get different tokens.',
          location: { startLine: 2 },
          currentContent: '  return sign(user);',
          suggestedContent: '  return sign(user.trim());',
        },
      ],
    });
    say(`7. alice submits her change for review; bob ${yellow('requests a change')} at line 2.`);
    await pause();
    const fixed = 'export function login(user: string): string {\n  return sign(user.trim());\n}\n';
    await alice('update_work', {
      workItemId: work.id,
      content: fixed,
      changeDescription: 'Trim the name, as bob suggested.',
    });
    await bob('submit_review', {
      workItemId: work.id,
      verdict: 'approve',
      summary: 'Right; sign() is tested.',
      suggestions: [
        {
          type: 'clarity',
          severity: 'info',
          title: 'Say what the token is',
          explanation: 'A return type such as `Jwt` would tell callers.',
          location: { startLine: 1 },
        },
      ],
    });
    writeFileSync(join(repo, 'src/auth.ts'), fixed);
    if (merge) {
      // Git's reflog keeps whole seconds, and the timeline puts a commit on the lane of who worked
      // there in its second: run at once (--fast), the demo lets the second its sessions began end.
      if (options.fast) await wait(1_010 - (Date.now() % 1_000));
      git(['commit', '-qm', 'Login with JWT', 'src/auth.ts']);
      say(`   alice sends version 2; bob ${green('approves')} it, and alice commits.`);
    } else
      say(
        `   alice sends version 2; bob ${green('approves')} it; alice keeps it uncommitted, as you answered.`,
      );
    say(
      `\nThat is the whole demo.${linger > 0 ? ` The dashboard stays up ${linger >= 120 ? `${Math.round(linger / 60)} minutes` : `${linger} s`} (Ctrl-C ends it).` : ''}`,
    );
    await wait(linger * 1000);
  } catch (error) {
    if (!(error instanceof Interrupted)) throw error;
    say('Stopped.');
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
    await hub.close();
    await app.close();
    rmSync(repo, { recursive: true, force: true });
    if (!options.home) rmSync(home, { recursive: true, force: true });
  }
}

class Interrupted extends Error {}
