import { App } from '../app/app.js';
import { loadConfig } from '../app/config.js';
import { resolveHome } from '../app/home.js';
import { createLogger } from '../app/log.js';
import { CollabError } from '../core/errors.js';
import { inline } from '../core/fence.js';
import {
  addedContext,
  CONTINUING_SOURCES,
  type HookEvent,
  type HookInput,
  parseHookEvent,
  parseHookInput,
  sessionContext,
  toolDecision,
  toolTarget,
} from '../integrations/agent-hooks.js';
import { hookClientSessionId } from '../integrations/client-env.js';
import { clientProcess } from '../integrations/process-tree.js';

/** A hook answers within this time whatever happens; the edit then goes ahead. */
const BUDGET_MS = 4000;
/** Database waits stay well inside the budget (they block the timer while they wait). */
const BUSY_TIMEOUT_MS = 1500;
const MAX_INPUT_BYTES = 8 * 1024 * 1024;

const CLIENT_NAMES = { claude: 'claude-code', gemini: 'gemini-cli' } as const;

/**
 * `session-collab hook <event>`: run by an agent client around its tool calls, with the client's
 * hook JSON on stdin. When it cannot decide (an internal error, the database locked past the
 * wait, out of time) it never lets an edit or a shell command through in silence: it does what
 * `enforcement_on_error` says (ask the user by default, or allow, or deny) and says why. Other
 * events just go on.
 */
export async function hook(eventName: string): Promise<void> {
  let app: App | undefined;
  let input: HookInput | undefined;
  let finished = false;
  // The answer is written whole before the process exits (a pipe takes large writes in parts).
  const done = (output: Record<string, unknown> | null) => {
    if (finished) return;
    finished = true;
    // The embedded file closes at once; a team database's connections end with the process.
    app?.close().catch(() => {});
    if (!output) process.exit(0);
    process.stdout.write(`${JSON.stringify(output)}\n`, () => process.exit(0));
  };
  const event = parseHookEvent(eventName);
  const undecided = (why: string, next?: string) =>
    done(event && input ? cannotDecide(event, input, why, next) : null);
  const timer = setTimeout(() => {
    app?.log.warn('hook.timeout', { hook: eventName, budget_ms: BUDGET_MS });
    undecided(`it took longer than ${BUDGET_MS / 1000} s`);
  }, BUDGET_MS);
  timer.unref();
  try {
    if (!event) {
      process.stderr.write(
        `session-collab: unknown hook event "${eventName}" (use session-start, session-end, pre-tool-use, post-tool-use or user-prompt-submit)\n`,
      );
      return done(null);
    }
    const raw = await readStdin();
    input = parseHookInput(raw, process.cwd());
    app = await App.open({ busyTimeoutMs: BUSY_TIMEOUT_MS });
    done(await handle(app, event, input));
  } catch (error) {
    try {
      // Without the app (it may be what failed), log straight to the file.
      (app?.log ?? createLogger(resolveHome().log, 'info')).error('hook.failed', {
        hook: eventName,
        message: (error as Error).message,
        stack: (error as Error).stack,
      });
    } catch {
      // Not even the log: decide all the same.
    }
    // A known fault says what to do (e.g. which process holds the database).
    undecided(
      (error as Error).message.split('\n')[0]!.slice(0, 300),
      error instanceof CollabError ? error.hint : undefined,
    );
  }
}

/**
 * The answer when an edit or a shell command could not be checked: `enforcement_on_error` from
 * config.json (read on its own: the app may be what failed), ask by default; always with a message
 * for the user. Null for other events and tool calls (nothing to protect).
 */
function cannotDecide(
  event: HookEvent,
  input: HookInput,
  why: string,
  next = 'Run `session-collab doctor` if this repeats.',
): Record<string, unknown> | null {
  if (event !== 'pre-tool-use' || !toolTarget(input)) return null;
  let onError: 'allow' | 'ask' | 'deny' = 'ask';
  try {
    onError = loadConfig(resolveHome().config).enforcement_on_error;
  } catch {
    // A broken config is itself a reason to ask.
  }
  const message = `session-collab could not check this ${input.toolName ?? 'tool call'} against other sessions' claims (${why}).${onError === 'allow' ? ' It goes ahead unchecked.' : ''} ${next}`;
  if (onError === 'allow') return { systemMessage: message };
  return { ...toolDecision(input.format, onError, message), systemMessage: message };
}

async function handle(app: App, event: HookEvent, input: HookInput): Promise<Record<string, unknown> | null> {
  const identity = {
    sessionId: hookClientSessionId(process.env, input.sessionId),
    process: clientProcess(),
  };
  const client = CLIENT_NAMES[input.format];
  if (event === 'session-end') {
    const worktree = (await app.sessions.locate(input.cwd)).worktree;
    await app.sessions.clients.endClientSession(identity, worktree, input.reason);
    return null;
  }
  if (event === 'session-start') {
    // After /clear, /compact or --resume the client says its new id carries the session on.
    const continues = CONTINUING_SOURCES.has(input.source ?? '');
    const { session } = await app.enforcement.sessionFor(identity, input.cwd, client, continues);
    return session ? sessionContext(input.format, await app.inbox.welcome(session)) : null;
  }
  if (event === 'user-prompt-submit') {
    const { session } = await app.enforcement.sessionFor(identity, input.cwd, client);
    const news = session ? await app.inbox.deliver(session) : null;
    return news ? addedContext(input.format, event, news) : null;
  }
  const target = toolTarget(input);
  if (event === 'post-tool-use') {
    const { session } = await app.enforcement.sessionFor(identity, input.cwd, client);
    if (!session) {
      if (target && 'files' in target)
        app.log.info('hook.edit_unclaimed', {
          files: target.files,
          why: 'the client process has several sessions here and did not say which one edited',
        });
      return null;
    }
    if (target && 'files' in target) await app.enforcement.recordEdits(session, target.files, input.cwd);
    // A subagent's tool call: its context is thrown away when it finishes, so news waits for the
    // main agent.
    if (input.agentId) return null;
    const news = await app.inbox.deliver(session);
    return news ? addedContext(input.format, event, news) : null;
  }
  if (!target) return null;
  const { session, viewpoint } = await app.enforcement.sessionFor(identity, input.cwd, client);
  const verdict =
    'files' in target
      ? await app.enforcement.checkPaths(
          viewpoint,
          target.files,
          input.cwd,
          `Editing ${inline(target.files.join(', '), 300)}`,
        )
      : await app.enforcement.checkCommand(viewpoint, target.command, input.cwd);
  if (verdict.unchecked) {
    app.log.info('hook.unchecked', {
      session: session?.id ?? null,
      tool: input.toolName,
      why: verdict.unchecked,
    });
    return cannotDecide(
      event,
      input,
      verdict.unchecked,
      'Split it, or check its files with collab_check first.',
    );
  }
  if (!verdict.reason) return null;
  const decision = app.config.enforcement;
  app.log.info('hook.conflict', {
    session: session?.id ?? null,
    decision,
    tool: input.toolName,
    holders: [...new Set(verdict.conflicts.map((c) => c.session_id))],
    files: [...new Set(verdict.conflicts.map((c) => c.file))],
  });
  return toolDecision(input.format, decision, verdict.reason);
}

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    if (process.stdin.isTTY) return reject(new Error('no hook input on stdin (it is a terminal)'));
    let size = 0;
    const chunks: Buffer[] = [];
    process.stdin.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_INPUT_BYTES) {
        reject(new Error('hook input too large'));
        process.stdin.destroy();
        return;
      }
      chunks.push(chunk);
    });
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', reject);
  });
}
