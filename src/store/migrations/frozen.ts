/**
 * The migrations written before the schema builder, as shipped: each a SQLite text and, from 12
 * on, a PostgreSQL text (PostgreSQL starts from its baseline, pg-baseline.ts, at 11). Frozen: never
 * edit one. New migrations are portable (portable.ts), one file each.
 */
import { MIGRATIONS_1_5 } from './frozen-1-5.js';
import { MIGRATIONS_6_11 } from './frozen-6-11.js';
import { MIGRATIONS_12_15 } from './frozen-12-15.js';

export interface FrozenMigration {
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

export const FROZEN_MIGRATIONS: FrozenMigration[] = [
  ...MIGRATIONS_1_5,
  ...MIGRATIONS_6_11,
  ...MIGRATIONS_12_15,
];

/** The last frozen migration: portable ones come after it. */
export const FROZEN_VERSION = FROZEN_MIGRATIONS[FROZEN_MIGRATIONS.length - 1]!.version;
