import { z } from 'zod';
import { invalidInput } from '../../core/errors.js';
import { describeZodError } from '../../core/zod-issues.js';
import { parseHookEvent, parseHookInput } from '../../integrations/agent-hooks.js';
import type { HookCall } from '../../integrations/hook-call.js';
import type { CallRecording } from '../../store/call-records-store.js';
import { namedClientProcess } from '../sessions/client-sessions.js';
import type { CoreServices, Services } from '../tool-context.js';
import { answerHook, type HookAnswer } from './hook-answers.js';
import { asHookCall } from './hook-calls.js';

/** What a hook process on this machine sends the hub (team mode): its event's input and its client. */
const HookRequest = z.strictObject({
  input: z.string().max(8 * 1024 * 1024),
  cwd: z.string().min(1).max(4096),
  identity: z.strictObject({
    sessionId: z.string().max(200).nullable(),
    pid: z.number().int().positive().nullable(),
    start: z.string().max(40).nullable(),
  }),
});

/**
 * A hook event that a hook process on this machine hands to the hub, answered as that process
 * would have (`answerHook`). Its client process is taken only from a caller without a token (as
 * the MCP endpoint does); with one, its client session id is that token's own.
 */
function parsedRequest(body: unknown) {
  const parsed = HookRequest.safeParse(body);
  if (!parsed.success) throw invalidInput(`A hook request: ${describeZodError(parsed.error)}`);
  return parsed.data;
}

/** The hook's own input in a request, parsed: INVALID_INPUT saying so when it is no JSON object. */
function hookInputOf(input: string, cwd: string, calledAs: string) {
  try {
    return parseHookInput(input, cwd, calledAs);
  } catch (error) {
    throw invalidInput(
      `A hook request: input: ${error instanceof SyntaxError ? 'not JSON' : 'not a JSON object'}.`,
      'Send the hook event’s input as the client gave it: a JSON object, as text.',
    );
  }
}

/** What a hook says of its ask besides its request: an id of its own, and whether it asked before. */
const HookCallShape = z.strictObject({
  id: z.string().min(8).max(100),
  again: z.boolean(),
});

/** A hook's `call` as it sent it, checked. */
export function parseHookCall(call: unknown): HookCall {
  const parsed = HookCallShape.safeParse(call);
  if (!parsed.success) throw invalidInput(`A hook's call: ${describeZodError(parsed.error)}`);
  return parsed.data;
}

/**
 * A wake hook of this machine (Claude Code's `asyncRewake`, run at each turn's end) waits here for
 * news that wakes its idle session: the news, or null when there is none to wake it with. As the
 * hook call `recording`, asked again after its server delivered news and died before the hook
 * heard it, it is answered with that news (`InboxService.wokenBefore`).
 */
export async function wakeRequest(
  app: Services,
  body: unknown,
  signal: AbortSignal,
  recording: CallRecording | null = null,
): Promise<string | null> {
  const { input, cwd, identity } = parsedRequest(body);
  hookInputOf(input, cwd, 'wake');
  const client =
    identity.pid !== null && identity.start !== null
      ? namedClientProcess(identity.pid, identity.start)
      : null;
  return asHookCall(recording, () =>
    app.idleWakes.wait(input, cwd, { sessionId: identity.sessionId, process: client }, signal),
  );
}

export async function answerHookRequest(
  app: CoreServices,
  eventName: string,
  body: unknown,
  tokenId: string | null,
  recording: CallRecording | null = null,
): Promise<HookAnswer> {
  const event = parseHookEvent(eventName);
  if (!event) throw invalidInput(`Unknown hook event "${eventName}".`);
  const { input, cwd, identity } = parsedRequest(body);
  const sessionId = identity.sessionId && tokenId ? `${tokenId}:${identity.sessionId}` : identity.sessionId;
  const client =
    tokenId === null && identity.pid !== null && identity.start !== null
      ? namedClientProcess(identity.pid, identity.start)
      : null;
  const hookInput = hookInputOf(input, cwd, eventName);
  return asHookCall(recording, () => answerHook(app, event, hookInput, { sessionId, process: client }));
}
