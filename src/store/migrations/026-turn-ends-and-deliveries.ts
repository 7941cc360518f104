import type { PortableMigration } from './portable.js';

/**
 * What reaches an agent when it is not acting (issue: turn-end hooks, waking, receipts):
 * - `sessions.continued_in_a_row`: how many times in a row the turn-end hook sent the agent back
 *   (bounded by `turn_end_continuations`); `sessions.turn_ended_at`: when its turn last ended with
 *   nothing to go on with (idle since then), cleared by its next activity; `idle_told_at`: when its
 *   person was told it is idle with news (once per idle spell); `wake_watch_until`: until when a
 *   wake hook watches it for news that wakes it.
 * - `claim_waits`: a claim a session was stopped by (an edit refused for another's claim); when
 *   that claim is released, the session is told so at its turn's end or wakes.
 * - `changed_files.renamed_from`: a session's file that git finds renamed, and from where;
 *   `interface_changes` and `name_uses`: what its changes do to its functions' interfaces, and
 *   which names its changed lines call (the conflicts git cannot see: core/semantic.ts).
 * - `message_reads.via` and `acted_at`: a message delivered to an agent's context, how (tool
 *   response, prompt, turn end, wake, wait, list), and when the recipient next acted after it.
 */
export const turnEndsAndDeliveries: PortableMigration = {
  version: 26,
  name: 'turn ends, claims waited for, how messages were delivered, renamed files',
  build: (db) => [
    db.schema
      .alterTable('sessions')
      .addColumn('continued_in_a_row', 'integer', (c) => c.notNull().defaultTo(0)),
    db.schema.alterTable('sessions').addColumn('turn_ended_at', 'bigint'),
    // When its person was told (Telegram) that it is idle with news it cannot be woken for.
    db.schema.alterTable('sessions').addColumn('idle_told_at', 'bigint'),
    // Until when a wake hook watches it (news then wakes it, and its person need not be told).
    db.schema.alterTable('sessions').addColumn('wake_watch_until', 'bigint'),
    db.schema
      .createTable('claim_waits')
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('claim_id', 'text', (c) => c.notNull())
      .addColumn('project_id', 'text', (c) => c.notNull())
      .addColumn('file', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('claim_waits_pk', ['session_id', 'claim_id']),
    db.schema.createIndex('claim_waits_by_claim').on('claim_waits').columns(['claim_id']),
    db.schema.alterTable('message_reads').addColumn('via', 'text'),
    // A changed file git found renamed: the path it had in the base.
    db.schema.alterTable('changed_files').addColumn('renamed_from', 'text'),
    db.schema
      .createIndex('changed_files_by_old_path')
      .on('changed_files')
      .columns(['project_id', 'renamed_from']),
    // Its functions' interface changes and the names its changed lines use (JSON, core/semantic.ts).
    db.schema.alterTable('changed_files').addColumn('interface_changes', 'text'),
    db.schema.alterTable('changed_files').addColumn('name_uses', 'text'),
    db.schema.alterTable('message_reads').addColumn('acted_at', 'bigint'),
    // What a session was delivered and has not acted after yet: read on every call, by index.
    db.schema.createIndex('message_reads_unacted').on('message_reads').columns(['session_id', 'acted_at']),
    // A sender's messages, newest first (its receipts).
    db.schema.createIndex('messages_by_sender').on('messages').columns(['from_session_id', 'created_at']),
  ],
  // Messages read before receipts were kept: acted on, as far as anyone can tell.
  raw: {
    sqlite: 'UPDATE message_reads SET acted_at = read_at WHERE acted_at IS NULL;',
    postgresql: 'UPDATE message_reads SET acted_at = read_at WHERE acted_at IS NULL;',
  },
};
