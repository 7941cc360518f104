/** Liveness rules for sessions: pure, the process probe is passed in. */

export type SessionState = 'active' | 'inactive' | 'ended';

export interface LivenessFacts {
  status: 'active' | 'ended';
  lastHeartbeat: number;
  host: string;
  pid: number | null;
  pidStart: string | null;
  /**
   * Made by a hook, with no server of its own, and heard from only in its first moments: a hook run
   * by hand, or a client that never came back. Its process (an ancestor found by walking up) may
   * live on for days without being one.
   */
  heardOnlyAtStart?: boolean;
}

/** How long a session heard only at its start stays active without a word. */
export const ONE_SHOT_SILENCE_MS = 2 * 60_000;
/** Within this much of its start, a session's calls count as its start (heartbeats are written every 5 s). */
export const START_MOMENT_MS = 5_000;

export interface LivenessContext {
  now: number;
  inactiveAfterMs: number;
  host: string;
  /** Whether `pid` runs on this host and started at `pidStart` (so a reused pid is not mistaken). */
  processAlive: (pid: number, pidStart: string | null) => boolean;
}

export function sessionState(s: LivenessFacts, ctx: LivenessContext): SessionState {
  if (s.status === 'ended') return 'ended';
  if (ctx.now - s.lastHeartbeat > ctx.inactiveAfterMs) return 'inactive';
  if (s.heardOnlyAtStart && ctx.now - s.lastHeartbeat > ONE_SHOT_SILENCE_MS) return 'inactive';
  if (s.pid !== null && s.host === ctx.host && !ctx.processAlive(s.pid, s.pidStart)) return 'inactive';
  return 'active';
}

/** "12 min ago" style age for messages shown to people and models. */
export function describeAge(sinceMs: number, now: number): string {
  const s = Math.max(0, Math.round((now - sinceMs) / 1000));
  if (s < 60) return `${s}s ago`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${m % 60} min ago`;
  return `${Math.floor(h / 24)} days ago`;
}
