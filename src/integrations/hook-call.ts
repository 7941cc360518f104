/**
 * How a hook process names its ask of the machine's server or a hub: an id of its own, the same
 * each time it asks, so that what a server did of an ask it never answered is not done twice
 * (features/enforcement/hook-calls.ts). Kept apart: the hook's first step (dist/hook.cjs) loads it.
 */
export interface HookCall {
  /** Made by the hook process (`newHookCallId`). */
  readonly id: string;
  /** It asked before and heard no answer. */
  readonly again: boolean;
}

/** The headers a hook's ask of a hub (`/hook/<event>`) names its call by. */
export const HOOK_CALL_HEADERS = { id: 'x-collab-hook-call', again: 'x-collab-hook-again' } as const;
