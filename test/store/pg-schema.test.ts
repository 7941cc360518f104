import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type pg from 'pg';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/core/team-database-faults.js';
import { FROZEN_MIGRATIONS as MIGRATIONS } from '../../src/store/migrations/frozen.js';
import { PG_BASELINE_VERSION } from '../../src/store/migrations/pg-baseline.js';
import { SCHEMA_VERSION } from '../../src/store/migrations/schema.js';
import { migratePg, openPgPool } from '../../src/store/pg-database.js';
import { freshPgDatabase, pgAvailable } from '../helpers/pg.js';
import { CLI } from '../helpers/stdio.js';
import { tempDir } from '../helpers/temp.js';

const run = promisify(execFile);
let available = false;
beforeAll(async () => {
  available = await pgAvailable('test/store/pg-schema.test.ts');
});
const pools: pg.Pool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.end()));
});

async function migrated() {
  const url = await freshPgDatabase();
  const pool = openPgPool(url, 2);
  pools.push(pool);
  return { url, pool, result: await migratePg(pool) };
}

describe('the PostgreSQL schema', () => {
  it('every migration after the baseline carries its PostgreSQL text', () => {
    for (const m of MIGRATIONS.filter((m) => m.version > PG_BASELINE_VERSION))
      expect(m.pg, `${m.version}`).toBeTruthy();
    expect(PG_BASELINE_VERSION).toBeLessThanOrEqual(SCHEMA_VERSION);
  });

  it('is built once, whoever migrates first (its sameness with SQLite: schema-parity.test.ts)', async (ctx) => {
    if (!available) return ctx.skip();
    const { pool, result } = await migrated();
    expect(result).toEqual({ from: 0, to: SCHEMA_VERSION });
    // Two replicas starting together: one migrates, the other finds it done.
    expect(await Promise.all([migratePg(pool), migratePg(pool)])).toEqual([
      { from: SCHEMA_VERSION, to: SCHEMA_VERSION },
      { from: SCHEMA_VERSION, to: SCHEMA_VERSION },
    ]);
  });

  it('its triggers do what SQLite’s do: the event log, the released-claims counter, abandoned questions, append-only work events', async (ctx) => {
    if (!available) return ctx.skip();
    const { pool } = await migrated();
    const q = (sql: string, params: unknown[] = []) => pool.query(sql, params);
    await q("INSERT INTO projects (id, root, kind, created_at, updated_at) VALUES ('p', '/r', 'dir', 1, 1)");
    await q(
      "INSERT INTO sessions (id, name, project_id, worktree, host, created_at, last_heartbeat) VALUES ('s', 'alpha', 'p', '/r', 'h', 2, 2)",
    );
    await q(
      "INSERT INTO claims (id, session_id, project_id, intent, scope, created_at, updated_at) VALUES ('c', 's', 'p', 'x', 'small', 3, 3)",
    );
    await q("UPDATE sessions SET last_heartbeat = 4 WHERE id = 's'");
    await q("UPDATE claims SET status = 'completed', updated_at = 5 WHERE id = 'c'");
    await q(
      "INSERT INTO questions (id, session_id, project_id, question, created_at) VALUES ('q', 's', 'p', 'ok?', 6)",
    );
    await q("UPDATE sessions SET status = 'ended', ended_at = 7 WHERE id = 's'");
    const events = (await q('SELECT kind, op, subject FROM events ORDER BY id')).rows;
    expect(events.slice(0, 4)).toEqual([
      { kind: 'session', op: 'started', subject: 's' },
      { kind: 'claim', op: 'created', subject: 'c' },
      { kind: 'claim', op: 'completed', subject: 'c' },
      { kind: 'question', op: 'asked', subject: 'q' },
    ]);
    // One update, two events (its triggers' order is each database's own).
    expect(events.slice(4)).toEqual(
      expect.arrayContaining([
        { kind: 'question', op: 'abandoned', subject: 'q' },
        { kind: 'session', op: 'ended', subject: 's' },
      ]),
    );
    expect(events).toHaveLength(6);
    expect((await q("SELECT claims_released FROM projects WHERE id = 'p'")).rows[0].claims_released).toBe(1);
    expect((await q("SELECT status, closed_at FROM questions WHERE id = 'q'")).rows[0]).toEqual({
      status: 'abandoned',
      closed_at: 7,
    });
    await q(
      "INSERT INTO work_events (project_id, kind, actor_name, role, content, created_at) VALUES ('p', 'k', 'a', 'worker', '{}', 1)",
    );
    await expect(q('UPDATE work_events SET kind = $1', ['x'])).rejects.toThrow(/append-only/);
    await expect(q('DELETE FROM work_events')).rejects.toThrow(/append-only/);
  });

  it('`session-collab migrate` migrates the team database, or the embedded one, and says from where', async (ctx) => {
    const home = tempDir('collab-home-');
    const env: NodeJS.ProcessEnv = { ...process.env, SESSION_COLLAB_HOME: home };
    delete env.SESSION_COLLAB_DATABASE_URL;
    const first = JSON.parse((await run(process.execPath, [CLI, 'migrate', '--json'], { env })).stdout);
    expect(first).toMatchObject({ kind: 'sqlite', from: 0, to: SCHEMA_VERSION });
    const again = (await run(process.execPath, [CLI, 'migrate'], { env })).stdout;
    expect(again).toContain(`schema ${SCHEMA_VERSION}, up to date`);
    if (!available) return ctx.skip();
    const withPassword = new URL(await freshPgDatabase());
    withPassword.password = 'secret'; // trust auth accepts any: it must never be printed
    const url = withPassword.toString();
    const team = { ...env, SESSION_COLLAB_DATABASE_URL: url };
    const printed = (await run(process.execPath, [CLI, 'migrate'], { env: team })).stdout;
    expect(printed).toContain(`PostgreSQL ${redactUrl(url)}: schema (new) → ${SCHEMA_VERSION}`);
    expect(printed).not.toContain('secret');
    const json = JSON.parse((await run(process.execPath, [CLI, 'migrate', '--json'], { env: team })).stdout);
    expect(json).toMatchObject({ kind: 'postgresql', from: SCHEMA_VERSION, to: SCHEMA_VERSION });
  });
});
