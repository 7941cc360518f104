import { CoreApp } from '../app/core-app.js';
import { resolveHome } from '../app/home.js';
import { migrateDatabase } from '../app/migrate.js';
import { inline } from '../core/fence.js';
import { reidentifyProjects } from '../features/sessions/project-identities.js';
import { printJson } from './format.js';

/**
 * `session-collab migrate [--json]`: the schema, then the projects of this machine still keyed by
 * a clone's git folder, named by their repository (merging clones of one repository).
 */
export async function migrateCommand(options: { json?: boolean }): Promise<void> {
  const paths = resolveHome();
  const report = await migrateDatabase(paths);
  const app = await CoreApp.open({ paths });
  let projects: Awaited<ReturnType<typeof reidentifyProjects>>;
  try {
    projects = await reidentifyProjects(app);
  } finally {
    await app.close();
  }
  if (options.json) {
    printJson({ ...report, projects });
    return;
  }
  const what = report.kind === 'postgresql' ? `PostgreSQL ${report.database}` : `SQLite ${report.database}`;
  process.stdout.write(
    report.from === report.to
      ? `${what}: schema ${report.to}, up to date.\n`
      : `${what}: schema ${report.from === 0 ? '(new)' : report.from} → ${report.to}.\n`,
  );
  for (const p of projects) {
    const moved = p.merged
      ? Object.entries(p.merged)
          .map(([table, rows]) => `${rows} ${table}`)
          .join(', ')
      : null;
    process.stdout.write(
      moved
        ? `Merged ${inline(p.from, 200)} into ${inline(p.label, 200)} (project ${p.project_id}): moved ${moved || 'nothing'}.\n`
        : `Named ${inline(p.from, 200)} by its repository: ${inline(p.label, 200)} (project ${p.project_id}).\n`,
    );
  }
  if (projects.length === 0) process.stdout.write('No project of this machine to rename or merge.\n');
}
