/**
 * Team mode set up as a team admin would, following the README: every fault met on the way is one
 * line that names it and the fix; doctor checks the team database itself; export leaves a schema
 * the team's role owns, whoever runs it, and keeps a claim's files in their order.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
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
    const child = run(process.execPath, [CLI, ...args], { env, timeout: 30_000 });
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
    expect(byName['team connections'].detail).toMatch(/in use .* a hub replica takes up to 11/);
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
