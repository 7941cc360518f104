/**
 * A hook's ask of the machine's server, known by an id the hook makes: its writes are recorded
 * under it (store/call-records-store.ts), so that an ask the server took and never answered (it
 * died, or the hook stopped waiting) is answered the same by whoever runs it next (the hook itself,
 * or the next server a wake hook asks), and nothing it did is done twice or lost.
 */
import { type CallRecording, newRecording, recordingWrites } from '../../store/call-records-store.js';

// What a serving process does with a hook call's recording once it answered (`answeredCall`).
export { answeredCall, type CallRecording } from '../../store/call-records-store.js';

export interface HookCall {
  /** Made by the hook process, the same each time it asks (`newHookCallId`). */
  readonly id: string;
  /** It asked before and heard no answer. */
  readonly again: boolean;
}

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
