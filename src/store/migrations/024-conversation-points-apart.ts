import type { PortableMigration } from './portable.js';

/**
 * The point a delegated conversation continues from is kept apart from the history of runs: its
 * folder (a CLI that keeps its sessions per folder resumes there) and the conversation's total cost
 * so far (claude reports totals: a continued run costs the difference) live on the conversation's
 * row, so that clearing the history deletes every finished run and the conversation still
 * continues. Filled from the runs that made each current point.
 */
const FROM_RUN = (column: string) =>
  `(SELECT r.${column} FROM agent_runs r WHERE r.produced = agent_conversations.current
     ORDER BY r.created_at DESC LIMIT 1)`;

export const conversationPointsApart: PortableMigration = {
  version: 24,
  name: "a conversation's point keeps its folder and cost, apart from the history of runs",
  build: (db) => [
    db.schema.alterTable('agent_conversations').addColumn('cwd', 'text'),
    db.schema.alterTable('agent_conversations').addColumn('cost_total_usd', 'double precision'),
  ],
  raw: {
    sqlite: `UPDATE agent_conversations SET cwd = ${FROM_RUN('cwd')}, cost_total_usd = ${FROM_RUN('cost_total_usd')}
  WHERE current IS NOT NULL;`,
    postgresql: `UPDATE agent_conversations SET cwd = ${FROM_RUN('cwd')}, cost_total_usd = ${FROM_RUN('cost_total_usd')}
  WHERE current IS NOT NULL;`,
  },
};
