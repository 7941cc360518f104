import {
  type CallToolResult,
  type JSONRPCMessage,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { App } from '../app/app.js';
import { ERROR_CODES, type ErrorBody } from '../core/errors.js';
import { inline } from '../core/fence.js';
import { nextSteps } from '../core/next-steps.js';
import { describeNotification, notificationChars } from '../core/notifications.js';
import { VERSION } from '../core/version.js';
import { describeZodError } from '../core/zod-issues.js';
import { withFullIds } from '../features/fields.js';
import type { NotificationView } from '../features/notifications/notifications-service.js';
import type { Connection } from '../features/sessions/connection.js';
import type { CallControls, ToolContext, Tool as ToolDescriptor } from '../features/tool-context.js';
import { SENT_AGAIN, WAITED_MS } from '../integrations/relay-address.js';
import { toErrorBody } from './tool-result.js';

export const SERVER_NAME = 'session-collab';
export const SERVER_VERSION = VERSION;

interface ListedTool {
  descriptor: ToolDescriptor;
  definition: Tool;
}

/**
 * JSON Schema of a descriptor's input or output, kept small: every listed schema costs the client's
 * context on every turn (the default list is kept under 2,000 tokens: docs/benchmarks.md).
 * - Inputs list every field, type, default and enum; length limits and the refusal of unknown fields
 *   are enforced server-side only (a bad value is an INVALID_INPUT that names the field).
 * - Outputs name their top-level fields, each open (`{}`) and none marked required: a client reads
 *   what is there. What each field holds (its type, its values, the fields of its entries) is in the
 *   README's tool reference, generated from the same descriptors; the server validates every result
 *   against the whole schema before it answers. The response envelope adds fields to every result.
 */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io }) as Record<string, unknown>;
  return (io === 'input' ? compactInput(rest) : compactOutput(rest)) as Record<string, unknown>;
}

function compactInput(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compactInput);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'minLength' || key === 'maxLength' || key === 'maxItems' || key === 'additionalProperties')
      continue;
    out[key] = key === 'properties' ? mapValues(value, compactInput) : compactInput(value);
  }
  return out;
}

function compactOutput(node: unknown): unknown {
  const schema = node as { properties?: Record<string, unknown> };
  return { type: 'object', properties: mapValues(schema.properties ?? {}, () => ({})) };
}

function mapValues(record: unknown, fn: (v: unknown) => unknown): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record as Record<string, unknown>).map(([k, v]) => [k, fn(v)]));
}

/** MCP tool annotations from a tool's kind, listing only what differs from the protocol defaults. */
function annotations(d: ToolDescriptor): NonNullable<Tool['annotations']> {
  if (d.kind === 'read') return { readOnlyHint: true, openWorldHint: false };
  return {
    destructiveHint: d.kind === 'destructive',
    ...(d.idempotent ? { idempotentHint: true } : {}),
    // Absent, the hint is the protocol's default: true.
    ...(d.openWorld ? {} : { openWorldHint: false }),
  };
}

/**
 * The MCP `tools/list` entries of descriptors; annotations derive from each tool's kind. `built`
 * holds entries worked out when the bundle was built (dist/tool-definitions.json), used as they are.
 */
export function toolDefinitions(tools: ToolDescriptor[], built: Record<string, Tool> = {}): Tool[] {
  return tools.map(
    (d) =>
      built[d.name] ?? {
        name: d.name,
        // No title: a client shows the name, and the default list is kept under its token budget
        // (the title is in the tool reference).
        description: d.description,
        inputSchema: jsonSchema(d.input, 'input') as Tool['inputSchema'],
        outputSchema: jsonSchema(d.output, 'output') as Tool['outputSchema'],
        annotations: annotations(d),
      },
  );
}

/** A `tools/call` request as `CollabServer.direct` takes it (mcp/direct-calls.ts checks its shape). */
export interface DirectToolCall {
  id: string | number;
  params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> };
}

/**
 * The SDK's server, with `tools/call` validated once. The SDK checks a `tools/call` request against
 * the protocol's schema when it arrives (the handler registered with `setRequestHandler`), and its
 * default wrapper then checks the request a second time and parses the whole result against the
 * protocol's result schema, copying it. Here every result is built by `envelope` below in one shape
 * (text content, a structured object checked against the tool's own output schema, `isError`), and
 * no tool answers with `input_required`: the wrapper's checks are left out of the hot path.
 */
export class CollabServer extends Server {
  /**
   * Answers a call of a tool that does not wait, without the SDK's request machinery
   * (mcp/direct-calls.ts); null for a tool that waits or is not served here: the SDK answers those.
   */
  direct: (request: DirectToolCall) => Promise<CallToolResult> | null = () => null;

  protected override _wrapHandler(
    method: string,
    handler: Parameters<Server['_wrapHandler']>[1],
  ): ReturnType<Server['_wrapHandler']> {
    if (method !== 'tools/call') return super._wrapHandler(method, handler);
    return handler;
  }
}

/**
 * Serves descriptors over one MCP connection. Validation, the heartbeat, error mapping and the
 * response envelope live here, once, rather than in each tool.
 */
export function createMcpServer(
  app: App,
  connection: Connection,
  { tools, instructions }: { tools: ToolDescriptor[]; instructions: string },
  built: Record<string, Tool> = {},
): CollabServer {
  const server = new CollabServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions },
  );
  const definitions = toolDefinitions(tools, built);
  const byName = new Map<string, ListedTool>(
    tools.map((d, i) => [d.name, { descriptor: d, definition: definitions[i]! }]),
  );

  /** One call of a listed tool, its result as the connection's protocol takes it. */
  const answer = async (listed: ListedTool, request: DirectToolCall, ctx?: ServerContext) => {
    const { descriptor } = listed;
    const again = request.params._meta?.[SENT_AGAIN] === true;
    const waited = request.params._meta?.[WAITED_MS];
    const waitedBefore =
      typeof waited === 'number' && Number.isFinite(waited)
        ? Math.min(Math.max(0, waited), WAITED_MAX_MS)
        : 0;
    const args = waitLeft(descriptor, request.params.arguments ?? {}, waitedBefore, { app, connection });
    const result = await connection.recorded(request.id, again, () =>
      descriptor.waits && ctx
        ? callTool(app, connection, descriptor, args, callControls(app, server, ctx, waitedBefore))
        : callTool(app, connection, descriptor, args),
    );
    return server.projectCallToolResult(result, listed.definition.outputSchema);
  };

  server.setRequestHandler('tools/list', () => ({ tools: definitions }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const listed = byName.get(request.params.name);
    if (!listed)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
    return answer(listed, { id: ctx.mcpReq.id, params: request.params as DirectToolCall['params'] }, ctx);
  });
  server.direct = (request) => {
    const listed = byName.get(request.params.name);
    return listed && !listed.descriptor.waits ? answer(listed, request) : null;
  };
  return server;
}

/** The longest a call sent again is taken to have waited already (a relay's say). */
const WAITED_MAX_MS = 10 * 60_000;

/**
 * A waiting call's arguments as it is asked again after it has waited `waitedMs` (a relay sends it
 * again to the next server): its wait, the one given or its default, cut to what is left of it, a
 * second at least when it asked for any. Anything else as it came (what is not a number is refused
 * by the input's schema as before).
 */
function waitLeft(
  d: ToolDescriptor,
  args: Record<string, unknown>,
  waitedMs: number,
  ctx: Pick<ToolContext, 'app' | 'connection'>,
): Record<string, unknown> {
  if (!d.waits || !(waitedMs > 0)) return args;
  const field = d.input.shape.wait_seconds as z.ZodType | undefined;
  if (!field) return args;
  let asked = args.wait_seconds;
  if (asked === undefined) {
    const byDefault = field.safeParse(undefined);
    asked = (byDefault.success ? byDefault.data : undefined) ?? d.waitDefault?.(ctx as ToolContext);
  }
  if (typeof asked !== 'number' || !Number.isFinite(asked)) return args;
  const left = Math.ceil(asked - waitedMs / 1000);
  return { ...args, wait_seconds: Math.max(asked >= 1 ? 1 : 0, Math.min(asked, left)) };
}

/**
 * Tells `connection` of each answer `transport` sent, once the system has it (a relay then gets
 * it even if this process dies): what the call's writes recorded may go (`Connection.answered`).
 */
export function tellAnswers(
  transport: { send(message: JSONRPCMessage, options?: never): Promise<void> },
  connection: Connection,
): void {
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    await send(message, options);
    if ('id' in message && message.id !== undefined && ('result' in message || 'error' in message))
      connection.answered(message.id);
  };
}

/**
 * The controls of one waiting call, over the SDK's request context: its cancellation, progress
 * notifications (only when the request carried a progress token) and, when the client declared
 * form elicitation and config allows it, the client's own form.
 */
function callControls(app: App, server: Server, ctx: ServerContext, waitedBefore: number): CallControls {
  const token = ctx.mcpReq._meta?.progressToken;
  let step = 0;
  const elicitation = server.getClientCapabilities()?.elicitation as Record<string, unknown> | undefined;
  const canForm =
    app.config.human_elicitation &&
    elicitation !== undefined &&
    (elicitation.form !== undefined || elicitation.url === undefined);
  return {
    waitedBefore,
    signal: ctx.mcpReq.signal,
    progress(message) {
      if (token === undefined) return;
      step += 1;
      ctx.mcpReq
        .notify({
          method: 'notifications/progress',
          params: { progressToken: token, progress: step, message },
        })
        .catch(() => {}); // a client that went away hears nothing more
    },
    elicit: canForm
      ? async ({ message, options }, { signal, timeoutMs }) => {
          const result = await ctx.mcpReq.elicitInput(
            {
              message,
              requestedSchema: {
                type: 'object',
                properties: {
                  answer: options
                    ? { type: 'string', title: 'Answer', enum: options }
                    : { type: 'string', title: 'Answer', minLength: 1 },
                },
                required: ['answer'],
              },
            },
            { signal, timeout: timeoutMs },
          );
          const answer = result.content?.answer;
          return result.action === 'accept' && typeof answer === 'string' && answer.trim()
            ? { action: 'accept', answer }
            : { action: result.action === 'accept' ? 'cancel' : result.action };
        }
      : null,
  };
}

/** Runs one tool call to a complete MCP result: never throws. */
export async function callTool(
  app: App,
  connection: Connection,
  d: ToolDescriptor,
  args: unknown,
  call?: CallControls,
): Promise<CallToolResult> {
  const parsed = d.input.safeParse(args);
  if (!parsed.success) {
    return envelope(app, connection, d.name, {
      output: null,
      text: '',
      error: {
        code: 'INVALID_INPUT',
        message: describeZodError(parsed.error),
        hint: ERROR_CODES.INVALID_INPUT,
      },
    });
  }
  let output: Record<string, unknown>;
  // When the agent acted in this call (null: it did not get that far).
  let actedAt: number | null = null;
  try {
    await connection.heartbeat();
    const input = await withFullIds(
      app,
      d.input,
      parsed.data,
      async () => (await connection.current()).project_id,
    );
    // The agent acts: no longer idle now, and what it was delivered before this call is acted
    // on (the envelope's read of the news tells whether there is any: one statement for both).
    const acting = connection.lastRow;
    if (acting) {
      actedAt = app.now();
      if (acting.turn_ended_at !== null) await app.inbox.acting(acting, undefined, actedAt);
    }
    const raw = await d.handler({ app, connection, ...(call ? { call } : {}) }, input);
    output = d.output.parse(raw) as Record<string, unknown>;
    // The row as this call read it: a session idle until this call is idle no more.
    const fresh = connection.lastRow;
    if (fresh && fresh.turn_ended_at !== null) await app.inbox.acting(fresh);
  } catch (error) {
    const body = toErrorBody(error);
    app.log[body.code === 'INTERNAL_ERROR' || body.code === 'DB_ERROR' ? 'error' : 'info']('tool.error', {
      tool: d.name,
      code: body.code,
      message: body.message,
      ...(body.code === 'INTERNAL_ERROR' ? { stack: (error as Error).stack } : {}),
    });
    return envelope(app, connection, d.name, { output: null, text: '', error: body }, actedAt);
  }
  return envelope(app, connection, d.name, { output, text: d.text(output), error: null }, actedAt);
}

interface Outcome {
  output: Record<string, unknown> | null;
  text: string;
  error: ErrorBody | null;
}

/**
 * Notifications one answer carries at most, the oldest first: the others wait for the next calls
 * (a session back after a while may have hundreds pending).
 */
export const NOTIFICATIONS_PER_ANSWER = 20;

/**
 * What every response carries besides the tool's own result: the caller's pending notifications
 * (then marked seen) and `next_steps`, in the structured result and in the text. The messages the
 * session was delivered before `actedAt` are marked acted on (`InboxService.acting`), as the same
 * read tells. Never fails the call: if the envelope cannot be filled, the result goes out without it.
 */
async function envelope(
  app: App,
  connection: Connection,
  tool: string,
  outcome: Outcome,
  actedAt: number | null = null,
): Promise<CallToolResult> {
  let notifications: NotificationView[] = [];
  let moreNotifications = false;
  let unreadMessages = 0;
  const session = connection.lastRead;
  if (session) {
    try {
      const news = await app.messages.news(session);
      const acting = connection.lastRow;
      // Idle no more was settled before the call (a row read since may still say otherwise).
      if (news.unacted && actedAt !== null && acting?.id === session.id)
        await app.inbox.acting({ ...acting, turn_ended_at: null }, true, actedAt);
      ({ delivered: notifications, more: moreNotifications } = await app.notifications.deliver(session.id, {
        pending: news.pending,
        limit: NOTIFICATIONS_PER_ANSWER,
      }));
      unreadMessages = news.unread;
    } catch (error) {
      app.log.warn('envelope.failed', { tool, message: (error as Error).message });
    }
  }
  const steps = nextSteps({
    tool,
    output: outcome.output,
    error: outcome.error?.code ?? null,
    unreadMessages,
    notifications,
    moreNotifications,
  });
  const extra = {
    ...(notifications.length > 0 ? { notifications } : {}),
    ...(steps.length > 0 ? { next_steps: steps } : {}),
  };
  const lines = [
    outcome.error
      ? `${outcome.error.code}: ${outcome.error.message}\nHint: ${outcome.error.hint}`
      : outcome.text,
    // Other sessions' words (names, intents, message previews): one line each, bounded.
    ...(notifications.length > 0
      ? [
          'Notifications:',
          ...notifications.map((n) => `- ${inline(describeNotification(n), notificationChars(n))}`),
        ]
      : []),
    ...(steps.length > 0 ? ['Next steps:', ...steps.map((step) => `- ${inline(step, 400)}`)] : []),
  ];
  return {
    ...(outcome.error ? { isError: true } : {}),
    content: [{ type: 'text', text: lines.join('\n') }],
    structuredContent: outcome.error ? { error: outcome.error, ...extra } : { ...outcome.output, ...extra },
  };
}
