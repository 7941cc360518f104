import { databaseUrl, loadConfig } from '../app/config.js';
import { resolveHome } from '../app/home.js';
import { exportToPostgres, importFromPostgres, type TransferReport } from '../app/transfer.js';
import { CollabError } from '../core/errors.js';
import { printJson } from './format.js';

function target(given: string | undefined, flag: string): string {
  const home = resolveHome();
  const url = given ?? databaseUrl(loadConfig(home.config));
  if (!url || !/^postgres(ql)?:\/\/\S+$/.test(url))
    throw new CollabError(
      'INVALID_INPUT',
      `Which team database? Give ${flag} postgres://user@host:5432/database (or set SESSION_COLLAB_DATABASE_URL).`,
    );
  return url;
}

function print(report: TransferReport, json: boolean): void {
  if (json) printJson(report);
  else {
    const arrow =
      report.direction === 'export'
        ? `${report.sqlite} → ${report.postgresql}`
        : `${report.postgresql} → ${report.sqlite}`;
    process.stdout.write(`${report.direction === 'export' ? 'Exported' : 'Imported'} ${arrow}\n`);
    for (const t of report.tables.filter((x) => x.sqlite_rows > 0 || x.postgresql_rows > 0 || !x.same))
      process.stdout.write(
        `  ${t.table.padEnd(24)} ${String(t.sqlite_rows).padStart(8)} rows  ${t.same ? 'same' : `DIFFERENT (PostgreSQL: ${t.postgresql_rows})`}\n`,
      );
    process.stdout.write(
      report.verified
        ? 'Verified: every table has the same rows on both sides (counts and SHA-256 of the rows).\n'
        : 'NOT verified: the tables marked DIFFERENT do not match. Keep the source as it is.\n',
    );
  }
  if (!report.verified) process.exitCode = 1;
}

/** `session-collab export --to <url>`. */
export async function exportCommand(options: { to?: string; json?: boolean }): Promise<void> {
  print(await exportToPostgres(resolveHome(), target(options.to, '--to')), options.json === true);
}

/** `session-collab import --from <url>`. */
export async function importCommand(options: { from?: string; json?: boolean }): Promise<void> {
  print(await importFromPostgres(resolveHome(), target(options.from, '--from')), options.json === true);
}
