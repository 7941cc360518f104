import { inline } from '../../core/fence.js';
import {
  addedContext,
  CONTINUING_SOURCES,
  continueTurn,
  type HookEvent,
  type HookInput,
  proposedText,
  recordsEdits,
  sessionContext,
  takesContext,
  toolDecision,
  toolTarget,
} from '../../integrations/agent-hooks.js';
import type { ClientIdentity } from '../sessions/session-types.js';
import type { CoreServices } from '../tool-context.js';

const CLIENT_NAMES = {
  claude: 'claude-code',
  gemini: 'gemini-cli',
  codex: 'codex-cli',
  cursor: 'cursor',
} as const;

/** What a hook answers: its output for the client (null: nothing to say), or why it cannot decide. */
export type HookAnswer = { output: Record<string, unknown> | null } | { unchecked: string; next: string };

/**
 * The answer to one hook event of an agent client, for the client session `identity` names: the
 * session's start and end, news before a prompt or after a tool use, and before an edit or a shell
 * command the check against other sessions' claims. Run by the hook process itself, or (team mode,
 * a hub on this machine) by the hub for it. `actedAt`: when the agent acted (the prompt, the tool
 * use), at the latest when its hook began; what it was delivered before then is acted on. A hook
 * that runs its ask itself after a server took it says so: news that server delivered meanwhile
 * (this very ask's) is not.
 */
export async function answerHook(
  app: CoreServices,
  event: HookEvent,
  input: HookInput,
  identity: ClientIdentity,
  actedAt?: number,
): Promise<HookAnswer> {
  const client = CLIENT_NAMES[input.format];
  if (event === 'session-end') {
    const worktree = app.sessions.locate(input.cwd).worktree;
    await app.sessions.clients.endClientSession(identity, worktree, input.reason);
    return { output: null };
  }
  if (event === 'session-start') {
    // After /clear, /compact or --resume the client says its new id carries the session on.
    const continues = CONTINUING_SOURCES.has(input.source ?? '');
    const { session } = await app.enforcement.sessionFor(identity, input.cwd, client, continues);
    return { output: session ? sessionContext(input.format, await app.inbox.welcome(session)) : null };
  }
  if (event === 'user-prompt-submit') {
    const { session } = await app.enforcement.sessionFor(identity, input.cwd, client);
    if (session) await app.inbox.acting(session, undefined, actedAt);
    const news = session && takesContext(input) ? await app.inbox.deliver(session, 'prompt') : null;
    return { output: news ? addedContext(input.format, event, news) : null };
  }
  if (event === 'turn-end') {
    // A subagent's end is not its session's: the main agent goes on anyway.
    if (input.agentId) return { output: null };
    const { session } = await app.enforcement.sessionFor(identity, input.cwd, client);
    const news = session ? await app.inbox.atTurnEnd(session, input) : null;
    if (news) app.log.info('hook.turn_continued', { session: session!.id, client });
    return { output: news ? continueTurn(input.format, news) : input.format === 'cursor' ? {} : null };
  }
  // Waiting for news belongs to the machine's server (it answers `wake` itself): here, none.
  if (event === 'wake') return { output: null };
  const target = toolTarget(input);
  if (event === 'post-tool-use') {
    const { session } = await app.enforcement.sessionFor(identity, input.cwd, client);
    if (!session) {
      if (target && 'files' in target)
        app.log.info('hook.edit_unclaimed', {
          files: target.files,
          why: 'the client process has several sessions here and did not say which one edited',
        });
      return { output: null };
    }
    await app.inbox.acting(session, undefined, actedAt);
    if (target && 'files' in target && recordsEdits(input))
      await app.enforcement.recordEdits(session, target.files, input.cwd);
    // A subagent's tool call: its context is thrown away when it finishes, so news waits for the
    // main agent (as it does for an answer the client drops).
    if (input.agentId || !takesContext(input)) return { output: null };
    const news = await app.inbox.deliver(session, 'tool_response');
    return { output: news ? addedContext(input.format, event, news) : null };
  }
  if (!target) return { output: null };
  const { session, viewpoint } = await app.enforcement.sessionFor(identity, input.cwd, client);
  const action = 'files' in target ? `Editing ${inline(target.files.join(', '), 300)}` : '';
  let verdict =
    'files' in target
      ? await app.enforcement.checkPaths(viewpoint, target.files, input.cwd, action)
      : await app.enforcement.checkCommand(viewpoint, target.command, input.cwd);
  if (verdict.unchecked) {
    app.log.info('hook.unchecked', {
      session: session?.id ?? null,
      tool: input.toolName,
      why: verdict.unchecked,
    });
    return { unchecked: verdict.unchecked, next: 'Split it, or check its files with collab_check first.' };
  }
  const decision = app.config.enforcement;
  const single = 'files' in target && target.files.length === 1 ? target.files[0]! : null;
  const propose = (current: string) => proposedText(input, current);
  let notes: string[] = [];
  if (single !== null && verdict.reason) {
    // Held in part (a symbol, or another session's edits): only what this edit reaches counts.
    const narrowed = await app.enforcement.narrowToEdit(
      viewpoint,
      single,
      input.cwd,
      verdict,
      propose,
      action,
    );
    verdict = narrowed;
    notes = narrowed.notes;
  }
  // What it runs is seen (a write it makes is not a stranger's): unless it is stopped.
  if (session && (!verdict.reason || decision === 'warn'))
    await app.enforcement.sighted(session, target, input.cwd);
  if (!verdict.reason) {
    // Nobody holds what it changes: the lines it writes may still meet another session's
    // uncommitted change.
    const merge =
      single === null ? null : await app.enforcement.checkEditMerge(viewpoint, single, input.cwd, propose);
    // Or merge cleanly and break the build: an interface changed under another's new use.
    const breaks =
      merge ??
      (single === null
        ? null
        : await app.enforcement.checkEditSemantic(viewpoint, single, input.cwd, propose));
    if (breaks) {
      app.log.info('hook.predicted_conflict', {
        session: session?.id ?? null,
        tool: input.toolName,
        semantic: merge === null,
      });
      return {
        output: toolDecision(input.format, decision === 'warn' ? 'warn' : 'ask', breaks, input.clientEvent),
      };
    }
    return {
      output:
        notes.length > 0 ? toolDecision(input.format, 'warn', notes.join('\n'), input.clientEvent) : null,
    };
  }
  // Stopped (or asked): told when what stopped it is released.
  if (session && decision !== 'warn') await app.enforcement.waitFor(session, verdict.conflicts);
  app.log.info('hook.conflict', {
    session: session?.id ?? null,
    decision,
    tool: input.toolName,
    holders: [...new Set(verdict.conflicts.map((c) => c.session_id))],
    files: [...new Set(verdict.conflicts.map((c) => c.file))],
  });
  return { output: toolDecision(input.format, decision, verdict.reason, input.clientEvent) };
}
