import type { AppContext } from '../../app/context.js';
import { type SessionState, START_MOMENT_MS, sessionState } from '../../core/liveness.js';
import { processAlive } from '../../integrations/process-probe.js';

/** The fields of a session row that its liveness depends on. */
export interface LivenessFields {
  status: 'active' | 'ended';
  last_heartbeat: number;
  host: string;
  pid: number | null;
  pid_start: string | null;
  /** With these two, a session a hook made and that was heard only at its start goes quiet soon. */
  server_pid?: number | null;
  created_at?: number;
}

/** Liveness of a session row now, by the rules of core/liveness and this app's settings. */
export function stateOf(app: AppContext, session: LivenessFields): SessionState {
  return sessionState(
    {
      status: session.status,
      lastHeartbeat: session.last_heartbeat,
      host: session.host,
      pid: session.pid,
      pidStart: session.pid_start,
      heardOnlyAtStart:
        session.server_pid === null &&
        session.created_at !== undefined &&
        session.last_heartbeat - session.created_at < START_MOMENT_MS,
    },
    {
      now: app.now(),
      inactiveAfterMs: app.config.inactive_after_minutes * 60_000,
      host: app.host,
      processAlive,
    },
  );
}
