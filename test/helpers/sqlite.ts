import { closeSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { SQLITE_DRIVER_ENV } from '../../src/store/sqlite.js';
import { nodeSqlite } from '../../src/store/sqlite-node.js';

export { pragmaValue, sqliteConnection as openSqlite } from '../../src/store/sqlite.js';

/** Whether this Node has node:sqlite (loaded as the store loads it: Node 22's warning kept quiet). */
export const NODE_HAS_SQLITE = nodeSqlite() !== null;

/**
 * JavaScript for a child `node -e` that declares `openDb(file)`: a connection through the driver
 * this process's store uses (node:sqlite where Node has it, else better-sqlite3), with `prepare`
 * and `exec` as both drivers spell them. For tests whose other process holds or writes the file.
 */
export function childSqlite(): string {
  let better = 'null';
  try {
    better = JSON.stringify(createRequire(__filename).resolve('better-sqlite3'));
  } catch {
    // not installed: node:sqlite it is
  }
  return `const openDb = (file) => {
    process.removeAllListeners('warning'); // Node 22 warns that node:sqlite is experimental
    const builtIn = process.env.${SQLITE_DRIVER_ENV} === 'better-sqlite3' ? null : process.getBuiltinModule?.('node:sqlite');
    if (builtIn) return new builtIn.DatabaseSync(file);
    const Database = require(${better});
    return new Database(file);
  };`;
}

/**
 * The first `length` bytes of `file` (a database's `-wal` or `-shm`, whose headers say how its log
 * stands), read while other processes write it; null while the file is missing or shorter.
 */
export function fileHeader(file: string, length: number): Buffer | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const header = Buffer.alloc(length);
    return readSync(fd, header, 0, length, 0) < length ? null : header;
  } finally {
    closeSync(fd);
  }
}
