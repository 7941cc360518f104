import type { PortableMigration } from './portable.js';

/**
 * The review workflow's history stays append-only, except that its events may move to another
 * project: when projects that turn out to be one repository are merged (`store/project-merge.ts`),
 * every row of every table with a `project_id` moves, these too. Any other change or a deletion is
 * still refused.
 */
const GUARDED = 'seq, work_item_id, kind, actor_id, actor_name, role, content, created_at';

export const workEventsFollowTheirProject: PortableMigration = {
  version: 23,
  name: 'review history moves with its project when projects merge',
  build: () => [],
  raw: {
    sqlite: `
DROP TRIGGER work_events_append_only_update;
CREATE TRIGGER work_events_append_only_update BEFORE UPDATE OF ${GUARDED} ON work_events
  BEGIN SELECT RAISE(ABORT, 'work_events is append-only'); END;
`,
    postgresql: `
DROP TRIGGER work_events_append_only ON work_events;
CREATE TRIGGER work_events_append_only BEFORE UPDATE OF ${GUARDED} OR DELETE ON work_events
  FOR EACH ROW EXECUTE FUNCTION work_events_append_only();
`,
  },
};
