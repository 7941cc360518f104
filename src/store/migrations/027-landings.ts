import type { PortableMigration } from './portable.js';

/**
 * The landing queue (one per repository, `features/landing/`):
 * - `landings`: one request to land a copy's committed work onto a target branch, from `queued`
 *   through `landing` to `landed`, `rejected` or `cancelled`; who lands it (`runner`, its pid and
 *   host: another process takes over a dead one's), the commit about to become the target
 *   (`candidate`, written before the target moves, so a takeover knows whether it did), and what
 *   came of it (the landed commit, or a reason with its details and the check's output).
 * - `landing_meetings`: what a landing's work meets in another live session's changes (the
 *   conflicts it now has with the target), shown by that session's `collab_check` until its base
 *   moves.
 */
export const landings: PortableMigration = {
  version: 27,
  name: 'the landing queue, and what landed work meets',
  build: (db) => [
    db.schema
      .createTable('landings')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('project_id', 'text', (c) => c.notNull())
      .addColumn('session_id', 'text')
      .addColumn('requester', 'text', (c) => c.notNull())
      .addColumn('host', 'text', (c) => c.notNull())
      .addColumn('worktree', 'text', (c) => c.notNull())
      .addColumn('branch', 'text', (c) => c.notNull())
      .addColumn('head_commit', 'text', (c) => c.notNull())
      .addColumn('onto', 'text', (c) => c.notNull())
      .addColumn('commits', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('runner', 'text')
      .addColumn('runner_pid', 'integer')
      .addColumn('runner_host', 'text')
      .addColumn('runner_start', 'text')
      // Until when its runner is known to be at it (it renews this while it lands).
      .addColumn('lease_until', 'bigint')
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('target_before', 'text')
      .addColumn('candidate', 'text')
      .addColumn('landed_commit', 'text')
      .addColumn('reason_code', 'text')
      .addColumn('reason', 'text')
      .addColumn('details', 'text')
      .addColumn('check_output', 'text')
      .addColumn('check_ms', 'integer')
      .addColumn('requested_at', 'bigint', (c) => c.notNull())
      .addColumn('started_at', 'bigint')
      .addColumn('finished_at', 'bigint'),
    db.schema.createIndex('landings_queue').on('landings').columns(['project_id', 'state', 'requested_at']),
    db.schema.createIndex('landings_by_state').on('landings').columns(['state', 'requested_at']),
    db.schema.createIndex('landings_by_session').on('landings').columns(['session_id', 'requested_at']),
    db.schema
      .createTable('landing_meetings')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('landing_id', 'text', (c) => c.notNull())
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('project_id', 'text', (c) => c.notNull())
      .addColumn('base_commit', 'text', (c) => c.notNull())
      .addColumn('level', 'text', (c) => c.notNull())
      .addColumn('file', 'text', (c) => c.notNull())
      .addColumn('detail', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull()),
    db.schema.createIndex('landing_meetings_by_session').on('landing_meetings').columns(['session_id', 'at']),
  ],
  // Each request's start and end is an event: the dashboard and waiting calls of every process see it.
  raw: {
    sqlite: `CREATE TRIGGER events_landing_insert AFTER INSERT ON landings BEGIN
  INSERT INTO events (at, project_id, kind, subject, op) VALUES (NEW.requested_at, NEW.project_id, 'landing', NEW.id, 'queued');
END;
CREATE TRIGGER events_landing_update AFTER UPDATE OF state ON landings WHEN OLD.state IS NOT NEW.state BEGIN
  INSERT INTO events (at, project_id, kind, subject, op)
  VALUES (coalesce(NEW.finished_at, NEW.started_at, NEW.requested_at), NEW.project_id, 'landing', NEW.id, NEW.state);
END;`,
    postgresql: `CREATE FUNCTION events_of_landings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO events (at, project_id, kind, subject, op) VALUES (NEW.requested_at, NEW.project_id, 'landing', NEW.id, 'queued');
  ELSIF OLD.state IS DISTINCT FROM NEW.state THEN
    INSERT INTO events (at, project_id, kind, subject, op)
    VALUES (coalesce(NEW.finished_at, NEW.started_at, NEW.requested_at), NEW.project_id, 'landing', NEW.id, NEW.state);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER events_of_landings AFTER INSERT OR UPDATE OF state ON landings
  FOR EACH ROW EXECUTE FUNCTION events_of_landings();`,
  },
};
