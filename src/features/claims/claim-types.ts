/** What the claims' queries answer with: conflicts, stale claims, claims as shown, and whose eyes a check looks through. */
import type { SessionState } from '../../core/liveness.js';
import type { LivePattern } from '../../store/claim-patterns-store.js';
import type { ClaimSource, ClaimStatus, Scope } from '../../store/claims-store.js';

export interface ClaimConflict {
  claim_id: string;
  session: string;
  session_id: string;
  files: string[];
  intent: string;
  overlap: string[];
  exclusive: boolean;
}

export interface CheckConflict {
  file: string;
  /** Where `file` came from: the checked pattern and the held one it meets (not in tool output). */
  checked?: string;
  held?: string;
  /** How the held claim was made (not in tool output): an edit's claim holds what the edit changed. */
  source?: ClaimSource;
  session: string;
  session_id: string;
  claim_id: string;
  intent: string;
  scope: Scope;
  started_at: string;
}

export interface StaleClaim extends CheckConflict {
  session_status: SessionState;
}

export interface ClaimView {
  claim_id: string;
  session_id: string;
  session: string;
  files: string[];
  intent: string;
  scope: Scope;
  status: ClaimStatus;
  exclusive: boolean;
  created_at: string;
  expires_at: string | null;
  released_at: string | null;
  summary: string | null;
  source: ClaimSource;
}

/** A live pattern found near a path, with how it meets it. */
export interface Hit {
  row: LivePattern;
  witness: string;
}

/**
 * Whose eyes a check looks through: a project and worktree, and the session whose own claims do
 * not count (none for a person committing outside any session).
 */
export interface Viewpoint {
  id: string | null;
  project_id: string;
  worktree: string;
  /**
   * More sessions whose claims do not count: those of a client process that has several, when
   * nothing says which one is looking (an edit is judged against everyone else's claims).
   */
  also?: string[];
}
