/**
 * Tool calls that wait (for a person, for another agent CLI): how long, and how often they tell
 * the client they still work. A client that resets its request timeout on progress (the MCP SDK's
 * resetTimeoutOnProgress) then waits as long as the call does; none waits past 110 s, since
 * Claude Code moves a call that runs past 120 s to the background.
 */
export const PROGRESS_EVERY_MS = 3_000;
export const MAX_WAIT_SECONDS = 110;
/** Clients cut calls at 60 s and more: 45 s leaves room. */
export const DEFAULT_WAIT_SECONDS = 45;

/** The wait a call gets: the asked seconds (or the default), never beyond the ceiling. */
export function waitMs(asked: number | undefined, defaultSeconds: number, maxSeconds: number): number {
  const seconds = Math.min(asked ?? defaultSeconds, maxSeconds);
  return Math.max(0, seconds) * 1000;
}
