import { existsSync } from 'node:fs';
import { SCHEMA_VERSION } from '../store/migrations/schema.js';
import { salvageDatabase, type TableSalvage } from '../store/repair.js';
import { SQLITE_DRIVER_ENV, sqliteDriver } from '../store/sqlite.js';
import { Store } from '../store/store.js';

/**
 * The SQLite driver this Node uses, as `doctor` says it: `node:sqlite` built into Node, else
 * better-sqlite3 and why. Throws when neither can load (the message says what to do).
 */
export function sqliteDriverInfo(): string {
  const driver = sqliteDriver();
  if (driver.name === 'node:sqlite') return `node:sqlite, built into Node ${driver.version()}`;
  const why = process.env[SQLITE_DRIVER_ENV]
    ? `chosen by ${SQLITE_DRIVER_ENV}`
    : `Node ${process.versions.node} has no node:sqlite`;
  return `better-sqlite3 ${driver.version()} (${why})`;
}

/** The database file as `doctor` sees it (opening it creates and migrates it when missing). */
export function inspectDatabase(file: string): {
  created: boolean;
  version: number;
  expected: number;
  journal: string;
  integrity: string;
  sqlite: string;
  driver: string;
} {
  const created = !existsSync(file);
  const store = Store.open(file);
  try {
    return { created, expected: SCHEMA_VERSION, ...store.health() };
  } finally {
    void store.close();
  }
}

/** Copies what can be read of a damaged database into a new one (see store/repair.ts). */
export function rebuildDatabase(damaged: string, target: string): TableSalvage[] {
  return salvageDatabase(damaged, target);
}
