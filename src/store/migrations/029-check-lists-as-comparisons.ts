import type { PortableMigration } from './portable.js';

/**
 * SQLite checks `x IN ('a', 'b', 'c')` (three values or more) by building a temporary b-tree of the
 * list on every row written: three for each claim inserted, one for each claim released or
 * notification written (~10,000 instructions each, a page zeroed). The same constraints written as
 * comparisons build none. SQLite changes a table's constraints only by building it anew: the two
 * tables written on every call are, with their indexes and triggers (claim_files refers to claims by
 * name; foreign keys are off while the migration runs), their rows keeping their rowids (a page of
 * notifications is read after its last rowid). PostgreSQL checks its lists as they are.
 */
export const checkListsAsComparisons: PortableMigration = {
  version: 29,
  name: 'the constraints of claims and notifications checked without a temporary table',
  rebuildsTables: true,
  build: () => [],
  raw: {
    sqlite: `
CREATE TABLE claims_v29 (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  project_id TEXT NOT NULL REFERENCES projects(id),
  intent TEXT NOT NULL,
  scope TEXT NOT NULL CHECK (scope = 'small' OR scope = 'medium' OR scope = 'large'),
  exclusive INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL DEFAULT 'active'
    CHECK (status = 'active' OR status = 'completed' OR status = 'abandoned' OR status = 'expired'),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  expires_at INTEGER,
  released_at INTEGER,
  summary TEXT,
  source TEXT NOT NULL DEFAULT 'tool' CHECK (source = 'tool' OR source = 'edit' OR source = 'git')
);
INSERT INTO claims_v29 (rowid, id, session_id, project_id, intent, scope, exclusive, status, created_at, updated_at, expires_at, released_at, summary, source)
  SELECT rowid, id, session_id, project_id, intent, scope, exclusive, status, created_at, updated_at, expires_at, released_at, summary, source FROM claims;
DROP TABLE claims;
ALTER TABLE claims_v29 RENAME TO claims;
CREATE INDEX claims_by_session ON claims(session_id, status);
CREATE INDEX claims_by_project ON claims(project_id, status);
CREATE INDEX claims_expiring ON claims(expires_at) WHERE status = 'active' AND expires_at IS NOT NULL;
CREATE INDEX claims_in_list_order ON claims(project_id, created_at, id);
CREATE TRIGGER claims_released_on_update AFTER UPDATE OF status ON claims
  WHEN OLD.status = 'active' AND NEW.status <> 'active'
  BEGIN UPDATE projects SET claims_released = claims_released + 1 WHERE id = NEW.project_id; END;
CREATE TRIGGER claims_released_on_delete AFTER DELETE ON claims
  WHEN OLD.status = 'active'
  BEGIN UPDATE projects SET claims_released = claims_released + 1 WHERE id = OLD.project_id; END;
CREATE TRIGGER events_claim_insert AFTER INSERT ON claims BEGIN
  INSERT INTO events (at, project_id, kind, subject, op) VALUES (NEW.created_at, NEW.project_id, 'claim', NEW.id, 'created');
END;
CREATE TRIGGER events_claim_update AFTER UPDATE OF status ON claims WHEN OLD.status IS NOT NEW.status BEGIN
  INSERT INTO events (at, project_id, kind, subject, op) VALUES (NEW.updated_at, NEW.project_id, 'claim', NEW.id, NEW.status);
END;
CREATE TRIGGER events_claim_delete AFTER DELETE ON claims WHEN OLD.status = 'active' BEGIN
  INSERT INTO events (at, project_id, kind, subject, op) VALUES (OLD.updated_at, OLD.project_id, 'claim', OLD.id, 'deleted');
END;

CREATE TABLE notifications_v29 (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  project_id TEXT,
  type TEXT NOT NULL,
  subject TEXT NOT NULL,
  payload TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state = 'pending' OR state = 'seen' OR state = 'expired'),
  count INTEGER NOT NULL DEFAULT 1,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  seen_at INTEGER
);
INSERT INTO notifications_v29 (rowid, id, session_id, project_id, type, subject, payload, state, count, created_at, updated_at, seen_at)
  SELECT rowid, id, session_id, project_id, type, subject, payload, state, count, created_at, updated_at, seen_at FROM notifications;
DROP TABLE notifications;
ALTER TABLE notifications_v29 RENAME TO notifications;
CREATE INDEX notifications_by_session ON notifications(session_id, state, created_at);
CREATE UNIQUE INDEX notifications_coalesce ON notifications(session_id, type, subject) WHERE state = 'pending';
CREATE TRIGGER events_notification_insert AFTER INSERT ON notifications BEGIN
  INSERT INTO events (at, project_id, kind, subject, op) VALUES (NEW.created_at, NEW.project_id, 'notification', NEW.id, NEW.type);
END;
`,
    postgresql: '',
  },
};
