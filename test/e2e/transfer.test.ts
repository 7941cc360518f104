import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { homeAt } from '../../src/app/home.js';
import { openDatabase } from '../../src/store/database.js';
import { TRANSFER_TABLES, tallySqlite } from '../../src/store/transfer.js';
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
      // FTS5's shadow tables hold the index of the table beside them.
      .filter(
        (name) =>
          name !== 'meta' && !/_(data|idx|content|docsize|config)$/.test(name) && name !== 'decisions_fts',
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
    a.close();
    b.close();
    // And the imported home works: its claims are there.
    const status = await cli(target, ['status', '--json']);
    expect(status.stdout).toContain('add tests');
  });
});
