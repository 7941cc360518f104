/** The PostgreSQL baseline's second half (frozen: see pg-baseline.ts). */
export const PG_BASELINE_2 = `CREATE TABLE questions (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  project_id TEXT NOT NULL,
  question TEXT NOT NULL,
  options TEXT,
  label TEXT,
  urgency TEXT NOT NULL DEFAULT 'normal' CHECK (urgency IN ('low', 'normal', 'high')),
  status TEXT NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'answered', 'cancelled', 'expired', 'abandoned')),
  answer TEXT,
  answered_via TEXT CHECK (answered_via IN ('telegram', 'terminal', 'web', 'elicitation')),
  answered_by TEXT,
  created_at BIGINT NOT NULL,
  expires_at BIGINT,
  closed_at BIGINT,
  returned_at BIGINT,
  elicitation TEXT,
  telegram_sent BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX questions_by_status ON questions(status, created_at);
CREATE INDEX questions_by_session ON questions(session_id, created_at);
CREATE FUNCTION questions_abandoned() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE questions SET status = 'abandoned', closed_at = coalesce(NEW.ended_at, NEW.last_heartbeat)
  WHERE session_id = NEW.id AND status = 'pending';
  RETURN NULL;
END $$;
CREATE TRIGGER questions_abandoned AFTER UPDATE OF status ON sessions
  FOR EACH ROW WHEN (NEW.status = 'ended') EXECUTE FUNCTION questions_abandoned();

CREATE TABLE question_messages (
  chat_id BIGINT NOT NULL,
  message_id BIGINT NOT NULL,
  question_id TEXT NOT NULL REFERENCES questions(id) ON DELETE CASCADE,
  closed_shown INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (chat_id, message_id)
);
CREATE INDEX question_messages_by_question ON question_messages(question_id);

CREATE TABLE telegram_drafts (
  chat_id BIGINT NOT NULL,
  message_id BIGINT NOT NULL,
  from_id BIGINT NOT NULL,
  text TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (chat_id, message_id)
);

CREATE TABLE telegram_pollers (
  bot TEXT PRIMARY KEY,
  holder TEXT,
  holder_pid INTEGER,
  holder_host TEXT,
  lease_until BIGINT NOT NULL DEFAULT 0,
  update_offset BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE agent_runs (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  project_id TEXT NOT NULL,
  provider TEXT NOT NULL CHECK (provider IN ('claude', 'codex', 'gemini')),
  conversation TEXT NOT NULL,
  cwd TEXT NOT NULL,
  prompt TEXT NOT NULL,
  files TEXT,
  resumed_from TEXT,
  produced TEXT,
  status TEXT NOT NULL
    CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled', 'timed_out', 'lost')),
  result TEXT,
  error TEXT,
  output_truncated INTEGER NOT NULL DEFAULT 0,
  cost_usd DOUBLE PRECISION,
  cost_total_usd DOUBLE PRECISION,
  input_tokens BIGINT,
  output_tokens BIGINT,
  turns INTEGER,
  duration_ms BIGINT,
  runner_pid INTEGER,
  runner_host TEXT,
  created_at BIGINT NOT NULL,
  started_at BIGINT,
  finished_at BIGINT
);
CREATE INDEX agent_runs_by_project ON agent_runs(project_id, created_at);
CREATE INDEX agent_runs_by_session ON agent_runs(session_id, created_at);
CREATE INDEX agent_runs_open ON agent_runs(status) WHERE status IN ('queued', 'running');
CREATE INDEX agent_runs_by_produced ON agent_runs(produced) WHERE produced IS NOT NULL;
CREATE TABLE agent_runs_fts (
  run_id TEXT NOT NULL,
  prompt TEXT NOT NULL,
  result TEXT,
  search TSVECTOR GENERATED ALWAYS AS (to_tsvector('simple', prompt || ' ' || coalesce(result, ''))) STORED
);
CREATE INDEX agent_runs_fts_by_run ON agent_runs_fts(run_id);
CREATE INDEX agent_runs_fts_search ON agent_runs_fts USING GIN (search);

CREATE TABLE agent_conversations (
  session_id TEXT NOT NULL,
  provider TEXT NOT NULL,
  conversation TEXT NOT NULL,
  current TEXT,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (session_id, provider, conversation)
);

CREATE TABLE hub_tokens (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  created_at BIGINT NOT NULL,
  last_used_at BIGINT,
  revoked_at BIGINT
);
CREATE UNIQUE INDEX hub_tokens_live_name ON hub_tokens(name) WHERE revoked_at IS NULL;

CREATE TABLE mcp_sessions (
  id TEXT PRIMARY KEY,
  token_id TEXT,
  initialize TEXT NOT NULL,
  project_root TEXT,
  client_session_id TEXT,
  name TEXT,
  collab_session_id TEXT,
  created_at BIGINT NOT NULL,
  last_seen_at BIGINT NOT NULL,
  closed_at BIGINT
);
CREATE INDEX mcp_sessions_open ON mcp_sessions(last_seen_at) WHERE closed_at IS NULL;

CREATE TABLE dashboard_logins (
  hash TEXT PRIMARY KEY,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  used_at BIGINT
);
CREATE TABLE dashboard_sessions (
  hash TEXT PRIMARY KEY,
  csrf TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);

CREATE TABLE events (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at BIGINT NOT NULL,
  project_id TEXT,
  kind TEXT NOT NULL,
  subject TEXT NOT NULL,
  op TEXT NOT NULL
);
-- One function per table feeds the event log, as the SQLite triggers of migration 11 do.
CREATE FUNCTION events_of_sessions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO events (at, project_id, kind, subject, op) VALUES (NEW.created_at, NEW.project_id, 'session', NEW.id, 'started');
  ELSIF OLD.status IS DISTINCT FROM NEW.status OR OLD.name IS DISTINCT FROM NEW.name OR OLD.branch IS DISTINCT FROM NEW.branch THEN
    INSERT INTO events (at, project_id, kind, subject, op)
    VALUES (coalesce(NEW.ended_at, NEW.last_heartbeat), NEW.project_id, 'session', NEW.id,
            CASE WHEN NEW.status = 'ended' THEN 'ended' ELSE 'changed' END);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER events_of_sessions AFTER INSERT OR UPDATE OF status, name, branch ON sessions
  FOR EACH ROW EXECUTE FUNCTION events_of_sessions();
CREATE FUNCTION events_of_claims() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO events (at, project_id, kind, subject, op) VALUES (NEW.created_at, NEW.project_id, 'claim', NEW.id, 'created');
  ELSIF TG_OP = 'DELETE' THEN
    IF OLD.status = 'active' THEN
      INSERT INTO events (at, project_id, kind, subject, op) VALUES (OLD.updated_at, OLD.project_id, 'claim', OLD.id, 'deleted');
    END IF;
  ELSIF OLD.status IS DISTINCT FROM NEW.status THEN
    INSERT INTO events (at, project_id, kind, subject, op) VALUES (NEW.updated_at, NEW.project_id, 'claim', NEW.id, NEW.status);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER events_of_claims AFTER INSERT OR UPDATE OF status OR DELETE ON claims
  FOR EACH ROW EXECUTE FUNCTION events_of_claims();
CREATE FUNCTION events_of_messages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO events (at, project_id, kind, subject, op) VALUES (NEW.created_at, NEW.project_id, 'message', NEW.id, 'sent');
  RETURN NULL;
END $$;
CREATE TRIGGER events_of_messages AFTER INSERT ON messages FOR EACH ROW EXECUTE FUNCTION events_of_messages();
CREATE FUNCTION events_of_decisions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO events (at, project_id, kind, subject, op) VALUES (NEW.created_at, NEW.project_id, 'decision', NEW.id, 'recorded');
  RETURN NULL;
END $$;
CREATE TRIGGER events_of_decisions AFTER INSERT ON decisions FOR EACH ROW EXECUTE FUNCTION events_of_decisions();
CREATE FUNCTION events_of_questions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO events (at, project_id, kind, subject, op) VALUES (NEW.created_at, NEW.project_id, 'question', NEW.id, 'asked');
  ELSIF OLD.status IS DISTINCT FROM NEW.status THEN
    INSERT INTO events (at, project_id, kind, subject, op)
    VALUES (coalesce(NEW.closed_at, NEW.created_at), NEW.project_id, 'question', NEW.id, NEW.status);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER events_of_questions AFTER INSERT OR UPDATE OF status ON questions
  FOR EACH ROW EXECUTE FUNCTION events_of_questions();
CREATE FUNCTION events_of_work() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM NEW.status OR OLD.version IS DISTINCT FROM NEW.version THEN
    INSERT INTO events (at, project_id, kind, subject, op)
    VALUES (CASE WHEN TG_OP = 'INSERT' THEN NEW.created_at ELSE NEW.updated_at END, NEW.project_id, 'review', NEW.id, NEW.status);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER events_of_work AFTER INSERT OR UPDATE OF status, version ON work_items
  FOR EACH ROW EXECUTE FUNCTION events_of_work();
CREATE FUNCTION events_of_notifications() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO events (at, project_id, kind, subject, op) VALUES (NEW.created_at, NEW.project_id, 'notification', NEW.id, NEW.type);
  RETURN NULL;
END $$;
CREATE TRIGGER events_of_notifications AFTER INSERT ON notifications
  FOR EACH ROW EXECUTE FUNCTION events_of_notifications();
`;
