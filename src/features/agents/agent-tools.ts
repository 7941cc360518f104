import { z } from 'zod';
import { AGENT_PROVIDERS, type AgentProvider } from '../../core/agent-events.js';
import { inline, quoteBlock } from '../../core/fence.js';
import { DEFAULT_WAIT_SECONDS, MAX_WAIT_SECONDS, PROGRESS_EVERY_MS, waitMs } from '../../core/waits.js';
import type { AgentRunRow } from '../../store/agent-runs-store.js';
import { cursorField, idOf, list, moreNote, nextCursorField, text, words } from '../fields.js';
import type { Connection } from '../sessions/connection.js';
import { type CallControls, defineTool } from '../tool-context.js';
import type { AgentsService } from './agents-service.js';

const providerField = z.enum(AGENT_PROVIDERS as [AgentProvider, ...AgentProvider[]]).default('claude');
const conversationField = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[\w.-]+$/, 'letters, digits, _ . -')
  .default('default')
  .describe('Name of an independent conversation');
const waitField = z
  .number()
  .int()
  .min(0)
  .max(MAX_WAIT_SECONDS)
  .optional()
  .describe('Default 45, at most 110');

const runView = z.object({
  execution_id: z.string(),
  status: z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled', 'timed_out', 'lost']),
  provider: z.string(),
  conversation: z.string(),
  result: z.string().optional(),
  error: z.string().optional(),
  /** The CLI's conversation id this run produced: a point to continue from (set_current_session). */
  session_id: z.string().optional(),
  resumed_from: z.string().optional(),
  /** Once it started: whether it continued its conversation; when not, why (fresh_reason). */
  continued: z.boolean().optional(),
  fresh_reason: z.string().optional(),
  cost_usd: z.number().optional(),
  duration_ms: z.number().optional(),
  output_truncated: z.boolean().optional(),
});

function view(r: AgentRunRow): z.input<typeof runView> {
  return {
    execution_id: r.id,
    status: r.status,
    provider: r.provider,
    conversation: r.conversation,
    ...(r.result !== null ? { result: r.result } : {}),
    ...(r.error !== null ? { error: r.error } : {}),
    ...(r.produced !== null ? { session_id: r.produced } : {}),
    ...(r.resumed_from !== null ? { resumed_from: r.resumed_from } : {}),
    ...(r.started_at !== null ? { continued: r.resumed_from !== null } : {}),
    ...(r.fresh_reason !== null ? { fresh_reason: r.fresh_reason } : {}),
    ...(r.cost_usd !== null ? { cost_usd: r.cost_usd } : {}),
    ...(r.duration_ms !== null ? { duration_ms: r.duration_ms } : {}),
    ...(r.output_truncated ? { output_truncated: true } : {}),
  };
}

function viewText(o: z.output<typeof runView>): string {
  switch (o.status) {
    case 'queued':
    case 'running':
      return `Run ${o.execution_id} (${o.provider}, ${o.conversation}) is ${o.status}: call execution_status with this id to wait for it.`;
    case 'succeeded':
      return `${o.provider} answered (run ${o.execution_id}${o.session_id ? `, session ${o.session_id}` : ''}${o.output_truncated ? ', output cut at agents.output_chars' : ''}${o.fresh_reason ? `; a new conversation: ${o.fresh_reason}` : ''}):\n${quoteBlock(o.result ?? '', 20_000, 400, '[… cut]')}`;
    default:
      return `Run ${o.execution_id} ${o.status}: ${inline(o.error ?? '', 600)}`;
  }
}

/**
 * Waits for a run (telling the client what the agent does meanwhile); the run as it stands then.
 * Given the connection (the call that started the run), a cancelled call cancels the run too.
 */
async function waitForRun(
  service: AgentsService,
  id: string,
  seconds: number | undefined,
  call: CallControls | undefined,
  startedBy?: Connection,
): Promise<z.input<typeof runView>> {
  const cancelRun = async () => {
    if (startedBy) await service.cancel(await startedBy.actor(undefined), id);
  };
  const onAbort = () => {
    cancelRun().catch(() => {
      // the run ended meanwhile, or its session did: nothing left to cancel
    });
  };
  call?.signal.addEventListener('abort', onAbort, { once: true });
  const row = await service.waitFor(
    id,
    waitMs(seconds, DEFAULT_WAIT_SECONDS, MAX_WAIT_SECONDS),
    call?.signal,
    call
      ? {
          everyMs: PROGRESS_EVERY_MS,
          fn: (activity, waited) =>
            call.progress(`${inline(activity, 160)} (${Math.round(waited / 1000)} s)`),
        }
      : undefined,
  );
  call?.signal.removeEventListener('abort', onAbort);
  return view(row);
}

const executeInput = {
  prompt: words('workContentChars'),
  provider: providerField,
  conversation: conversationField,
  cwd: text('pathInputChars').optional().describe('Folder inside the project'),
  wait_seconds: waitField,
};

export const executeClaude = defineTool({
  name: 'execute_claude',
  title: 'Run an agent CLI',
  description:
    'Hand a prompt to claude (or codex, gemini), continuing the conversation. Waits up to wait_seconds, then returns running: poll execution_status.',
  kind: 'write',
  waits: true,
  waitDefault: () => DEFAULT_WAIT_SECONDS,
  input: z.strictObject(executeInput),
  output: runView,
  async handler({ app, connection, call }, input) {
    const service = app.agents;
    const run = await service.execute(await connection.actor(undefined), {
      ...input,
      env: connection.env,
      remote: connection.remote,
    });
    return waitForRun(service, run.id, input.wait_seconds, call, connection);
  },
  text: viewText,
});

export const executeClaudeWithContext = defineTool({
  name: 'execute_claude_with_context',
  title: 'Run an agent CLI with files',
  description:
    'As execute_claude, with the contents of files (paths inside the project) put before the prompt.',
  kind: 'write',
  waits: true,
  waitDefault: () => DEFAULT_WAIT_SECONDS,
  input: z.strictObject({ ...executeInput, file_paths: list(text('pathInputChars')) }),
  output: runView,
  async handler({ app, connection, call }, input) {
    const service = app.agents;
    const run = await service.execute(await connection.actor(undefined), {
      ...input,
      files: input.file_paths,
      env: connection.env,
      remote: connection.remote,
    });
    return waitForRun(service, run.id, input.wait_seconds, call, connection);
  },
  text: viewText,
});

export const executionStatus = defineTool({
  name: 'execution_status',
  title: 'Wait for a run',
  description: 'A run of execute_claude: waits up to wait_seconds for it to end.',
  kind: 'read',
  waits: true,
  waitDefault: () => DEFAULT_WAIT_SECONDS,
  input: z.strictObject({ execution_id: idOf('run'), wait_seconds: waitField }),
  output: runView,
  async handler({ app, connection, call }, input) {
    const service = app.agents;
    await service.get(await connection.viewer(undefined), input.execution_id);
    return waitForRun(service, input.execution_id, input.wait_seconds, call);
  },
  text: viewText,
});

export const cancelExecution = defineTool({
  name: 'cancel_execution',
  title: 'Cancel a run',
  description: 'Stop a run of this session: the CLI and everything it started are killed.',
  kind: 'destructive',
  idempotent: true,
  waits: true,
  input: z.strictObject({ execution_id: idOf('run') }),
  output: runView,
  async handler({ app, connection }, input) {
    const service = app.agents;
    await service.cancel(await connection.actor(undefined), input.execution_id);
    return view(await service.waitFor(input.execution_id, 5_000, undefined));
  },
  text: viewText,
});

export const getExecutionHistory = defineTool({
  name: 'get_execution_history',
  title: 'Agent runs',
  description:
    "This session's runs of agent CLIs (all_sessions: the project's), newest first; query searches prompts and results.",
  kind: 'read',
  input: z.strictObject({
    all_sessions: z.boolean().default(false).describe("Every session's runs of the project"),
    limit: z.number().int().min(1).max(100).default(10),
    cursor: cursorField,
    provider: z.enum(AGENT_PROVIDERS as [AgentProvider, ...AgentProvider[]]).optional(),
    conversation: z.string().min(1).max(100).optional(),
    query: text('queryChars').optional(),
  }),
  output: z.object({
    executions: z.array(
      runView.extend({
        prompt: z.string(),
        files: z.array(z.string()).nullable(),
        cwd: z.string(),
        input_tokens: z.number().nullable(),
        output_tokens: z.number().nullable(),
        created_at: z.string(),
        session: z.string(),
      }),
    ),
    next_cursor: nextCursorField,
  }),
  async handler({ app, connection }, input) {
    const page = await app.agents.history(await connection.viewer(undefined), {
      allSessions: input.all_sessions,
      provider: input.provider ?? null,
      conversation: input.conversation ?? null,
      query: input.query ?? null,
      limit: input.limit,
      cursor: input.cursor,
    });
    return {
      executions: page.items.map((r) => ({
        ...view(r),
        prompt: r.prompt.length > 2_000 ? `${r.prompt.slice(0, 1_999)}…` : r.prompt,
        files: r.files === null ? null : (JSON.parse(r.files) as string[]),
        cwd: r.cwd,
        input_tokens: r.input_tokens,
        output_tokens: r.output_tokens,
        created_at: new Date(r.created_at).toISOString(),
        session: r.session_id,
      })),
      next_cursor: page.next_cursor,
    };
  },
  text: (o) =>
    (o.executions.length === 0
      ? 'No runs.'
      : o.executions
          .map(
            (e) =>
              `[${e.execution_id}] ${e.provider}/${e.conversation} ${e.status}: ${inline(e.prompt, 100)}`,
          )
          .join('\n')) + moreNote(o.next_cursor),
});

export const clearExecutionHistory = defineTool({
  name: 'clear_execution_history',
  title: 'Clear run history',
  description:
    "Delete this session's finished runs (what get_execution_history lists); runs still going are kept, and each conversation still continues where it was.",
  kind: 'destructive',
  input: z.strictObject({}),
  output: z.object({ deleted: z.number(), kept_running: z.number() }),
  handler: async ({ app, connection }) => app.agents.clear(await connection.actor(undefined)),
  text: (o) =>
    [
      `${o.deleted} finished run(s) of this session deleted.`,
      ...(o.kept_running > 0
        ? [
            `Kept ${o.kept_running} still queued or running (cancel_execution ends one; clear again once it ends).`,
          ]
        : []),
      'Conversations continue where they were (reset_session starts one over).',
      "Other sessions' runs are theirs and stay (get_execution_history {all_sessions: true} lists them).",
    ].join(' '),
});

const pointInput = {
  provider: providerField,
  conversation: conversationField,
};

export const getCurrentSession = defineTool({
  name: 'get_current_session',
  title: 'Where a conversation stands',
  description: "The CLI session id the conversation's next call continues from (null: a new conversation).",
  kind: 'read',
  input: z.strictObject(pointInput),
  output: z.object({ session_id: z.string().nullable(), provider: z.string(), conversation: z.string() }),
  async handler({ app, connection }, input) {
    const session = await connection.actor(undefined);
    return {
      session_id: await app.agents.current(session, input.provider, input.conversation),
      provider: input.provider,
      conversation: input.conversation,
    };
  },
  text: (o) =>
    o.session_id
      ? `${o.provider}/${o.conversation} continues from ${o.session_id}.`
      : `${o.provider}/${o.conversation} starts fresh.`,
});

export const setCurrentSession = defineTool({
  name: 'set_current_session',
  title: 'Continue from a point',
  description:
    'Continue the conversation from a CLI session id an earlier run produced (claude: any; codex, gemini: the latest).',
  kind: 'write',
  idempotent: true,
  // session_id here is the CLI's (as in the original tool); the collab session is the connection's.
  input: z.strictObject({ ...pointInput, session_id: text('idChars') }),
  output: z.object({ session_id: z.string(), provider: z.string(), conversation: z.string() }),
  async handler({ app, connection }, input) {
    await app.agents.setCurrent(
      await connection.actor(undefined),
      input.provider,
      input.conversation,
      input.session_id,
    );
    return { session_id: input.session_id, provider: input.provider, conversation: input.conversation };
  },
  text: (o) => `${o.provider}/${o.conversation} now continues from ${o.session_id}.`,
});

export const resetSession = defineTool({
  name: 'reset_session',
  title: 'Start a conversation over',
  description: "The conversation's next call starts a new CLI conversation.",
  kind: 'write',
  idempotent: true,
  input: z.strictObject(pointInput),
  output: z.object({ provider: z.string(), conversation: z.string() }),
  async handler({ app, connection }, input) {
    await app.agents.setCurrent(await connection.actor(undefined), input.provider, input.conversation, null);
    return { provider: input.provider, conversation: input.conversation };
  },
  text: (o) => `${o.provider}/${o.conversation} starts fresh on its next call.`,
});

export const testClaudeCli = defineTool({
  name: 'test_claude_cli',
  title: 'Check an agent CLI',
  description: 'Whether the CLI is found, its version, and the permission mode its runs get.',
  kind: 'read',
  waits: true,
  input: z.strictObject({ provider: providerField }),
  output: z.object({
    found: z.boolean(),
    path: z.string().nullable(),
    version: z.string().nullable(),
    permission: z.string(),
    tried: z.array(z.string()),
  }),
  handler: ({ app, connection }, input) => app.agents.test(input.provider, connection.env),
  text: (o) =>
    o.found
      ? `Found ${o.path} (${o.version ?? 'version unknown'}); runs get ${o.permission}.`
      : `Not found; looked at: ${o.tried.join(', ')}.`,
});

export const agentTools = [
  executeClaude,
  executeClaudeWithContext,
  getExecutionHistory,
  clearExecutionHistory,
  getCurrentSession,
  setCurrentSession,
  resetSession,
  testClaudeCli,
  executionStatus,
  cancelExecution,
];
