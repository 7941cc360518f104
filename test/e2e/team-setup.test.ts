/**
 * Team mode set up as a team admin would, following the README: every fault met on the way is one
 * line that names it and the fix; doctor checks the team database itself; export leaves a schema
 * the team's role owns, whoever runs it, and keeps a claim's files in their order.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectInMemory, testApp } from '../helpers/app.js';
import { PG_ADMIN_URL, pgAvailable } from '../helpers/pg.js';
import { CLI } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

const run = promisify(execFile);
let available = false;
beforeAll(async () => {
  available = await pgAvailable('test/e2e/team-setup.test.ts');
});

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** Roles and databases made here, dropped after the file. */
const made: Array<{ database: string; role: string }> = [];
afterAll(async () => {
  if (!available) return;
  for (const m of made.splice(0)) {
    await admin(`DROP DATABASE IF EXISTS ${m.database} WITH (FORCE)`);
    await admin(`DROP ROLE IF EXISTS ${m.role}`);
  }
});

/** As the README's step 1: a role for the team and a database it owns. URLs for it and for the superuser. */
async function teamDatabase(): Promise<{ team: string; superuser: string; role: string }> {
  const id = randomBytes(5).toString('hex');
  const role = `collab_team_${id}`;
  const database = `collab_db_${id}`;
  await admin(`CREATE ROLE ${role} LOGIN`);
  await admin(`CREATE DATABASE ${database} OWNER ${role}`);
  made.push({ database, role });
  const url = (user: string) => {
    const u = new URL(PG_ADMIN_URL);
    u.username = user;
    u.pathname = `/${database}`;
    return u.toString();
  };
  return { team: url(role), superuser: url(new URL(PG_ADMIN_URL).username), role };
}

async function cli(home: string, args: string[], url: string | null, input?: string) {
  const env = { ...process.env, SESSION_COLLAB_HOME: home, SESSION_COLLAB_DATABASE_URL: url ?? '' };
  try {
    // From the home folder: outside any repository (doctor checks the wiring of the one it runs in).
    const child = run(process.execPath, [CLI, ...args], { env, cwd: home, timeout: 30_000 });
    if (input !== undefined) child.child.stdin?.end(input);
    const { stdout, stderr } = await child;
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** One line naming the fault and one with the fix: no stack trace. */
function oneFault(stderr: string) {
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(2);
  expect(stderr).not.toMatch(/\n\s+at /);
  return lines;
}

/** SQL on one database as the superuser. */
async function adminOn(url: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** A login role (dropped after the file, after the database it was given rights in). */
async function extraRole(team: { team: string; role: string }, prefix: string): Promise<string> {
  const role = `${prefix}_${randomBytes(5).toString('hex')}`;
  await admin(`CREATE ROLE ${role} LOGIN`);
  made.push({ database: new URL(team.team).pathname.slice(1), role });
  return role;
}

type Finding = { name: string; ok: boolean; detail: string; hint?: string };

/** `doctor --json` and `doctor` as text: the exit code, the findings by name, the text. */
async function doctorOf(home: string, url: string) {
  const json = await cli(home, ['doctor', '--json'], url);
  const text = await cli(home, ['doctor'], url);
  const checks = JSON.parse(json.stdout).checks as Finding[];
  return {
    code: json.code,
    textCode: text.code,
    text: text.stdout,
    byName: Object.fromEntries(checks.map((c) => [c.name, c])) as Record<string, Finding>,
    failing: checks.filter((c) => !c.ok).map((c) => c.name),
  };
}

/**
 * A PostgreSQL in front of the real one that forwards everything but notifications, as a pooler in
 * transaction mode drops LISTEN: its URL.
 */
async function droppingNotifications(url: string): Promise<{ url: string; server: Server }> {
  const target = new URL(url);
  const server = createServer((client) => {
    const upstream = createConnection(Number(target.port || 5432), target.hostname);
    client.pipe(upstream);
    let pending = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      const kept: Buffer[] = [];
      // Every message from the server: a type byte and a length (of itself and the body).
      while (pending.length >= 5) {
        const size = 1 + pending.readUInt32BE(1);
        if (pending.length < size) break;
        if (pending[0] !== 0x41 /* 'A': NotificationResponse */) kept.push(pending.subarray(0, size));
        pending = pending.subarray(size);
      }
      if (kept.length > 0) client.write(Buffer.concat(kept));
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxied = new URL(url);
  proxied.port = String((server.address() as { port: number }).port);
  return { url: proxied.toString(), server };
}

describe('team mode set up by a team admin', () => {
  it('a bad team-database URL: one line naming the fault and the fix, for hub, serve and every command', async (ctx) => {
    if (!available) return ctx.skip();
    const home = tempDir('collab-home-');
    const u = new URL(PG_ADMIN_URL);
    const closed = `postgres://collab:secret@127.0.0.1:1/collab`;
    const unknownRole = `postgres://nobody_${randomBytes(3).toString('hex')}@${u.host}/test`;
    const missingDb = `postgres://${u.username}@${u.host}/missing_${randomBytes(3).toString('hex')}`;
    const [c1] = oneFault((await cli(home, ['status'], closed)).stderr);
    expect(c1).toContain('Nothing accepts connections at 127.0.0.1:1');
    expect(c1).not.toContain('secret');
    const [r1, r2] = oneFault((await cli(home, ['status'], unknownRole)).stderr);
    expect(r1).toMatch(/The role "nobody_\w+" does not exist/);
    expect(r2).toContain('createuser');
    const [d1, d2] = oneFault((await cli(home, ['migrate'], missingDb)).stderr);
    expect(d1).toMatch(/The database "missing_\w+" does not exist/);
    expect(d2).toContain('createdb');
    for (const command of [['hub', '--listen', '127.0.0.1:0'], ['serve'], ['token', 'list']]) {
      const out = await cli(home, command, closed, '');
      expect(out.code, command.join(' ')).not.toBe(0);
      expect(oneFault(out.stderr)[0]).toContain('Nothing accepts connections');
    }
  });

  it('doctor checks the team database, not an unused embedded file', async (ctx) => {
    if (!available) return ctx.skip();
    const { team } = await teamDatabase();
    const home = tempDir('collab-home-');
    const good = JSON.parse((await cli(home, ['doctor', '--json'], team)).stdout);
    const byName = Object.fromEntries(good.checks.map((c: { name: string }) => [c.name, c]));
    expect(byName['team database']).toMatchObject({ ok: true });
    expect(byName['team schema'].ok).toBe(true);
    expect(byName['team rights']).toMatchObject({ ok: true });
    expect(byName['team connections'].detail).toMatch(/in use .* hub replica takes up to 11/);
    expect(byName['team notifications']).toMatchObject({ ok: true });
    expect(byName.database.detail).toContain('team mode');
    expect(existsSync(join(home, 'registry.db'))).toBe(false);
    // A pool no server can afford: doctor warns before the limit is met.
    writeFileSync(join(home, 'config.json'), JSON.stringify({ database_pool_size: 100 }));
    const tight = await cli(home, ['doctor', '--json'], team);
    expect(tight.code).toBe(1);
    const connections = JSON.parse(tight.stdout).checks.find(
      (c: { name: string }) => c.name === 'team connections',
    );
    expect(connections).toMatchObject({ ok: false, hint: expect.stringContaining('database_pool_size') });
    // Unreachable: said in one line, and not "All good".
    const bad = await cli(home, ['doctor'], 'postgres://collab@127.0.0.1:1/collab');
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('Nothing accepts connections at 127.0.0.1:1');
    expect(bad.stdout).not.toContain('All good');
  });

  // Eight CLI processes (a doctor waits 3 s for a NOTIFY that never comes): 15 s alone on a slow host,
  // twice that beside three other files.
  it('doctor names a schema newer than it knows, one it cannot migrate, rights a role lacks, and a LISTEN that hears nothing', async (ctx) => {
    if (!available) return ctx.skip();
    const db = await teamDatabase();
    const home = tempDir('collab-home-');
    expect((await cli(home, ['migrate'], db.team)).code).toBe(0);
    const good = await doctorOf(home, db.team);
    expect(good.failing).toEqual([]);
    expect(good.code).toBe(0);
    expect(good.text).toContain('All good');
    // The version the CLI (dist/) knows, as its migrate recorded it.
    const meta = new pg.Client({ connectionString: db.superuser });
    await meta.connect();
    const known = Number(
      (await meta.query("SELECT value FROM meta WHERE key = 'schema_version'")).rows[0].value,
    );
    await meta.end();
    expect(known).toBeGreaterThan(1);
    const setVersion = (v: number) =>
      adminOn(db.superuser, `UPDATE meta SET value = '${v}' WHERE key = 'schema_version'`);

    // A newer session-collab wrote to the database: update this one.
    await setVersion(known + 1);
    const ahead = await doctorOf(home, db.team);
    expect(ahead.failing).toEqual(['team schema']);
    expect(ahead.byName['team schema']).toMatchObject({
      detail: `schema ${known + 1}/${known}`,
      hint: expect.stringContaining('update session-collab on this machine'),
    });
    expect([ahead.code, ahead.textCode]).toEqual([1, 1]);
    expect(ahead.text).toContain('newer than this session-collab');
    expect(ahead.text).not.toContain('All good');
    // Every other command refuses it the same way, in one line and its fix.
    const [a1, a2] = oneFault((await cli(home, ['status'], db.team)).stderr);
    expect(a1).toContain(`schema version ${known + 1}`);
    expect(a2).toMatch(/upgrade session-collab/i);

    // Older than this version, as a role that may not create tables: nobody can migrate it.
    const user = await extraRole(db, 'collab_user');
    await adminOn(
      db.superuser,
      `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${user}`,
    );
    const asUser = db.team.replace(db.role, user);
    await setVersion(known - 1);
    const behind = await doctorOf(home, asUser);
    expect(behind.failing).toEqual(['team schema']);
    expect(behind.byName['team schema']).toMatchObject({
      detail: `schema ${known - 1}/${known} (migrated when a process of this version opens it)`,
      hint: expect.stringContaining(`may not create tables, so it cannot migrate`),
    });
    expect(behind.byName['team schema']!.hint).toContain(`OWNER TO "${user}"`);
    expect(behind.code).toBe(1);
    expect(behind.text).not.toContain('All good');
    // As the owner, the same database is merely behind: migrated by the next process.
    expect((await doctorOf(home, db.team)).byName['team schema']).toMatchObject({ ok: true });
    await setVersion(known);

    // A role that can read but not write the tables.
    const reader = await extraRole(db, 'collab_reader');
    await adminOn(db.superuser, `GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${reader}`);
    const readOnly = await doctorOf(home, db.team.replace(db.role, reader));
    expect(readOnly.failing).toEqual(['team rights']);
    expect(readOnly.byName['team rights']!.detail).toMatch(
      new RegExp(`role "${reader}" lacks INSERT/UPDATE/DELETE on \\w+, .* and \\d+ more`),
    );
    expect(readOnly.byName['team rights']!.hint).toContain(`GRANT SELECT, INSERT, UPDATE, DELETE`);
    expect(readOnly.code).toBe(1);
    expect(readOnly.text).toContain(`role "${reader}" lacks`);
    expect(readOnly.text).not.toContain('All good');

    // Through something that drops notifications (a pooler in transaction mode): LISTEN hears nothing.
    const proxy = await droppingNotifications(db.team);
    try {
      const deaf = await doctorOf(home, proxy.url);
      expect(deaf.failing).toEqual(['team notifications']);
      expect(deaf.byName['team notifications']).toMatchObject({
        detail: expect.stringContaining('a NOTIFY did not reach a LISTEN within 3 s'),
        hint: expect.stringContaining('session mode'),
      });
      expect(deaf.code).toBe(1);
      expect(deaf.text).not.toContain('All good');
    } finally {
      proxy.server.close();
    }
  }, 60_000);

  it('export as a superuser leaves a schema the team’s role owns; as the owner it just works; as neither it says what it needs', async (ctx) => {
    if (!available) return ctx.skip();
    // An embedded database with a claim of two files, in the order given.
    const source = tempDir('collab-home-');
    const repo = gitRepo({ 'src/b.ts': 'b\n' });
    const app = await testApp({ home: source, backend: 'sqlite' });
    const agent = await connectInMemory(app, repo, 'agent');
    await agent.call('collab_session_start', { name: 'agent', project_root: repo });
    await agent.call('collab_claim', { files: ['src/b.ts', 'docs/**'], intent: 'ordered' });
    await app.close();

    const asSuperuser = await teamDatabase();
    const exported = await cli(source, ['export', '--to', asSuperuser.superuser], null);
    expect(exported.stderr).toBe('');
    expect(exported.stdout).toContain('Verified');
    // The team's role reads and writes everything the export made.
    const teamHome = tempDir('collab-home-');
    const status = await cli(teamHome, ['status', '--all', '--json'], asSuperuser.team);
    expect(status.stderr).toBe('');
    const claims = JSON.parse(status.stdout).projects[0].claims as Array<{ files: string[] }>;
    expect(claims[0]!.files).toEqual(['src/b.ts', 'docs/**']);
    const rights = JSON.parse(
      (await cli(teamHome, ['doctor', '--json'], asSuperuser.team)).stdout,
    ).checks.find((c: { name: string }) => c.name === 'team rights');
    expect(rights.ok).toBe(true);

    // As the database's owner (no superuser): no stack trace, the same result.
    const asOwner = await teamDatabase();
    const byOwner = await cli(source, ['export', '--to', asOwner.team], null);
    expect(byOwner.stderr).toBe('');
    expect(byOwner.stdout).toContain('Verified');

    // As a role that owns nothing there: refused before anything is written, saying what it needs.
    const other = await teamDatabase();
    const stranger = await cli(
      source,
      ['export', '--to', other.team.replace(other.role, asOwner.role)],
      null,
    );
    const [s1, s2] = oneFault(stranger.stderr);
    expect(s1).toContain(`Export needs the team database's owner ("${other.role}") or a superuser`);
    expect(s2).toContain(other.role);

    // Import keeps the order too.
    const back = tempDir('collab-home-');
    expect((await cli(back, ['import', '--from', asOwner.team], null)).stdout).toContain('Verified');
    const imported = JSON.parse((await cli(back, ['status', '--all', '--json'], null)).stdout);
    expect(imported.projects[0].claims[0].files).toEqual(['src/b.ts', 'docs/**']);
  });
});
