import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { homeAt } from '../../src/app/home.js';
import { type Db, immediate, openDatabase } from '../../src/store/database.js';
import { migratePg, openPgPool } from '../../src/store/pg-database.js';
import {
  columnReader,
  copyPostgresToSqlite,
  copySqliteToPostgres,
  TRANSFER_TABLES,
  tallyPostgres,
  tallySqlite,
} from '../../src/store/transfer.js';
import { connectInMemory, testApp } from '../helpers/app.js';
import { freshPgDatabase, pgAvailable } from '../helpers/pg.js';
import { CLI } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

const run = promisify(execFile);
let available = false;
beforeAll(async () => {
  available = await pgAvailable('test/e2e/transfer.test.ts');
});

async function cli(home: string, args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], {
      env: { ...process.env, SESSION_COLLAB_HOME: home, SESSION_COLLAB_DATABASE_URL: '' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** An embedded database with a little of everything, made through the tools. */
async function populated(): Promise<string> {
  const home = tempDir('collab-home-');
  const repo = gitRepo({ 'src/a.ts': 'a\n' });
  const app = await testApp({ home });
  const toolsets = ['collab', 'review', 'human'];
  const worker = await connectInMemory(app, repo, 'worker', toolsets);
  const reviewer = await connectInMemory(app, repo, 'reviewer', toolsets);
  // A change, recorded with its hunks when the session starts.
  writeFileSync(join(repo, 'src/a.ts'), 'a\nb\n');
  await worker.call('collab_session_start', { name: 'worker', project_root: repo });
  await reviewer.call('collab_session_start', { name: 'reviewer', project_root: repo });
  const claim = await worker.call<{ claim_id: string }>('collab_claim', {
    files: ['src/a.ts'],
    intent: 'refactor',
  });
  await worker.call('collab_claim', { files: ['src/b/**'], intent: 'add tests' });
  // Patterns not in sorted order: the order they were claimed in is theirs to keep.
  await worker.call('collab_claim', { files: ['src/z.ts', 'docs/**', 'src/m.ts'], intent: 'in this order' });
  await worker.call('collab_release', { claim_id: claim.claim_id, status: 'completed', summary: 'done' });
  await reviewer.call('collab_claim', { files: ['src/b/c.ts'], intent: 'overlapping, advisory' });
  await worker.call('collab_message_send', { content: 'héllo, “quotes” and ☃' });

  await reviewer.call('collab_decision_add', { title: 'Use JWT', description: 'Sessions are stateless.' });
  const work = await worker.call<{ id: string }>('submit_work', {
    type: 'code',
    phase: 'review',
    title: 'Parser',
    content: 'function parse() {}',
  });
  await reviewer.call('submit_review', {
    workItemId: work.id,
    verdict: 'request_changes',
    summary: 'Name it better',
  });
  await worker.close();
  await reviewer.close();
  await app.close();
  return home;
}

/** The patterns of a claim in the order they were claimed (as the claims store reads them). */
function patternsOf(db: Db, claimId: string): string[] {
  return (
    db.prepare('SELECT pattern FROM claim_files WHERE claim_id = ? ORDER BY rowid').all(claimId) as Array<{
      pattern: string;
    }>
  ).map((r) => r.pattern);
}

/** The same rows of a claim's patterns, added again in the order of `patterns`. */
function reorderSqlite(db: Db, claimId: string, patterns: string[]): void {
  const rows = db.prepare('SELECT * FROM claim_files WHERE claim_id = ?').all(claimId) as Array<
    Record<string, unknown>
  >;
  immediate(db, () => {
    db.prepare('DELETE FROM claim_files WHERE claim_id = ?').run(claimId);
    for (const pattern of patterns) {
      const row = rows.find((r) => r.pattern === pattern)!;
      const columns = Object.keys(row);
      db.prepare(
        `INSERT INTO claim_files (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
      ).run(...columns.map((c) => row[c]));
    }
  });
}

/** The tables whose checksum or count differs between two tallies. */
function differing(a: ReturnType<typeof tallySqlite>, b: ReturnType<typeof tallySqlite>): string[] {
  expect(a.map((t) => t.table)).toEqual(b.map((t) => t.table));
  return a.filter((t, i) => t.rows !== b[i]!.rows || t.checksum !== b[i]!.checksum).map((t) => t.table);
}

describe('moving between the embedded database and PostgreSQL', () => {
  it('moves every table of the schema (its own bookkeeping and derived search indexes aside)', async () => {
    const home = tempDir('collab-home-');
    const app = await testApp({ home, backend: 'sqlite' });
    await app.close();
    const db = openDatabase(homeAt(home).database);
    const tables = (
      db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .all() as Array<{
        name: string;
      }>
    )
      .map((t) => t.name)
      // FTS5's shadow tables hold the index of the table beside them; where each work item's words
      // are in that index is derived from it (made again on import).
      .filter(
        (name) =>
          name !== 'meta' &&
          !/_(data|idx|content|docsize|config)$/.test(name) &&
          name !== 'decisions_fts' &&
          name !== 'work_fts_items',
      );
    db.close();
    expect(TRANSFER_TABLES.map((t) => t.table).sort()).toEqual(tables.sort());
  });

  it('export → import round trip: every table the same on both sides and back, by counts and checksums', async (ctx) => {
    if (!available) return ctx.skip();
    const source = await populated();
    const url = await freshPgDatabase();
    const exported = await cli(source, ['export', '--to', url, '--json']);
    expect(exported.code, exported.stderr).toBe(0);
    const report = JSON.parse(exported.stdout) as {
      verified: boolean;
      tables: Array<{ table: string; sqlite_rows: number; postgresql_rows: number; same: boolean }>;
    };
    expect(report.verified).toBe(true);
    const rows = Object.fromEntries(report.tables.map((t) => [t.table, t.postgresql_rows]));
    for (const table of [
      'projects',
      'sessions',
      'claims',
      'claim_files',
      'change_sets',
      'changed_files',
      'messages',
      'decisions',
      'work_items',
      'reviews',
      'work_events',
      'notifications',
      'events',
    ])
      expect(rows[table], table).toBeGreaterThan(0);

    // A second export into the same database is refused, and changes nothing.
    const again = await cli(source, ['export', '--to', url]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/not empty/);

    const target = tempDir('collab-home-');
    const imported = await cli(target, ['import', '--from', url]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('Verified: every table has the same rows on both sides');

    const a = openDatabase(homeAt(source).database);
    const b = openDatabase(homeAt(target).database);
    expect(tallySqlite(b)).toEqual(tallySqlite(a));
    // Each work item's words are found by their row on the imported side too.
    const mapped = (db: typeof a) =>
      db
        .prepare(
          `SELECT m.work_item_id, f.source FROM work_fts_items m JOIN work_fts f ON f.rowid = m.fts_rowid
           ORDER BY m.work_item_id`,
        )
        .all();
    expect(mapped(b)).toEqual(mapped(a));
    expect(mapped(b).length).toBeGreaterThan(0);
    a.close();
    b.close();
    // And the imported home works: its claims are there.
    const status = await cli(target, ['status', '--json']);
    expect(status.stdout).toContain('add tests');
  });

  it('the checksums see the order of a claim’s patterns, on both sides, and export → import keeps it', async (ctx) => {
    if (!available) return ctx.skip();
    const home = tempDir('collab-home-');
    const repo = gitRepo({ 'src/a.ts': 'a\n' });
    const app = await testApp({ home, backend: 'sqlite' });
    const worker = await connectInMemory(app, repo, 'worker');
    await worker.call('collab_session_start', { name: 'worker', project_root: repo });
    const claimed = ['src/z.ts', 'docs/**', 'src/a.ts'];
    const { claim_id } = await worker.call<{ claim_id: string }>('collab_claim', {
      files: claimed,
      intent: 'three patterns, not sorted',
    });
    await worker.close();
    await app.close();
    const reversed = [...claimed].reverse();

    // Embedded: the same rows in another order are another checksum, and the same again in the
    // first order (whatever their rowids now).
    const db = openDatabase(homeAt(home).database);
    expect(patternsOf(db, claim_id)).toEqual(claimed);
    const original = tallySqlite(db);
    reorderSqlite(db, claim_id, reversed);
    expect(patternsOf(db, claim_id)).toEqual(reversed);
    expect(differing(tallySqlite(db), original)).toEqual(['claim_files']);
    reorderSqlite(db, claim_id, claimed);
    expect(differing(tallySqlite(db), original)).toEqual([]);

    const url = await freshPgDatabase();
    const pool = openPgPool(url, 2);
    const client = await pool.connect();
    try {
      await migratePg(pool);
      await copySqliteToPostgres(db, client);
      expect(differing(await tallyPostgres(client, columnReader(db)), original)).toEqual([]);
      // PostgreSQL: its copy reordered (the same rows added again, reversed) no longer verifies.
      await client.query('BEGIN');
      const { rows } = await client.query<Record<string, unknown>>(
        'SELECT claim_id, project_id, pattern, base, active, added_at FROM claim_files WHERE claim_id = $1 ORDER BY rowid',
        [claim_id],
      );
      await client.query('DELETE FROM claim_files WHERE claim_id = $1', [claim_id]);
      for (const row of [...rows].reverse())
        await client.query(
          'INSERT INTO claim_files (claim_id, project_id, pattern, base, active, added_at) VALUES ($1, $2, $3, $4, $5, $6)',
          [row.claim_id, row.project_id, row.pattern, row.base, row.active, row.added_at],
        );
      await client.query('COMMIT');
      const team = await tallyPostgres(client, columnReader(db));
      expect(differing(team, original)).toEqual(['claim_files']);

      // Import: the embedded copy has the team database's order, and its checksums.
      const target = tempDir('collab-home-');
      const imported = openDatabase(homeAt(target).database);
      await copyPostgresToSqlite(client, imported);
      expect(patternsOf(imported, claim_id)).toEqual(reversed);
      expect(differing(tallySqlite(imported), team)).toEqual([]);
      imported.close();
      // And the imported home lists the claim's patterns in that order.
      const after = await testApp({ home: target, backend: 'sqlite' });
      const reader = await connectInMemory(after, repo, 'reader');
      await reader.call('collab_session_start', { name: 'reader', project_root: repo });
      const list = await reader.call<{ claims: Array<{ claim_id: string; files: string[] }> }>(
        'collab_claims_list',
      );
      expect(list.claims.find((c) => c.claim_id === claim_id)?.files).toEqual(reversed);
      await reader.close();
      await after.close();
    } finally {
      client.release();
      await pool.end();
      db.close();
    }
  });
});
