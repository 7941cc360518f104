import type { SessionRow } from './sessions-store.js';
import type { Sql } from './sql.js';

export interface ProjectCounts {
  id: string;
  root: string;
  name: string | null;
  kind: string;
  sessions: number;
  claims: number;
  questions: number;
}

export interface MessageLine {
  id: string;
  from_name: string;
  from_session_id: string;
  to_session_id: string | null;
  to_name: string | null;
  content: string;
  created_at: number;
}

export interface DecisionLine {
  id: string;
  session_name: string;
  category: string;
  title: string;
  description: string;
  created_at: number;
}

export interface WorkLine {
  id: string;
  title: string;
  type: string;
  status: string;
  version: number;
  submitted_by_name: string;
  updated_at: number;
}

export interface QuestionLine {
  id: string;
  session_id: string;
  session_name: string;
  project_id: string;
  question: string;
  options: string | null;
  label: string | null;
  urgency: string;
  created_at: number;
}

export interface NotificationLine {
  id: string;
  session_id: string;
  session_name: string | null;
  type: string;
  payload: string;
  state: string;
  count: number;
  created_at: number;
}

/** The dashboard's reads: bounded pages across the tables, newest first. */
export class DashboardStore {
  constructor(private readonly sql: Sql) {}

  projects(limit: number): Promise<ProjectCounts[]> {
    return this.sql.all<ProjectCounts>(
      `SELECT p.id, p.root, p.name, p.kind,
         (SELECT count(*) FROM sessions s WHERE s.project_id = p.id AND s.status = 'active') AS sessions,
         (SELECT count(*) FROM claims c WHERE c.project_id = p.id AND c.status = 'active') AS claims,
         (SELECT count(*) FROM questions q WHERE q.project_id = p.id AND q.status = 'pending') AS questions
       FROM projects p ORDER BY p.updated_at DESC LIMIT ?`,
      [limit],
    );
  }
  sessions(projectId: string, limit: number): Promise<Array<SessionRow & { active_claims: number }>> {
    return this.sql.all<SessionRow & { active_claims: number }>(
      `SELECT s.*, (SELECT count(*) FROM claims c WHERE c.session_id = s.id AND c.status = 'active') AS active_claims
       FROM sessions s WHERE s.project_id = ?
       ORDER BY CASE WHEN s.status = 'active' THEN 0 ELSE 1 END, s.last_heartbeat DESC LIMIT ?`,
      [projectId, limit],
    );
  }
  messages(projectId: string, limit: number): Promise<MessageLine[]> {
    return this.sql.all<MessageLine>(
      `SELECT m.id, m.from_name, m.from_session_id, m.to_session_id, t.name AS to_name, m.content, m.created_at
       FROM messages m LEFT JOIN sessions t ON t.id = m.to_session_id
       WHERE m.project_id = ? ORDER BY m.created_at DESC LIMIT ?`,
      [projectId, limit],
    );
  }
  decisions(projectId: string, limit: number): Promise<DecisionLine[]> {
    return this.sql.all<DecisionLine>(
      `SELECT id, session_name, category, title, description, created_at FROM decisions
       WHERE project_id = ? ORDER BY created_at DESC LIMIT ?`,
      [projectId, limit],
    );
  }
  work(projectId: string, limit: number): Promise<WorkLine[]> {
    return this.sql.all<WorkLine>(
      `SELECT id, title, type, status, version, submitted_by_name, updated_at FROM work_items
       WHERE project_id = ? ORDER BY CASE WHEN status IN ('approved', 'merged') THEN 1 ELSE 0 END, updated_at DESC
       LIMIT ?`,
      [projectId, limit],
    );
  }
  /** Pending questions, of one project or of all (null). */
  questions(projectId: string | null, limit: number): Promise<QuestionLine[]> {
    return this.sql.all<QuestionLine>(
      `SELECT q.id, q.session_id, s.name AS session_name, q.project_id, q.question, q.options, q.label, q.urgency, q.created_at
       FROM questions q JOIN sessions s ON s.id = q.session_id
       WHERE q.status = 'pending' AND (CAST(? AS TEXT) IS NULL OR q.project_id = ?) ORDER BY q.created_at LIMIT ?`,
      [projectId, projectId, limit],
    );
  }
  notifications(projectId: string, limit: number): Promise<NotificationLine[]> {
    return this.sql.all<NotificationLine>(
      `SELECT n.id, n.session_id, s.name AS session_name, n.type, n.payload, n.state, n.count, n.created_at
       FROM notifications n LEFT JOIN sessions s ON s.id = n.session_id
       WHERE n.project_id = ? ORDER BY n.created_at DESC LIMIT ?`,
      [projectId, limit],
    );
  }
}
