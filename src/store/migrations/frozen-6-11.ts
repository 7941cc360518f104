/** Migrations 6 to 11, as shipped (frozen: never edited). */
import type { FrozenMigration } from './frozen.js';

export const MIGRATIONS_6_11: FrozenMigration[] = [
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
];
