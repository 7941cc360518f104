import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Config, databaseUrl, loadConfig } from '../app/config.js';
import { CoreApp } from '../app/core-app.js';
import { type HomePaths, resolveHome } from '../app/home.js';
import { createLogger } from '../app/log.js';
import { CollabError } from '../core/errors.js';
import { VERSION } from '../core/version.js';
import { answerHook } from '../features/enforcement/hook-answers.js';
import { asHookCall, hookCaller, hookRecording } from '../features/enforcement/hook-calls.js';
import {
  type HookEvent,
  type HookInput,
  parseHookEvent,
  parseHookInput,
  toolDecision,
  toolTarget,
} from '../integrations/agent-hooks.js';
import { hookClientSessionId } from '../integrations/client-env.js';
import { cursorHooksInstalled } from '../integrations/cursor-hooks.js';
import type { HookCall } from '../integrations/hook-call.js';
import { isCursorHookEvent } from '../integrations/hook-commands.js';
import { clientProcess } from '../integrations/process-tree.js';
import { relaySocketPath, serverKey } from '../integrations/relay-address.js';
import {
  askHub,
  askServer,
  hookRequest,
  newHookCallId,
  readStdin,
  type ServerReply,
  takeHandoff,
} from './hook-server.js';

/** A hook answers within this time whatever happens; the edit then goes ahead. */
const BUDGET_MS = 4000;
/** Database waits stay well inside the budget (they block the timer while they wait). */
const BUSY_TIMEOUT_MS = 1500;

/**
 * `session-collab hook <event>`: run by an agent client around its tool calls, with the client's
 * hook JSON on stdin. When it cannot decide (an internal error, the database locked past the
 * wait, out of time) it never lets an edit or a shell command through in silence: it does what
 * `enforcement_on_error` says (ask the user by default, or allow, or deny) and says why. Other
 * events just go on.
 */
export async function hook(eventName: string): Promise<void> {
  let app: CoreApp | undefined;
  let input: HookInput | undefined;
  let finished = false;
  // The answer is written whole before the process exits (a pipe takes large writes in parts).
  const done = (output: Record<string, unknown> | null) => {
    if (finished) return;
    finished = true;
    // The embedded file closes at once; a team database's connections end with the process.
    app?.close().catch(() => {});
    // Cursor takes an empty answer for a failed hook (and stops the call where it fails closed).
    const answer = output ?? (input?.format === 'cursor' ? cursorAllow(eventName) : null);
    if (!answer) process.exit(0);
    process.stdout.write(`${JSON.stringify(answer)}\n`, () => process.exit(0));
  };
  const event = parseHookEvent(eventName);
  // When the hook cannot work (a broken config, an unreadable database, a read-only home, out of
  // time), the user is told so once per client session, as `doctor` would; an edit or a shell
  // command is decided by `enforcement_on_error` every time.
  const undecided = (reason: string, next?: string) => {
    if (event === 'pre-tool-use' && !input) return unreadable(reason);
    if (!event || !input) return done(null);
    const why = reason.replace(/[.\s]+$/, ''); // it goes in parentheses, inside a sentence
    const tell = firstTime(input.sessionId, why);
    done(
      cannotDecide(event, input, why, next, tell) ??
        (tell && TAKES_SYSTEM_MESSAGE.has(input.format)
          ? { systemMessage: `session-collab is not working here (${why}). ${next ?? DOCTOR}` }
          : null),
    );
  };
  // Handed over by the hook's first step (hook-first.ts): what it read and asked, and its time.
  const handed = takeHandoff();
  const startedAt = handed?.startedAt ?? Date.now();
  const timer = setTimeout(
    () => {
      app?.log.warn('hook.timeout', { hook: eventName, budget_ms: BUDGET_MS });
      undecided(`it took longer than ${BUDGET_MS / 1000} s`);
    },
    Math.max(0, BUDGET_MS - (Date.now() - startedAt)),
  );
  timer.unref();
  try {
    if (!event) {
      process.stderr.write(
        `session-collab: unknown hook event "${eventName}" (use session-start, session-end, pre-tool-use, post-tool-use, user-prompt-submit, turn-end or wake; for Cursor, its event names)\n`,
      );
      return done(null);
    }
    if (handed?.readError) throw new Error(handed.readError);
    const raw = handed ? handed.raw : await readStdin();
    input = parseHookInput(raw, process.cwd(), eventName);
    // Cursor runs Claude Code's hooks too: where our Cursor hooks are there, they answer.
    if (
      input.format === 'cursor' &&
      !isCursorHookEvent(eventName) &&
      cursorHooksInstalled(input.roots, input.cwd)
    )
      return done(null);
    const identity = {
      sessionId: hookClientSessionId(process.env, input.sessionId),
      process: handed?.client !== undefined ? handed.client : clientProcess(),
    };
    const home = resolveHome();
    const request = hookRequest(raw, identity);
    // The machine's server answers when it runs (it has the database open and its statements
    // ready); else, in team mode, a hub here; else this process opens the database itself.
    // One call whoever is asked: `again` once one took it and gave no answer (it may have done part).
    let call: HookCall = handed?.call ?? { id: newHookCallId(), again: false };
    const asked = (reply: ServerReply) => {
      if (reply.lost) call = { ...call, again: true };
      return reply.answer;
    };
    let answer =
      handed?.server !== undefined
        ? handed.server
        : asked(await askServer(relaySocketPath(home.home, serverKey(VERSION)), eventName, request, call));
    const config = loadConfig(home.config);
    const hub = answer ? null : localTeamHub(home, config);
    if (hub) answer = asked(await askHub(hub, eventName, request, call));
    if (!answer) {
      app = await CoreApp.open({ paths: home, config, busyTimeoutMs: BUSY_TIMEOUT_MS });
      // An ask a server took and never answered: what it did is answered from its records, the rest
      // done here, once.
      const [opened, read] = [app, input];
      answer = await asHookCall(call.again ? hookRecording(call, hookCaller(request)) : null, () =>
        answerHook(opened, event, read, identity, startedAt),
      );
    }
    done('unchecked' in answer ? cannotDecide(event, input, answer.unchecked, answer.next) : answer.output);
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
 * A tool call whose hook input could not be read (none came, it did not end in time, it is too
 * large or no JSON object): no client's answer can be shaped without knowing the client, so it is
 * stopped the way every client reads (exit 2, the reason on stderr), unless `enforcement_on_error`
 * lets unchecked calls through. It is never let through in silence.
 */
function unreadable(reason: string): void {
  let onError: 'allow' | 'ask' | 'deny' = 'ask';
  try {
    onError = loadConfig(resolveHome().config).enforcement_on_error;
  } catch {
    // A broken config is itself a reason to stop.
  }
  const why = reason.replace(/[.\s]+$/, '');
  if (onError === 'allow') {
    process.stderr.write(
      `session-collab could not read this hook's input (${why}); the call goes ahead unchecked.\n`,
    );
    process.exit(0);
  }
  process.stderr.write(
    `session-collab could not read this hook's input (${why}), so it cannot tell whether this call touches files another session holds: it is stopped. Try again; if it keeps happening, run \`session-collab doctor\`.\n`,
    () => process.exit(2),
  );
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
  next = DOCTOR,
  tell = true,
): Record<string, unknown> | null {
  if (event !== 'pre-tool-use' || !toolTarget(input)) return null;
  let onError: 'allow' | 'ask' | 'deny' = 'ask';
  try {
    onError = loadConfig(resolveHome().config).enforcement_on_error;
  } catch {
    // A broken config is itself a reason to ask.
  }
  const message = `session-collab could not check this ${input.toolName ?? 'tool call'} against other sessions' claims (${why}).${onError === 'allow' ? ' It goes ahead unchecked.' : ''} ${next}`;
  // Codex and Cursor take their own fields only (Codex runs the tool on anything else): the agent
  // is told instead.
  if (!TAKES_SYSTEM_MESSAGE.has(input.format))
    return toolDecision(input.format, onError === 'allow' ? 'warn' : onError, message, input.clientEvent);
  if (onError === 'allow') return tell ? { systemMessage: message } : {};
  return { ...toolDecision(input.format, onError, message), ...(tell ? { systemMessage: message } : {}) };
}

/** Cursor's answer that lets the call go on: a permission for the hooks that gate, else nothing. */
function cursorAllow(eventName: string): Record<string, unknown> {
  return eventName === 'preToolUse' || eventName === 'beforeShellExecution' ? { permission: 'allow' } : {};
}

/** Clients whose hook answers may carry a `systemMessage` for the user. */
const TAKES_SYSTEM_MESSAGE = new Set(['claude', 'gemini']);

const DOCTOR = 'Run `session-collab doctor` if this repeats.';

/**
 * Whether `problem` is new to this client session (and from now on, not): a marker in the
 * system's temporary folder, since the home folder may be what is broken. Its numbers (how long a
 * lock was waited for, which process holds it) are left out: the same problem told again with
 * another wait is not new.
 */
function firstTime(sessionId: string | null, problem: string): boolean {
  // FNV-1a: no crypto module to load on a hook's path.
  let hash = 0x811c9dc5;
  const kind = problem.slice(0, 80).replace(/\d+(?:\.\d+)?/g, '#');
  for (const c of `${resolveHome().home}\0${sessionId ?? process.ppid}\0${kind}`) {
    hash ^= c.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  try {
    writeFileSync(join(tmpdir(), `session-collab-told-${hash.toString(16)}`), '', { flag: 'wx' });
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'EEXIST';
  }
}

/**
 * In team mode, the hub that runs on this machine for this home folder (it writes `hub.json`
 * while it listens), if any: a hook asks it rather than open the team database itself, which
 * would load its driver and connect on every edit.
 */
function localTeamHub(home: HomePaths, config: Config): string | null {
  if (!databaseUrl(config)) return null;
  try {
    const { url, pid } = JSON.parse(readFileSync(join(home.home, 'hub.json'), 'utf8')) as {
      url?: unknown;
      pid?: unknown;
    };
    if (typeof url !== 'string' || typeof pid !== 'number') return null;
    process.kill(pid, 0);
    return url;
  } catch {
    return null;
  }
}
