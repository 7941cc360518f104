import { resolveHome } from '../app/home.js';
import { migrateDatabase } from '../app/migrate.js';
import { printJson } from './format.js';

/** `session-collab migrate [--json]`. */
export async function migrateCommand(options: { json?: boolean }): Promise<void> {
  const report = await migrateDatabase(resolveHome());
  if (options.json) {
    printJson(report);
    return;
  }
  const what = report.kind === 'postgresql' ? `PostgreSQL ${report.database}` : `SQLite ${report.database}`;
  process.stdout.write(
    report.from === report.to
      ? `${what}: schema ${report.to}, up to date.\n`
      : `${what}: schema ${report.from === 0 ? '(new)' : report.from} → ${report.to}.\n`,
  );
}
