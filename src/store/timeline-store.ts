import type { SessionRow } from './sessions-store.js';
import type { Sql } from './sql.js';

/** One pattern of a claim, with when it was held: from the claim's start (or the file's edit) until its release. */
export interface ClaimSpan {
  claim_id: string;
  session_id: string;
  source: 'tool' | 'edit' | 'git';
  intent: string;
  status: string;
  created_at: number;
  released_at: number | null;
  updated_at: number;
  pattern: string;
  /** When an edit added this file to the claim (null: with the claim). */
  added_at: number | null;
  active: number;
}

/** Held claims first, then the newest released. */
const CLAIM_ORDER = "CASE WHEN c.status = 'active' THEN 0 ELSE 1 END, c.created_at DESC, c.id";

export interface ClaimFileRow {
  claim_id: string;
  pattern: string;
  added_at: number | null;
  active: number;
}

/** A claim as the timeline draws it: when it was held, and how many files it has. */
export type ClaimRowSpan = Omit<ClaimSpan, 'pattern' | 'added_at' | 'active'> & { files: number };

/** Something a session did at one moment: sent a message, asked, decided, submitted for review. */
export interface SessionMoment {
  session_id: string;
  at: number;
  /** Until when it lasted (a question until it closed), when it did. */
  until: number | null;
  text: string;
  /** Who it was for (a message), when someone was. */
  to_name: string | null;
}

/**
 * The timeline's reads: what each session of a project did since a moment, each list bounded and
 * newest first (a busy project shows its latest hours whole, not its first ones).
 */
export class TimelineStore {
  constructor(private readonly sql: Sql) {}

  /** Sessions alive at some point since `since`. */
  sessions(projectId: string, since: number, limit: number): Promise<SessionRow[]> {
    return this.sql.all<SessionRow>(
      `SELECT * FROM sessions WHERE project_id = ? AND coalesce(ended_at, last_heartbeat) >= ?
       ORDER BY created_at DESC LIMIT ?`,
      [projectId, since, limit],
    );
  }

  /**
   * Claims held at some point since `since`: those still held first (whatever their age), then the
   * newest released; each with how many files it has.
   */
  claims(projectId: string, since: number, limit: number): Promise<ClaimRowSpan[]> {
    return this.sql.all<ClaimRowSpan>(
      `SELECT c.id AS claim_id, c.session_id, c.source, c.intent, c.status, c.created_at, c.released_at,
         c.updated_at, (SELECT count(*) FROM claim_files f WHERE f.claim_id = c.id) AS files
       FROM claims c
       WHERE c.project_id = ? AND (c.released_at IS NULL OR c.released_at >= ?)
       ORDER BY ${CLAIM_ORDER} LIMIT ?`,
      [projectId, since, limit],
    );
  }

  /** The files of these claims, at most `perClaim` of each (the first by name). */
  files(claimIds: string[], perClaim: number): Promise<ClaimFileRow[]> {
    if (claimIds.length === 0) return Promise.resolve([]);
    return this.sql.all<ClaimFileRow>(
      `SELECT claim_id, pattern, added_at, active FROM (
         SELECT f.claim_id, f.pattern, f.added_at, f.active,
           row_number() OVER (PARTITION BY f.claim_id ORDER BY f.pattern) AS n
         FROM claim_files f WHERE f.claim_id IN (${claimIds.map(() => '?').join(', ')})) AS numbered
       WHERE n <= ?`,
      [...claimIds, perClaim],
    );
  }

  messages(projectId: string, since: number, limit: number): Promise<SessionMoment[]> {
    return this.sql.all<SessionMoment>(
      `SELECT m.from_session_id AS session_id, m.created_at AS at, NULL AS until, m.content AS text,
         CASE WHEN m.to_session_id IS NULL THEN NULL ELSE coalesce(t.name, m.to_session_id) END AS to_name
       FROM messages m LEFT JOIN sessions t ON t.id = m.to_session_id
       WHERE m.project_id = ? AND m.created_at >= ? ORDER BY m.created_at DESC LIMIT ?`,
      [projectId, since, limit],
    );
  }

  /** Messages delivered to sessions' agents (on the recipient's lane; `to_name`: how it reached it). */
  deliveries(projectId: string, since: number, limit: number): Promise<SessionMoment[]> {
    return this.sql.all<SessionMoment>(
      `SELECT r.session_id, r.read_at AS at, r.acted_at AS until, m.from_name || ': ' || m.content AS text, r.via AS to_name
       FROM message_reads r JOIN messages m ON m.id = r.message_id
       WHERE m.project_id = ? AND r.read_at >= ? ORDER BY r.read_at DESC LIMIT ?`,
      [projectId, since, limit],
    );
  }

  questions(projectId: string, since: number, limit: number): Promise<SessionMoment[]> {
    return this.sql.all<SessionMoment>(
      `SELECT session_id, created_at AS at, closed_at AS until, question AS text, NULL AS to_name
       FROM questions WHERE project_id = ? AND coalesce(closed_at, created_at) >= ?
       ORDER BY created_at DESC LIMIT ?`,
      [projectId, since, limit],
    );
  }

  decisions(projectId: string, since: number, limit: number): Promise<SessionMoment[]> {
    return this.sql.all<SessionMoment>(
      `SELECT session_id, created_at AS at, NULL AS until, title AS text, NULL AS to_name
       FROM decisions WHERE project_id = ? AND created_at >= ? ORDER BY created_at DESC LIMIT ?`,
      [projectId, since, limit],
    );
  }

  /** Work submitted for review (the first version's time; later versions show on the review page). */
  reviews(projectId: string, since: number, limit: number): Promise<SessionMoment[]> {
    return this.sql.all<SessionMoment>(
      `SELECT submitted_by AS session_id, created_at AS at, NULL AS until, title AS text, NULL AS to_name
       FROM work_items WHERE project_id = ? AND submitted_by IS NOT NULL AND created_at >= ?
       ORDER BY created_at DESC LIMIT ?`,
      [projectId, since, limit],
    );
  }

  /** Requests to land, each from its asking to its outcome (or now): by its requesting session. */
  landings(projectId: string, since: number, limit: number): Promise<SessionMoment[]> {
    return this.sql.all<SessionMoment>(
      `SELECT session_id, requested_at AS at, finished_at AS until,
              state || ': ' || CAST(commits AS TEXT) || ' commit(s) of ' || branch || ' onto ' || onto ||
                coalesce(' — ' || reason, '') AS text, NULL AS to_name
       FROM landings WHERE project_id = ? AND session_id IS NOT NULL AND requested_at >= ?
       ORDER BY requested_at DESC LIMIT ?`,
      [projectId, since, limit],
    );
  }
}
