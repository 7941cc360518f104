import {
  accessSync,
  constants,
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statfsSync,
} from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_CONFIG, databaseUrl, loadConfig } from '../app/config.js';
import { inspectDatabase, rebuildDatabase, sqliteDriverInfo } from '../app/database-health.js';
import { type HomePaths, resolveHome } from '../app/home.js';
import { type HealthCheck, teamDatabaseChecks } from '../app/team-database-health.js';
import { telegramSettings } from '../app/telegram-config.js';
import { CollabError } from '../core/errors.js';
import { damagedDatabase } from '../core/storage-faults.js';
import { VERSION } from '../core/version.js';
import { wiringFindings } from '../integrations/client-wiring.js';
import { locateProject } from '../integrations/git-repo.js';
import { databaseUsers } from '../integrations/lock-holder.js';
import { cacheChecksum } from './code-cache-checksum.js';
import { green, printJson, red } from './format.js';
import { machineServerCheck, stopMachineServer } from './machine-server.js';

type Check = HealthCheck;

/**
 * The code caches (see cli/launch.ts: a checksum, then V8's data): each must match its checksum. A
 * damaged one is removed (the next start rebuilds it), and said so; that is not a problem to fix.
 */
function cacheCheck(dir: string): Check {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.v8cache'));
  } catch {
    return { name: 'code cache', ok: true, detail: 'none yet (built on the next start)' };
  }
  const damaged: string[] = [];
  for (const f of files) {
    const data = readFileSync(join(dir, f));
    const sound = data.length > 16 && cacheChecksum(data.subarray(16)).equals(data.subarray(0, 16));
    if (!sound) {
      damaged.push(f);
      rmSync(join(dir, f), { force: true });
    }
  }
  return {
    name: 'code cache',
    ok: true,
    detail:
      damaged.length > 0
        ? `${damaged.length} damaged file(s) removed (${damaged.join(', ')}); rebuilt on the next start`
        : `${files.length} file(s), checksums match`,
  };
}

/** The checks of the home folder, config, database, caches, disk and versions. */
/** The team database's URL, when team mode is set (null too when config.json cannot be read). */
function teamUrl(paths: HomePaths): { url: string; poolSize: number } | null {
  try {
    const config = loadConfig(paths.config);
    const url = databaseUrl(config);
    return url ? { url, poolSize: config.database_pool_size } : null;
  } catch {
    const url = process.env.SESSION_COLLAB_DATABASE_URL;
    return url ? { url, poolSize: DEFAULT_CONFIG.database_pool_size } : null;
  }
}

function runChecks(paths: HomePaths): { checks: Check[]; configBad: boolean; databaseDamaged: boolean } {
  const checks: Check[] = [];
  let configBad = false;
  let databaseDamaged = false;
  const nodeMajor = Number(process.versions.node.split('.')[0]);
  checks.push({
    name: 'node',
    ok: nodeMajor >= 20,
    detail: process.versions.node,
    hint: 'session-collab needs Node.js 20 or newer.',
  });
  checks.push({ name: 'session-collab', ok: true, detail: VERSION });
  try {
    const config = loadConfig(paths.config);
    checks.push({
      name: 'config',
      ok: true,
      detail: `${paths.config} (toolsets: ${config.toolsets.join(', ')}; inactive after ${config.inactive_after_minutes} min)`,
    });
  } catch (error) {
    configBad = true;
    const e = error as Error & { hint?: string };
    checks.push({
      name: 'config',
      ok: false,
      detail: e.message,
      hint: `${e.hint ?? 'Fix it.'} Or run \`session-collab doctor --repair\`: it moves the file aside and the defaults apply.`,
    });
  }
  try {
    accessSync(paths.home, constants.W_OK);
    checks.push({ name: 'home', ok: true, detail: `${paths.home} (writable)` });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    checks.push({
      name: 'home',
      ok: false,
      detail: `${paths.home} is not writable (${code === 'EROFS' ? 'read-only file system' : code === 'ENOENT' ? 'it does not exist' : 'permission denied'})`,
      hint: 'Fix its permissions or set SESSION_COLLAB_HOME.',
    });
  }
  const team = teamUrl(paths);
  if (team) {
    checks.push({
      name: 'database',
      ok: true,
      detail: 'team mode: the team database below, not an embedded file',
    });
  } else
    try {
      const db = inspectDatabase(paths.database);
      databaseDamaged = db.integrity !== 'ok';
      checks.push({
        name: 'database',
        ok: db.integrity === 'ok' && db.journal === 'wal',
        ...(db.integrity === 'ok' ? {} : { hint: damagedDatabase(paths.database, db.integrity).hint }),
        detail: `${paths.database}${db.created ? ' (created)' : ''}: schema ${db.version}/${db.expected}, journal ${db.journal}, integrity ${db.integrity}, SQLite ${db.sqlite}`,
      });
    } catch (error) {
      const e = error as Error & { hint?: string };
      databaseDamaged = /is damaged|malformed|not a database/i.test(e.message);
      checks.push({
        name: 'database',
        ok: false,
        detail: e.message,
        hint: e.hint ?? 'Check the home folder: `ls -la` it, and its free space.',
      });
    }
  checks.push(cacheCheck(join(paths.home, 'cache')));
  try {
    const fs = statfsSync(paths.home);
    const freeMb = Math.floor((fs.bavail * fs.bsize) / 2 ** 20);
    checks.push({
      name: 'disk',
      ok: freeMb >= 50,
      detail: `${freeMb.toLocaleString('en')} MB free where the home folder is`,
      hint: 'Free some space (`df -h`), or point SESSION_COLLAB_HOME at another disk: a full disk stops every write.',
    });
  } catch (error) {
    checks.push({ name: 'disk', ok: false, detail: (error as Error).message });
  }
  checks.push(driverCheck());
  return { checks, configBad, databaseDamaged };
}

/** Which SQLite driver this Node uses (store/sqlite.ts), or why none can load. */
function driverCheck(): Check {
  try {
    return { name: 'sqlite driver', ...sqliteDriverInfo() };
  } catch (error) {
    return {
      name: 'sqlite driver',
      ok: false,
      detail: (error as Error).message,
      hint:
        (error as { hint?: string }).hint ??
        "Use Node 22.13 or later (node:sqlite is built in); or, on Node 20, run npm install in session-collab's folder where better-sqlite3 can build.",
    };
  }
}

function print(checks: Check[]): void {
  for (const c of checks) {
    console.log(
      `${c.ok ? green('✓') : red('✗')} ${c.name.padEnd(15)} ${c.detail}${!c.ok && c.hint ? `\n  ${' '.repeat(15)} → ${c.hint}` : ''}`,
    );
  }
}

/**
 * What `--repair` can mend: a damaged database (what can be read is kept, the damaged file moved
 * aside) and an invalid config.json (moved aside: the defaults apply). Nothing is deleted. Refused
 * while other processes have the database open: they would go on writing to the file moved aside.
 */
function repair(paths: HomePaths, found: { configBad: boolean; databaseDamaged: boolean }): Repair[] {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const done: Repair[] = [];
  if (found.configBad) {
    const aside = `${paths.config}.bad-${stamp}`;
    renameSync(paths.config, aside);
    done.push({
      what: 'config',
      detail: `moved to ${aside}; the defaults apply (copy your settings back from it)`,
    });
  }
  if (found.databaseDamaged) {
    const users = databaseUsers(paths.database);
    if (users.length > 0) {
      throw new CollabError(
        'DB_BUSY',
        `${paths.database} is open in ${users.map((u) => `pid ${u.pid}${u.command ? ` (${u.command})` : ''}`).join(', ')}.`,
        `Stop ${users.length === 1 ? 'it' : 'them'} (end the agent sessions, or kill ${users.map((u) => u.pid).join(' ')}), then run \`session-collab doctor --repair\` again.`,
      );
    }
    const fresh = `${paths.database}.repair-${stamp}`;
    const tables = rebuildDatabase(paths.database, fresh);
    const aside = `${paths.database}.damaged-${stamp}`;
    for (const suffix of ['', '-wal', '-shm']) {
      if (existsSync(paths.database + suffix)) renameSync(paths.database + suffix, aside + suffix);
    }
    renameSync(fresh, paths.database);
    const kept = tables.filter((t) => t.copied > 0 || t.lost !== 0);
    const nothing = tables.every((t) => t.copied === 0);
    done.push({
      what: 'database',
      detail: nothing
        ? `nothing in it could be read, so it starts empty; the damaged file is kept at ${aside}`
        : `rebuilt from what could be read; the damaged file is kept at ${aside}`,
      tables: (nothing ? [] : kept).map((t) => ({
        table: t.table,
        kept: t.copied,
        lost: t.lost === -1 ? 'the rest (unreadable)' : t.lost,
      })),
    });
  }
  return done;
}

interface Repair {
  what: string;
  detail: string;
  tables?: Array<{ table: string; kept: number; lost: number | string }>;
}

/**
 * The Telegram bot, when one is configured: the token works (getMe, 5 s at most) and someone may
 * answer. Telegram down or a bad token: questions still work through
 * the other channels, so this says what is wrong without stopping anything.
 */
async function telegramCheck(paths: HomePaths): Promise<Check | null> {
  let settings: ReturnType<typeof telegramSettings>;
  try {
    settings = telegramSettings(loadConfig(paths.config));
  } catch (error) {
    return {
      name: 'telegram',
      ok: false,
      detail: (error as Error).message,
      hint: 'Fix the Telegram settings.',
    };
  }
  if (!settings.bot_token) return null;
  if (settings.allowed_user_ids.length === 0)
    return {
      name: 'telegram',
      ok: false,
      detail: 'a bot token is set but no one may answer',
      hint: 'Add your Telegram user id to telegram.allowed_user_ids in config.json (message @userinfobot to learn it).',
    };
  const { telegramApi } = await import('../integrations/telegram-api.js');
  const api = telegramApi(settings.bot_token, settings.api_root);
  try {
    const name = await Promise.race([
      api.me(),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('no answer within 5 s')), 5_000).unref(),
      ),
    ]);
    return {
      name: 'telegram',
      ok: true,
      detail: `bot @${name}, ${settings.allowed_user_ids.length} user(s) may answer${settings.mode === 'webhook' ? ', webhook mode' : ''}`,
    };
  } catch (error) {
    return {
      name: 'telegram',
      ok: false,
      detail: `${settings.api_root} did not accept the bot: ${(error as Error).message}`,
      hint: 'Check telegram.bot_token (from @BotFather) and the network; questions still reach the terminal and the clients meanwhile.',
    };
  }
}

/** Checks the home folder, config, database and versions; exits 1 if anything is wrong. */
/** The wiring of the project doctor runs in (none outside a git repository). */
function projectWiring(): Check[] {
  try {
    const project = locateProject(process.cwd());
    return project.kind === 'git' ? wiringFindings(project.worktree) : [];
  } catch {
    return [];
  }
}

export async function doctor(options: { json?: boolean; repair?: boolean }): Promise<void> {
  const paths = resolveHome();
  let found = runChecks(paths);
  let repairs: Repair[] = [];
  if (options.repair && (found.configBad || found.databaseDamaged)) {
    // The server clients' relays started has the database open: it is stopped (they start another).
    if (found.databaseDamaged) await stopMachineServer(paths.home);
    repairs = repair(paths, found);
    found = runChecks(paths);
  }
  const telegram = found.configBad ? null : await telegramCheck(paths);
  const team = teamUrl(paths);
  const checks = [
    ...found.checks,
    machineServerCheck(paths.home),
    ...(team ? await teamDatabaseChecks(team.url, team.poolSize) : []),
    ...(telegram ? [telegram] : []),
    ...projectWiring(),
  ];
  const ok = checks.every((c) => c.ok);
  if (options.json) {
    printJson({ ok, checks, ...(options.repair ? { repairs } : {}) });
  } else {
    for (const r of repairs) {
      console.log(`${green('Repaired')} ${r.what}: ${r.detail}`);
      for (const t of r.tables ?? []) {
        console.log(
          `  ${t.table.padEnd(24)} ${t.kept} row(s) kept${t.lost === 0 ? '' : `, lost: ${t.lost}`}`,
        );
      }
    }
    if (options.repair && repairs.length === 0) console.log('Nothing to repair.');
    print(checks);
    console.log(ok ? green('\nAll good.') : red('\nProblems found; see above.'));
  }
  if (!ok) process.exitCode = 1;
}
