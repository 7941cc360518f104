import { App } from '../app/app.js';
import { CollabError } from '../core/errors.js';
import { inline } from '../core/fence.js';
import { describeAge } from '../core/liveness.js';
import { StatusService } from '../features/status/status-service.js';
import { bold, dim, green, printJson, red, yellow } from './format.js';

export interface StatusOptions {
  json?: boolean;
  all?: boolean;
  /** Sessions, claims and conflicts shown per project (0: all). */
  limit?: string;
}

/** What `status` shows per project unless --limit says otherwise: a screen, even with thousands. */
const DEFAULT_LIMIT = 20;

function parseLimit(value: string | undefined): number {
  if (value === undefined) return DEFAULT_LIMIT;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) {
    throw new CollabError(
      'INVALID_INPUT',
      `--limit: "${value}" is not a whole number.`,
      'Pass e.g. --limit 50, or --limit 0 for all.',
    );
  }
  return n === 0 ? Number.MAX_SAFE_INTEGER : n;
}

const MORE_HINT = 'see them with --limit 0 (all) or --limit <n>';

/** Sessions, claims and current conflicts per project. */
export async function status(options: StatusOptions): Promise<void> {
  const limit = parseLimit(options.limit);
  const app = await App.open();
  try {
    const projects = await new StatusService(app).projects({ all: options.all === true, limit });
    if (options.json) {
      printJson({ home: app.paths.home, projects });
      return;
    }
    if (projects.length === 0) {
      console.log(`No active sessions. ${dim(`(database: ${app.paths.database})`)}`);
      return;
    }
    const now = app.now();
    const stateOf = new Map<string, string>();
    for (const p of projects) {
      console.log(
        bold(`${p.kind === 'git' ? p.root.replace(/\/\.git$/, '') : p.root}`) +
          dim(`  (project ${p.project_id})`),
      );
      console.log('  Sessions');
      for (const s of p.sessions) {
        stateOf.set(s.id, s.status);
        const dot = s.status === 'active' ? green('●') : s.status === 'inactive' ? yellow('○') : dim('·');
        console.log(
          `    ${dot} ${inline(s.name, 40).padEnd(24)} ${s.status.padEnd(8)} ${String(s.active_claims).padStart(3)} claim(s)  ${dim(`${s.branch ?? '-'}  seen ${describeAge(Date.parse(s.last_heartbeat), now)}  ${s.id}`)}`,
        );
      }
      if (p.sessions.length === 0) console.log(dim('    none active'));
      if (p.more.sessions) console.log(dim(`    and more: ${MORE_HINT}`));
      for (const s of p.sessions) {
        for (const h of s.changed_files_held_by_others) {
          console.log(
            `    ${red('⚠')} "${inline(s.name, 40)}" has changed ${inline(h.file, 200)}, which "${inline(h.session, 40)}" holds (${inline(h.intent)})`,
          );
        }
      }
      console.log('  Claims');
      for (const c of p.claims) {
        const stale = stateOf.get(c.session_id) === 'active' ? '' : yellow(' (stale)');
        console.log(
          `    ${inline(c.files.join(', '), 300)}  ${dim('by')} ${inline(c.session, 40)}${stale}: ${inline(c.intent)} ${dim(`[${c.scope}, ${describeAge(Date.parse(c.created_at), now)}]`)}`,
        );
      }
      if (p.claims.length === 0) console.log(dim('    none'));
      if (p.more.claims > 0) console.log(dim(`    and ${p.more.claims} more: ${MORE_HINT}`));
      if (p.conflicts.length > 0) {
        console.log(`  ${red('Conflicts')}`);
        for (const c of p.conflicts) {
          console.log(
            `    ${red('⚠')} ${inline(c.path, 200)}: "${inline(c.a.session, 40)}" (${inline(c.a.intent)}) and "${inline(c.b.session, 40)}" (${inline(c.b.intent)})`,
          );
        }
        if (p.more.conflicts) console.log(dim(`    and more: ${MORE_HINT}`));
      }
      console.log('');
    }
  } finally {
    await app.close();
  }
}
