/** Migrations 1 to 5, as shipped (frozen: never edited). */
import type { FrozenMigration } from './frozen.js';

export const MIGRATIONS_1_5: FrozenMigration[] = [
  {
    version: 1,
    name: 'sessions, claims, messages, decisions',
    sql: `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE projects (
  id TEXT PRIMARY KEY,
  root TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL CHECK (kind IN ('git', 'dir')),
  created_at INTEGER NOT NULL
);

CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  project_id TEXT NOT NULL REFERENCES projects(id),
  worktree TEXT NOT NULL,
  branch TEXT,
  client TEXT,
  host TEXT NOT NULL,
  pid INTEGER,
  pid_start TEXT,
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'ended')),
  created_at INTEGER NOT NULL,
  last_heartbeat INTEGER NOT NULL,
  ended_at INTEGER,
  end_reason TEXT
);
CREATE INDEX sessions_by_project ON sessions(project_id, status);

CREATE TABLE claims (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  project_id TEXT NOT NULL REFERENCES projects(id),
  intent TEXT NOT NULL,
  scope TEXT NOT NULL CHECK (scope IN ('small', 'medium', 'large')),
  exclusive INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'completed', 'abandoned', 'expired')),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  expires_at INTEGER,
  released_at INTEGER,
  summary TEXT
);
CREATE INDEX claims_by_session ON claims(session_id, status);
CREATE INDEX claims_by_project ON claims(project_id, status);
CREATE INDEX claims_expiring ON claims(expires_at) WHERE status = 'active' AND expires_at IS NOT NULL;

-- One row per pattern of a claim; 'base' is the literal directory prefix, for indexed lookup.
CREATE TABLE claim_files (
  claim_id TEXT NOT NULL REFERENCES claims(id) ON DELETE CASCADE,
  project_id TEXT NOT NULL,
  pattern TEXT NOT NULL,
  base TEXT NOT NULL,
  active INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY (claim_id, pattern)
);
CREATE INDEX claim_files_live ON claim_files(project_id, base) WHERE active = 1;

CREATE TABLE messages (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id),
  from_session_id TEXT NOT NULL,
  from_name TEXT NOT NULL,
  to_session_id TEXT,
  reply_to TEXT,
  content TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX messages_direct ON messages(to_session_id, created_at) WHERE to_session_id IS NOT NULL;
CREATE INDEX messages_broadcast ON messages(project_id, created_at) WHERE to_session_id IS NULL;

CREATE TABLE message_reads (
  message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  session_id TEXT NOT NULL,
  read_at INTEGER NOT NULL,
  PRIMARY KEY (message_id, session_id)
) WITHOUT ROWID;

CREATE TABLE decisions (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  project_id TEXT NOT NULL REFERENCES projects(id),
  session_id TEXT NOT NULL,
  session_name TEXT NOT NULL,
  category TEXT NOT NULL,
  title TEXT NOT NULL,
  description TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX decisions_by_project ON decisions(project_id, created_at);
CREATE VIRTUAL TABLE decisions_fts USING fts5(title, description, content='decisions', content_rowid='seq');
CREATE TRIGGER decisions_fts_insert AFTER INSERT ON decisions BEGIN
  INSERT INTO decisions_fts(rowid, title, description) VALUES (new.seq, new.title, new.description);
END;
CREATE TRIGGER decisions_fts_delete AFTER DELETE ON decisions BEGIN
  INSERT INTO decisions_fts(decisions_fts, rowid, title, description) VALUES ('delete', old.seq, old.title, old.description);
END;
`,
  },
  {
    version: 2,
    name: 'client identity of sessions; where a claim came from',
    sql: `
-- The client's own session id (Claude Code's session_id) and the client process, so that hooks,
-- the MCP server and the git guard of one client session find the same collab session.
ALTER TABLE sessions ADD COLUMN client_session_id TEXT;
ALTER TABLE sessions ADD COLUMN client_pid INTEGER;
ALTER TABLE sessions ADD COLUMN client_pid_start TEXT;
CREATE INDEX sessions_by_client_session ON sessions(client_session_id) WHERE client_session_id IS NOT NULL;
CREATE INDEX sessions_by_client_pid ON sessions(client_pid) WHERE status = 'active';

-- 'tool': collab_claim; 'edit': recorded from an edit by a hook; 'git': collab_claim from_git.
ALTER TABLE claims ADD COLUMN source TEXT NOT NULL DEFAULT 'tool' CHECK (source IN ('tool', 'edit', 'git'));
`,
  },
  {
    version: 3,
    name: 'notifications',
    sql: `
-- One row per recipient session; repeats of a subject coalesce while pending.
CREATE TABLE notifications (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  project_id TEXT,
  type TEXT NOT NULL,
  subject TEXT NOT NULL,
  payload TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'seen', 'expired')),
  count INTEGER NOT NULL DEFAULT 1,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  seen_at INTEGER
);
CREATE INDEX notifications_by_session ON notifications(session_id, state, created_at);
CREATE UNIQUE INDEX notifications_coalesce ON notifications(session_id, type, subject) WHERE state = 'pending';
`,
  },
  {
    version: 4,
    name: 'realm state; the RFC a session works on',
    sql: `
-- The last seen state of each realm (contract versions, bindings): compared on every read, so that
-- a change made by anyone, in any way, becomes notifications once.
CREATE TABLE realm_state (
  realm TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (realm, key)
) WITHOUT ROWID;

ALTER TABLE sessions ADD COLUMN rfc TEXT;
`,
  },
  {
    version: 5,
    name: 'projects by id (for reviews); the review workflow',
    rebuildsTables: true,
    sql: `
-- Projects gain a name, description, status and settings, and may be created by id (kind 'named').
CREATE TABLE projects_v5 (
  id TEXT PRIMARY KEY,
  root TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL CHECK (kind IN ('git', 'dir', 'named')),
  name TEXT,
  description TEXT,
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'completed', 'archived')),
  settings TEXT NOT NULL DEFAULT '{}',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
INSERT INTO projects_v5 (id, root, kind, created_at, updated_at) SELECT id, root, kind, created_at, created_at FROM projects;
DROP TABLE projects;
ALTER TABLE projects_v5 RENAME TO projects;

CREATE TABLE work_items (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  project_id TEXT NOT NULL REFERENCES projects(id),
  type TEXT NOT NULL CHECK (type IN ('discussion', 'requirement', 'design', 'code', 'test', 'doc')),
  phase TEXT NOT NULL CHECK (phase IN ('planning', 'development', 'testing', 'review', 'done')),
  title TEXT NOT NULL,
  description TEXT,
  content TEXT NOT NULL,
  metadata TEXT NOT NULL DEFAULT '{}',
  status TEXT NOT NULL CHECK (status IN ('draft', 'pending_review', 'in_review', 'changes_requested', 'approved', 'merged')),
  version INTEGER NOT NULL DEFAULT 1,
  submitted_by TEXT,
  submitted_by_name TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX work_items_by_project ON work_items(project_id, status);

CREATE TABLE work_revisions (
  work_item_id TEXT NOT NULL REFERENCES work_items(id),
  version INTEGER NOT NULL,
  title TEXT NOT NULL,
  content TEXT NOT NULL,
  change_description TEXT NOT NULL,
  created_by TEXT,
  created_by_name TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (work_item_id, version)
) WITHOUT ROWID;

CREATE TABLE reviews (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  work_item_id TEXT NOT NULL REFERENCES work_items(id),
  work_item_version INTEGER NOT NULL,
  reviewer_id TEXT,
  reviewer_name TEXT NOT NULL,
  verdict TEXT NOT NULL CHECK (verdict IN ('approve', 'request_changes', 'comment')),
  summary TEXT NOT NULL,
  automatic INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX reviews_by_item ON reviews(work_item_id, work_item_version);

CREATE TABLE suggestions (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  review_id TEXT NOT NULL REFERENCES reviews(id),
  work_item_id TEXT NOT NULL REFERENCES work_items(id),
  type TEXT NOT NULL CHECK (type IN ('improvement', 'bug', 'security', 'performance', 'style', 'clarity')),
  severity TEXT NOT NULL CHECK (severity IN ('critical', 'major', 'minor', 'info')),
  title TEXT NOT NULL,
  explanation TEXT NOT NULL,
  location TEXT,
  current_content TEXT,
  suggested_content TEXT,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'rejected', 'partially_accepted')),
  resolution_comment TEXT,
  resolved_by_name TEXT,
  resolved_at INTEGER,
  created_at INTEGER NOT NULL
);
CREATE INDEX suggestions_by_item ON suggestions(work_item_id, status);

CREATE TABLE review_responses (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  review_id TEXT NOT NULL REFERENCES reviews(id),
  work_item_id TEXT NOT NULL REFERENCES work_items(id),
  responder_id TEXT,
  responder_name TEXT NOT NULL,
  response TEXT NOT NULL,
  action TEXT NOT NULL CHECK (action IN ('acknowledged', 'will_fix', 'need_discussion', 'disagree')),
  created_at INTEGER NOT NULL
);

-- Append-only: every event of the workflow, with its actor and content.
CREATE TABLE work_events (
  seq INTEGER PRIMARY KEY,
  project_id TEXT NOT NULL,
  work_item_id TEXT,
  kind TEXT NOT NULL,
  actor_id TEXT,
  actor_name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('worker', 'reviewer', 'system')),
  content TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX work_events_by_item ON work_events(work_item_id, seq);
CREATE INDEX work_events_by_project ON work_events(project_id, seq);
CREATE TRIGGER work_events_append_only_update BEFORE UPDATE ON work_events BEGIN SELECT RAISE(ABORT, 'work_events is append-only'); END;
CREATE TRIGGER work_events_append_only_delete BEFORE DELETE ON work_events BEGIN SELECT RAISE(ABORT, 'work_events is append-only'); END;

-- Sessions that act as reviewers in a project: told when work is submitted there.
CREATE TABLE review_watchers (
  project_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  PRIMARY KEY (project_id, session_id)
) WITHOUT ROWID;

-- Full-text search over items, reviews and suggestions; one row per searchable text.
CREATE VIRTUAL TABLE work_fts USING fts5(work_item_id UNINDEXED, source UNINDEXED, title, body);
`,
  },
];
