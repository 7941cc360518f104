/**
 * A hook's ask of the machine's server, known by an id the hook makes: its writes are recorded
 * under it (store/call-records-store.ts), so that an ask the server took and never answered (it
 * died, or the hook stopped waiting) is answered the same by whoever runs it next (the hook itself,
 * or the next server a wake hook asks), and nothing it did is done twice or lost.
 */
import type { HookCall } from '../../integrations/hook-call.js';
import { type CallRecording, newRecording, recordingWrites } from '../../store/call-records-store.js';

// What a serving process reads a hook's call from (a hub: HOOK_CALL_HEADERS), and does with its
// recording once it answered (`answeredCall`).
export { HOOK_CALL_HEADERS } from '../../integrations/hook-call.js';
export { answeredCall, type CallRecording } from '../../store/call-records-store.js';

/**
 * A hook call's recording, kept under its id and the client the hook asks for (`hookCaller`): an
 * id sent again by another client is another call, never answered from this one's record.
 * `answered`: the serving process's answered hook calls.
 */
export function hookRecording(call: HookCall, caller: string, answered: string[] = []): CallRecording {
  return newRecording(`hook:${caller}:${call.id}`, call.again, answered);
}

/**
 * Who a hook's request asks for, as the request names it (its client session and process): the
 * same for the hook's every ask of one call, whoever serves it (a server, a hub, the hook itself).
 * The request as sent (JSON text) or as read.
 */
export function hookCaller(sent: unknown): string {
  // As the hook sends it (JSON text), or as a server read it.
  let request = sent;
  if (typeof sent === 'string')
    try {
      request = JSON.parse(sent);
    } catch {
      request = null;
    }
  const identity =
    request !== null && typeof request === 'object' ? (request as { identity?: unknown }).identity : null;
  const of = (key: string) => {
    const value =
      identity !== null && typeof identity === 'object' ? (identity as Record<string, unknown>)[key] : null;
    return typeof value === 'string' || typeof value === 'number' ? String(value).slice(0, 200) : '';
  };
  return `${of('sessionId')}|${of('pid')}|${of('start')}`;
}

/** Runs `fn` as the hook call `recording` (none: unrecorded). */
export async function asHookCall<T>(recording: CallRecording | null, fn: () => Promise<T>): Promise<T> {
  if (recording === null) return fn();
  try {
    return await recordingWrites(recording, fn);
  } finally {
    // What the ask started that goes on (a watch's timer) writes unrecorded from here.
    recording.over = true;
  }
}
