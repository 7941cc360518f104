import { existsSync } from 'node:fs';
import { SCHEMA_VERSION } from '../store/migrations/schema.js';
import { salvageDatabase, type TableSalvage } from '../store/repair.js';
import { Store } from '../store/store.js';

/** The database file as `doctor` sees it (opening it creates and migrates it when missing). */
export function inspectDatabase(file: string): {
  created: boolean;
  version: number;
  expected: number;
  journal: string;
  integrity: string;
  sqlite: string;
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
