/** Forward-only schema migrations. Append; never edit one that has shipped. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: Migration[] = [
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
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
