/**
 * Every migration, in order, for each database: the frozen ones (as shipped), then the portable
 * ones (each written once, in a file of its own, listed here). The runners (database.ts for SQLite,
 * pg-database.ts for PostgreSQL) ask for the steps after the version a database has.
 */
import { projectMerges } from './016-project-merges.js';
import { eventsInCommitOrder } from './017-events-in-commit-order.js';
import { claimFilesByProject } from './018-claim-files-by-project.js';
import { claimsInListOrder } from './019-claims-in-list-order.js';
import { sessionChanges } from './020-session-changes.js';
import { claimHistoryAndTakenRequests } from './021-claim-history-and-taken-requests.js';
import { sightingsAndLeases } from './022-sightings-and-leases.js';
import { workEventsFollowTheirProject } from './023-work-events-follow-their-project.js';
import { conversationPointsApart } from './024-conversation-points-apart.js';
import { callRecords } from './025-call-records.js';
import { turnEndsAndDeliveries } from './026-turn-ends-and-deliveries.js';
import { landings } from './027-landings.js';
import { meetingsByBase } from './028-meetings-by-base.js';
import { checkListsAsComparisons } from './029-check-lists-as-comparisons.js';
import { workWordsByItem } from './030-work-words-by-item.js';
import { workItemReads } from './031-work-item-reads.js';
import { approvedHeads } from './032-approved-heads.js';
import { FROZEN_MIGRATIONS, FROZEN_VERSION } from './frozen.js';
import { PG_BASELINE, PG_BASELINE_VERSION } from './pg-baseline.js';
import { compileMigration, type Dialect, type PortableMigration } from './portable.js';

/** The portable migrations, in version order (the next is FROZEN_VERSION + 1). */
export const PORTABLE_MIGRATIONS: PortableMigration[] = [
  projectMerges,
  eventsInCommitOrder,
  claimFilesByProject,
  claimsInListOrder,
  sessionChanges,
  claimHistoryAndTakenRequests,
  sightingsAndLeases,
  workEventsFollowTheirProject,
  conversationPointsApart,
  callRecords,
  turnEndsAndDeliveries,
  landings,
  meetingsByBase,
  checkListsAsComparisons,
  workWordsByItem,
  workItemReads,
  approvedHeads,
];

export const SCHEMA_VERSION = PORTABLE_MIGRATIONS.at(-1)?.version ?? FROZEN_VERSION;

/** One step of a schema's history: a version, and the SQL that reaches it from the one before. */
export interface MigrationStep {
  version: number;
  name: string;
  sql: string;
  rebuildsTables: boolean;
}

/**
 * The steps a database of `dialect` at version `from` takes to reach SCHEMA_VERSION (or
 * `migrations`, for a test of the runner): on PostgreSQL an empty database starts with its
 * baseline.
 */
export function stepsAfter(
  dialect: Dialect,
  from: number,
  portable: PortableMigration[] = PORTABLE_MIGRATIONS,
): MigrationStep[] {
  const steps: MigrationStep[] = [];
  let at = from;
  if (dialect === 'postgresql' && at === 0) {
    steps.push({ version: PG_BASELINE_VERSION, name: 'baseline', sql: PG_BASELINE, rebuildsTables: false });
    at = PG_BASELINE_VERSION;
  }
  for (const m of FROZEN_MIGRATIONS) {
    if (m.version <= at) continue;
    const sql = dialect === 'sqlite' ? m.sql : m.pg;
    if (sql === undefined) throw new Error(`Migration ${m.version} has no PostgreSQL text.`);
    steps.push({ version: m.version, name: m.name, sql, rebuildsTables: m.rebuildsTables === true });
  }
  for (const m of portable) {
    if (m.version <= at) continue;
    steps.push({
      version: m.version,
      name: m.name,
      sql: compileMigration(m, dialect),
      rebuildsTables: m.rebuildsTables === true,
    });
  }
  return steps;
}
