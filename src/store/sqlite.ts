import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';

let addon: string | null | undefined;

/**
 * better-sqlite3's compiled addon, found once per process where the package's build puts it. Left
 * to find it itself, better-sqlite3 asks the `bindings` package, which works out the caller's
 * folder from a stack trace and tries a dozen candidate paths: about 4 ms of every hook process.
 * Null when the addon is elsewhere (a debug build, say).
 */
export function sqliteAddon(): string | null {
  if (addon !== undefined) return addon;
  try {
    const packageJson = createRequire(__filename).resolve('better-sqlite3/package.json');
    const file = join(dirname(packageJson), 'build', 'Release', 'better_sqlite3.node');
    addon = existsSync(file) ? file : null;
  } catch {
    addon = null;
  }
  return addon;
}

/**
 * A better-sqlite3 connection to `file`; the store opens every connection here. The built CLI
 * carries better-sqlite3's JavaScript in its bundle (compiled once into the code cache, rather than
 * its dozen files read and compiled by every hook process) and hands it the addon; where the addon
 * is not where the build puts it, the installed package is loaded and finds it its own way.
 */
export function sqliteConnection(file: string, options: Database.Options = {}): Database.Database {
  const nativeBinding = sqliteAddon();
  if (nativeBinding) return new Database(file, { ...options, nativeBinding });
  const Installed = createRequire(__filename)('better-sqlite3') as typeof Database;
  return new Installed(file, options);
}
