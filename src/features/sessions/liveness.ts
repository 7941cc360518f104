import type { AppContext } from '../../app/context.js';
import { type SessionState, sessionState } from '../../core/liveness.js';
import { processAlive } from '../../integrations/process-probe.js';

/** The fields of a session row that its liveness depends on. */
export interface LivenessFields {
  status: 'active' | 'ended';
  last_heartbeat: number;
  host: string;
  pid: number | null;
  pid_start: string | null;
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
    },
    {
      now: app.now(),
      inactiveAfterMs: app.config.inactive_after_minutes * 60_000,
      host: app.host,
      processAlive,
    },
  );
}
