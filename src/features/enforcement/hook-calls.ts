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

/** A hook call's recording; `answered`: the serving process's answered hook calls. */
export function hookRecording(call: HookCall, answered: string[] = []): CallRecording {
  return newRecording(`hook:${call.id}`, call.again, answered);
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
