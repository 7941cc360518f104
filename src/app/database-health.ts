import { existsSync } from 'node:fs';
import { SCHEMA_VERSION } from '../store/migrations/schema.js';
import { salvageDatabase, type TableSalvage } from '../store/repair.js';
import { SQLITE_DRIVER_ENV, sqliteDriver } from '../store/sqlite.js';
import { Store } from '../store/store.js';

/**
 * The SQLite driver this Node uses, as `doctor` says it: `node:sqlite` built into Node, else
 * better-sqlite3 and why; not ok where better-sqlite3 12 is known to crash (Node 24: a statement
 * collected by the garbage collector aborts the process, WiseLibs/better-sqlite3#1515). Throws when
 * neither can load (the message says what to do).
 */
export function sqliteDriverInfo(): { ok: boolean; detail: string; hint?: string } {
  const driver = sqliteDriver();
  // Loaded is not working: better-sqlite3's JavaScript loads without its compiled addon.
  driver.open(':memory:', {}).close();
  if (driver.name === 'node:sqlite')
    return { ok: true, detail: `node:sqlite, built into Node ${driver.version()}` };
  const chosen = Boolean(process.env[SQLITE_DRIVER_ENV]);
  const why = chosen ? `chosen by ${SQLITE_DRIVER_ENV}` : `Node ${process.versions.node} has no node:sqlite`;
  const detail = `better-sqlite3 ${driver.version()} (${why})`;
  if (Number(process.versions.node.split('.')[0]) < 24) return { ok: true, detail };
  return {
    ok: false,
    detail: `${detail}: on Node 24 it aborts the process now and then, when the garbage collector frees a statement`,
    hint: `Unset ${SQLITE_DRIVER_ENV}: node:sqlite is built into this Node.`,
  };
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
