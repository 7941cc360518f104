/** Forward-only schema migrations. Append; never edit one that has shipped. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  /**
   * The same change on PostgreSQL (team mode). The PostgreSQL schema starts at version 11 with a
   * baseline (pg-baseline.ts); every migration after it must carry this text.
   */
  pg?: string;
  /**
   * Rebuilds a table others reference: foreign keys are off while it runs (SQLite's procedure for
   * table changes ALTER cannot make), and checked before it commits.
   */
  rebuildsTables?: boolean;
}

/**
 * A run's CLI runs in a process group of its own (its id is the CLI's pid), so that a server that
 * finds its runner gone can end what it left behind; the runner's start time tells a reused pid
 * from it; a run that starts a conversation afresh says why.
 */
const AGENT_RUN_PROCESSES = `
ALTER TABLE agent_runs ADD COLUMN cli_pgid INTEGER;
ALTER TABLE agent_runs ADD COLUMN runner_start TEXT;
ALTER TABLE agent_runs ADD COLUMN fresh_reason TEXT;
`;

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
  {
    version: 6,
    name: 'sessions record the connection that holds them and their earlier client session ids; claim patterns when added',
    sql: `
-- The stdio server (or other connection) acting for the session now; null when none does (a
-- session its client's hooks started, or whose server went away while the client lives on).
ALTER TABLE sessions ADD COLUMN server_pid INTEGER;
ALTER TABLE sessions ADD COLUMN server_pid_start TEXT;
CREATE INDEX sessions_by_name ON sessions(project_id, name) WHERE status = 'active';

-- Client session ids a session was known by before the client moved it to a new one (Claude
-- Code's /clear): its MCP server keeps the id it was started with.
CREATE TABLE client_session_aliases (
  client_session_id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL
) WITHOUT ROWID;

-- When each pattern joined its claim (an edit claim grows as the session edits).
ALTER TABLE claim_files ADD COLUMN added_at INTEGER;
`,
  },
  {
    version: 7,
    name: 'realm folders registered on this machine',
    sql: `
-- The realms this machine works with, by real path: a realm tool or command reads only these
-- (a folder that merely holds a realm.yaml could send worktrees anywhere).
CREATE TABLE realms (
  root TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  registered_at INTEGER NOT NULL
) WITHOUT ROWID;
`,
  },
  {
    version: 8,
    name: 'projects count their claims that stopped being active',
    sql: `
-- A claim works out its overlaps before it takes the write lock, then asks inside it whether any
-- claim of the project stopped being active meanwhile: this count answers in one row read, where
-- counting the active claims took a scan of them all (~0.3 ms at 10,000 claims, inside the lock).
-- Triggers keep it, whatever statement releases, expires or deletes a claim.
ALTER TABLE projects ADD COLUMN claims_released INTEGER NOT NULL DEFAULT 0;
CREATE TRIGGER claims_released_on_update AFTER UPDATE OF status ON claims
  WHEN OLD.status = 'active' AND NEW.status <> 'active'
  BEGIN UPDATE projects SET claims_released = claims_released + 1 WHERE id = NEW.project_id; END;
CREATE TRIGGER claims_released_on_delete AFTER DELETE ON claims
  WHEN OLD.status = 'active'
  BEGIN UPDATE projects SET claims_released = claims_released + 1 WHERE id = OLD.project_id; END;
`,
  },
  {
    version: 9,
    name: 'questions to a person, and the Telegram bot that carries them',
    sql: `
-- A question a session put to a person. Only a pending one changes, once: the first answer from any
-- channel wins (an UPDATE … WHERE status = 'pending' in one transaction).
CREATE TABLE questions (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  project_id TEXT NOT NULL,
  question TEXT NOT NULL,
  -- JSON array of the choices offered, or null for a free answer.
  options TEXT,
  label TEXT,
  urgency TEXT NOT NULL DEFAULT 'normal' CHECK (urgency IN ('low', 'normal', 'high')),
  status TEXT NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'answered', 'cancelled', 'expired', 'abandoned')),
  answer TEXT,
  answered_via TEXT CHECK (answered_via IN ('telegram', 'terminal', 'web', 'elicitation')),
  -- Who answered, in the channel's terms (a Telegram user id, a terminal user).
  answered_by TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER,
  closed_at INTEGER,
  -- When a tool result handed the asker its answer (else it comes as a notification).
  returned_at INTEGER,
  -- What the person did with the client's own form, when it was not an answer: declined, cancelled.
  elicitation TEXT,
  -- 0: still to be sent to Telegram; 1: sent; else the time (ms) a process took the sending.
  telegram_sent INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX questions_by_status ON questions(status, created_at);
CREATE INDEX questions_by_session ON questions(session_id, created_at);
-- A session that ends leaves nobody to read its answers.
CREATE TRIGGER questions_abandoned AFTER UPDATE OF status ON sessions WHEN NEW.status = 'ended'
  BEGIN
    UPDATE questions SET status = 'abandoned', closed_at = coalesce(NEW.ended_at, NEW.last_heartbeat)
    WHERE session_id = NEW.id AND status = 'pending';
  END;

-- Telegram messages that show a question, or ask for its answer: a reply to one answers that
-- question, and once it closes each is edited to say how.
CREATE TABLE question_messages (
  chat_id INTEGER NOT NULL,
  message_id INTEGER NOT NULL,
  question_id TEXT NOT NULL REFERENCES questions(id) ON DELETE CASCADE,
  -- 1 once edited to show how the question closed.
  closed_shown INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (chat_id, message_id)
) WITHOUT ROWID;
CREATE INDEX question_messages_by_question ON question_messages(question_id);

-- Free text sent to the bot without replying to a question, kept until the person says which
-- question it answers.
CREATE TABLE telegram_drafts (
  chat_id INTEGER NOT NULL,
  message_id INTEGER NOT NULL,
  from_id INTEGER NOT NULL,
  text TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (chat_id, message_id)
) WITHOUT ROWID;

-- One row per bot (by a hash of its token): the process that polls it, until when, and the next
-- update to ask for. Exactly one process polls a bot at a time.
CREATE TABLE telegram_pollers (
  bot TEXT PRIMARY KEY,
  holder TEXT,
  holder_pid INTEGER,
  holder_host TEXT,
  lease_until INTEGER NOT NULL DEFAULT 0,
  update_offset INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
`,
  },
  {
    version: 10,
    name: 'runs of other agent CLIs, and where each conversation stands',
    sql: `
-- One run of an agent CLI (claude, codex, gemini) a session delegated to, kept across restarts.
CREATE TABLE agent_runs (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  project_id TEXT NOT NULL,
  provider TEXT NOT NULL CHECK (provider IN ('claude', 'codex', 'gemini')),
  conversation TEXT NOT NULL,
  cwd TEXT NOT NULL,
  prompt TEXT NOT NULL,
  -- JSON array of the files given as context, or null.
  files TEXT,
  -- The CLI's conversation id this run continued from (null: a new conversation), and the one it produced.
  resumed_from TEXT,
  produced TEXT,
  status TEXT NOT NULL
    CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled', 'timed_out', 'lost')),
  result TEXT,
  error TEXT,
  output_truncated INTEGER NOT NULL DEFAULT 0,
  -- This run's cost, and the CLI's total for the conversation so far (claude reports the total).
  cost_usd REAL,
  cost_total_usd REAL,
  input_tokens INTEGER,
  output_tokens INTEGER,
  turns INTEGER,
  duration_ms INTEGER,
  -- The server process that runs it (a run whose process is gone is lost).
  runner_pid INTEGER,
  runner_host TEXT,
  created_at INTEGER NOT NULL,
  started_at INTEGER,
  finished_at INTEGER
);
CREATE INDEX agent_runs_by_project ON agent_runs(project_id, created_at);
CREATE INDEX agent_runs_by_session ON agent_runs(session_id, created_at);
CREATE INDEX agent_runs_open ON agent_runs(status) WHERE status IN ('queued', 'running');
CREATE INDEX agent_runs_by_produced ON agent_runs(produced) WHERE produced IS NOT NULL;
CREATE VIRTUAL TABLE agent_runs_fts USING fts5(run_id UNINDEXED, prompt, result);

-- Where each conversation of a session stands: the CLI conversation id the next call continues
-- from (null: the next call starts a new one).
CREATE TABLE agent_conversations (
  session_id TEXT NOT NULL,
  provider TEXT NOT NULL,
  conversation TEXT NOT NULL,
  current TEXT,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, provider, conversation)
) WITHOUT ROWID;
`,
  },
  {
    version: 11,
    name: 'the hub: bearer tokens, MCP sessions over HTTP, dashboard logins, and an event log',
    sql: `
-- Tokens of the agents that use the hub over HTTP. Only a SHA-256 of each is kept.
CREATE TABLE hub_tokens (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  last_used_at INTEGER,
  revoked_at INTEGER
);
CREATE UNIQUE INDEX hub_tokens_live_name ON hub_tokens(name) WHERE revoked_at IS NULL;

-- One MCP session over HTTP (its Mcp-Session-Id): what its client said when it connected, the
-- token it connected with, and the collab session it acts as. Any hub process can take it up again.
CREATE TABLE mcp_sessions (
  id TEXT PRIMARY KEY,
  token_id TEXT,
  -- JSON of the client's initialize parameters (protocol version, capabilities, client info).
  initialize TEXT NOT NULL,
  project_root TEXT,
  client_session_id TEXT,
  name TEXT,
  collab_session_id TEXT,
  created_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  closed_at INTEGER
);
CREATE INDEX mcp_sessions_open ON mcp_sessions(last_seen_at) WHERE closed_at IS NULL;

-- One-time dashboard login codes, and the cookies they were exchanged for (hashes only).
CREATE TABLE dashboard_logins (
  hash TEXT PRIMARY KEY,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER
) WITHOUT ROWID;
CREATE TABLE dashboard_sessions (
  hash TEXT PRIMARY KEY,
  csrf TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;

-- What changed, in order, whichever process changed it: the dashboard's live feed reads it, and a
-- reader that reconnects asks for what came after the last id it saw. Filled by triggers.
CREATE TABLE events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  project_id TEXT,
  kind TEXT NOT NULL,
  subject TEXT NOT NULL,
  op TEXT NOT NULL
);
CREATE TRIGGER events_session_insert AFTER INSERT ON sessions BEGIN
  INSERT INTO events (at, project_id, kind, subject, op) VALUES (NEW.created_at, NEW.project_id, 'session', NEW.id, 'started');
END;
CREATE TRIGGER events_session_update AFTER UPDATE OF status, name, branch ON sessions
  WHEN OLD.status IS NOT NEW.status OR OLD.name IS NOT NEW.name OR OLD.branch IS NOT NEW.branch BEGIN
  INSERT INTO events (at, project_id, kind, subject, op)
  VALUES (coalesce(NEW.ended_at, NEW.last_heartbeat), NEW.project_id, 'session', NEW.id, CASE WHEN NEW.status = 'ended' THEN 'ended' ELSE 'changed' END);
END;
CREATE TRIGGER events_claim_insert AFTER INSERT ON claims BEGIN
  INSERT INTO events (at, project_id, kind, subject, op) VALUES (NEW.created_at, NEW.project_id, 'claim', NEW.id, 'created');
END;
CREATE TRIGGER events_claim_update AFTER UPDATE OF status ON claims WHEN OLD.status IS NOT NEW.status BEGIN
  INSERT INTO events (at, project_id, kind, subject, op) VALUES (NEW.updated_at, NEW.project_id, 'claim', NEW.id, NEW.status);
END;
CREATE TRIGGER events_claim_delete AFTER DELETE ON claims WHEN OLD.status = 'active' BEGIN
  INSERT INTO events (at, project_id, kind, subject, op) VALUES (OLD.updated_at, OLD.project_id, 'claim', OLD.id, 'deleted');
END;
CREATE TRIGGER events_message_insert AFTER INSERT ON messages BEGIN
  INSERT INTO events (at, project_id, kind, subject, op) VALUES (NEW.created_at, NEW.project_id, 'message', NEW.id, 'sent');
END;
CREATE TRIGGER events_decision_insert AFTER INSERT ON decisions BEGIN
  INSERT INTO events (at, project_id, kind, subject, op) VALUES (NEW.created_at, NEW.project_id, 'decision', NEW.id, 'recorded');
END;
CREATE TRIGGER events_question_insert AFTER INSERT ON questions BEGIN
  INSERT INTO events (at, project_id, kind, subject, op) VALUES (NEW.created_at, NEW.project_id, 'question', NEW.id, 'asked');
END;
CREATE TRIGGER events_question_update AFTER UPDATE OF status ON questions WHEN OLD.status IS NOT NEW.status BEGIN
  INSERT INTO events (at, project_id, kind, subject, op) VALUES (coalesce(NEW.closed_at, NEW.created_at), NEW.project_id, 'question', NEW.id, NEW.status);
END;
CREATE TRIGGER events_work_insert AFTER INSERT ON work_items BEGIN
  INSERT INTO events (at, project_id, kind, subject, op) VALUES (NEW.created_at, NEW.project_id, 'review', NEW.id, NEW.status);
END;
CREATE TRIGGER events_work_update AFTER UPDATE OF status, version ON work_items
  WHEN OLD.status IS NOT NEW.status OR OLD.version IS NOT NEW.version BEGIN
  INSERT INTO events (at, project_id, kind, subject, op) VALUES (NEW.updated_at, NEW.project_id, 'review', NEW.id, NEW.status);
END;
CREATE TRIGGER events_notification_insert AFTER INSERT ON notifications BEGIN
  INSERT INTO events (at, project_id, kind, subject, op) VALUES (NEW.created_at, NEW.project_id, 'notification', NEW.id, NEW.type);
END;
`,
  },
  {
    version: 12,
    name: 'team mode: each new event is announced to the hub replicas (PostgreSQL)',
    // SQLite has one file and no listeners: readers poll the events table by id.
    sql: '',
    pg: `
-- The payload is only the event's id: the event itself is a row, read (and backfilled after a
-- reconnect) from the events table.
CREATE FUNCTION events_announce() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('collab_events', NEW.id::text);
  RETURN NULL;
END $$;
CREATE TRIGGER events_announce AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION events_announce();
`,
  },
  {
    version: 13,
    name: 'team mode: the tables read in insertion order get the rowid SQLite gives every table',
    sql: '',
    // Rows already there are numbered in the order the table holds them.
    pg: `
ALTER TABLE claim_files ADD COLUMN rowid BIGINT GENERATED BY DEFAULT AS IDENTITY;
CREATE UNIQUE INDEX claim_files_rowid ON claim_files(rowid);
ALTER TABLE messages ADD COLUMN rowid BIGINT GENERATED BY DEFAULT AS IDENTITY;
ALTER TABLE notifications ADD COLUMN rowid BIGINT GENERATED BY DEFAULT AS IDENTITY;
ALTER TABLE questions ADD COLUMN rowid BIGINT GENERATED BY DEFAULT AS IDENTITY;
`,
  },
  {
    version: 14,
    name: 'team mode: ids found by their first characters through an index',
    // SQLite compares ids by bytes, so each table's id index already answers a range of starts.
    sql: '',
    // The database's collation may not sort by bytes: indexes in the "C" collation answer
    // `id COLLATE "C" >= start AND id COLLATE "C" < start || '~'`.
    pg: `
CREATE INDEX sessions_id_c ON sessions ((id COLLATE "C"));
CREATE INDEX claims_id_c ON claims ((id COLLATE "C"));
CREATE INDEX messages_id_c ON messages ((id COLLATE "C"));
CREATE INDEX questions_id_c ON questions ((id COLLATE "C"));
CREATE INDEX agent_runs_id_c ON agent_runs ((id COLLATE "C"));
CREATE INDEX work_items_id_c ON work_items ((id COLLATE "C"));
CREATE INDEX reviews_id_c ON reviews ((id COLLATE "C"));
CREATE INDEX suggestions_id_c ON suggestions ((id COLLATE "C"));
`,
  },
  {
    version: 15,
    name: 'agent runs: the process group of the CLI, the server process by its start, why a run started fresh',
    // The same text on both: plain columns.
    sql: AGENT_RUN_PROCESSES,
    pg: AGENT_RUN_PROCESSES,
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
