import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { SCHEMA_VERSION } from '../../src/store/migrations/schema.js';
import { sqliteDriver } from '../../src/store/sqlite.js';
import { sqliteAddon } from '../../src/store/sqlite-better.js';
import { testApp } from '../helpers/app.js';
import { NODE_HAS_SQLITE, openSqlite, pragmaValue } from '../helpers/sqlite.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

describe('database', () => {
  it('speaks node:sqlite where Node has it, else better-sqlite3 with its compiled addon', () => {
    const driver = sqliteDriver();
    const builtIn = NODE_HAS_SQLITE;
    if (process.env.SESSION_COLLAB_SQLITE) expect(driver.name).toBe(process.env.SESSION_COLLAB_SQLITE);
    else expect(driver.name).toBe(builtIn ? 'node:sqlite' : 'better-sqlite3');
    if (driver.name === 'better-sqlite3') {
      // Handed its addon where the package's build puts it (the `bindings` search costs a hook ~4 ms).
      const addon = sqliteAddon();
      expect(addon).toMatch(/better-sqlite3[/\\]build[/\\]Release[/\\]better_sqlite3\.node$/);
      expect(existsSync(addon!)).toBe(true);
    }
  });

  it("names SQLite's errors as SQLite does, whichever driver raised them", () => {
    const file = join(tempDir(), 'codes.db');
    const db = openSqlite(file);
    const other = openSqlite(file);
    try {
      db.exec('CREATE TABLE t (v TEXT UNIQUE NOT NULL)');
      db.prepare('INSERT INTO t (v) VALUES (?)').run('a');
      expect(() => db.prepare('INSERT INTO t (v) VALUES (?)').run('a')).toThrow(
        expect.objectContaining({ code: 'SQLITE_CONSTRAINT_UNIQUE' }),
      );
      expect(() => db.prepare('INSERT INTO t (v) VALUES (NULL)').run()).toThrow(
        expect.objectContaining({ code: 'SQLITE_CONSTRAINT_NOTNULL' }),
      );
      expect(() => db.prepare('SELECT nope FROM t').all()).toThrow(
        expect.objectContaining({ code: 'SQLITE_ERROR' }),
      );
      // Another connection holding the write lock: busy, once the wait is over.
      other.exec('PRAGMA busy_timeout = 0');
      db.exec('BEGIN IMMEDIATE');
      expect(() => other.exec('BEGIN IMMEDIATE')).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY' }));
      db.exec('ROLLBACK');
      // Rows are plain records; statements take positional parameters and count their changes.
      expect(db.prepare('SELECT v FROM t WHERE v = ?').get('a')).toEqual({ v: 'a' });
      expect(db.prepare('UPDATE t SET v = ? WHERE v = ?').run('b', 'a').changes).toBe(1);
      expect([...db.prepare('SELECT v FROM t').iterate()]).toEqual([{ v: 'b' }]);
    } finally {
      other.close();
      db.close();
    }
    expect(db.open).toBe(false);
    expect(() => openSqlite(join(tempDir(), 'missing', 'nope.db'), { readonly: true })).toThrow();
  });

  it('migrates a new file to the current schema, in WAL mode with foreign keys', () => {
    const file = join(tempDir(), 'registry.db');
    const db = openDatabase(file);
    expect(pragmaValue(db, 'user_version')).toBe(SCHEMA_VERSION);
    expect(pragmaValue(db, 'journal_mode')).toBe('wal');
    expect(pragmaValue(db, 'foreign_keys')).toBe(1);
    db.close();
    // Opening again is a no-op.
    openDatabase(file).close();
  });

  it('migrates a populated older database forward, keeping its rows and foreign keys', async () => {
    const { FROZEN_MIGRATIONS: MIGRATIONS } = await import('../../src/store/migrations/frozen.js');
    const file = join(tempDir(), 'registry.db');
    const old = openSqlite(file);
    for (const m of MIGRATIONS.filter((x) => x.version <= 4)) old.exec(m.sql);
    old.exec('PRAGMA user_version = 4');
    old
      .prepare("INSERT INTO projects (id, root, kind, created_at) VALUES ('p1', '/repo/.git', 'git', 1)")
      .run();
    old
      .prepare(
        "INSERT INTO sessions (id, name, project_id, worktree, host, status, created_at, last_heartbeat) VALUES ('s1', 'A', 'p1', '/repo', 'h', 'active', 1, 1)",
      )
      .run();
    old.close();
    const db = openDatabase(file);
    expect(pragmaValue(db, 'user_version')).toBe(SCHEMA_VERSION);
    expect(db.prepare('SELECT id, root, kind, status FROM projects').all()).toEqual([
      { id: 'p1', root: '/repo/.git', kind: 'git', status: 'active' },
    ]);
    expect(db.prepare('SELECT project_id FROM sessions').get()).toEqual({ project_id: 'p1' });
    expect(pragmaValue(db, 'foreign_keys')).toBe(1);
    expect(() =>
      db
        .prepare(
          "INSERT INTO sessions (id, name, project_id, worktree, host, status, created_at, last_heartbeat) VALUES ('s2', 'B', 'nope', '/r', 'h', 'active', 1, 1)",
        )
        .run(),
    ).toThrow(/FOREIGN KEY/);
    db.close();
  });

  it('refuses a database from a newer version, with a clear message', () => {
    const file = join(tempDir(), 'registry.db');
    openDatabase(file).close();
    const raw = openSqlite(file);
    raw.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    expect(() => openDatabase(file)).toThrow(/newer than this session-collab understands/);
  });
});

describe('the quick check of the whole file', () => {
  it('runs once in ten minutes for all the processes sharing the database', async () => {
    const home = tempDir('collab-home-');
    let clock = Date.now();
    const first = await testApp({ home, now: () => clock });
    const second = await testApp({ home, now: () => clock });
    expect(await first.maintenance.verifyIfDue()).toEqual({ ok: true, detail: 'ok' });
    expect(await second.maintenance.verifyIfDue()).toBeNull();
    clock += 11 * 60_000;
    expect(await second.maintenance.verifyIfDue()).toEqual({ ok: true, detail: 'ok' });
    await first.close();
    await second.close();
  });
});

describe("what changed in a project's claims since a mark", () => {
  it('counts every way a claim stops being active, and reads patterns added after the mark', async () => {
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const app = await testApp({ now: () => clock });
    const repo = gitRepo();
    const a = (await app.sessions.start({ projectRoot: repo, name: 'a' })).session;
    const b = (await app.sessions.start({ projectRoot: repo, name: 'b' })).session;
    const claim = async (session: typeof a, files: string[], ttlSeconds?: number) =>
      (await app.claims.claim({ session, files, intent: 'x', scope: 'small', exclusive: false, ttlSeconds }))
        .claim_id;
    const first = await claim(a, ['a.ts']);
    await claim(a, ['short.ts'], 60);
    await claim(b, ['b.ts']);
    const claims = app.store.claims;
    const claimPatterns = app.store.claimPatterns;
    const mark = await claimPatterns.mark(a.project_id);
    expect((await claimPatterns.changedSince(mark)).released).toBe(0);
    expect(await claimPatterns.livePatternsAfter(mark)).toEqual([]);

    const later = await claim(b, ['c.ts', 'd/**']);
    expect((await claimPatterns.livePatternsAfter(mark)).map((p) => p.pattern)).toEqual(['c.ts', 'd/**']);
    expect((await claimPatterns.changedSince(mark)).released).toBe(0);

    await app.store.write(() => claims.release(first, 'completed', null, clock)); // released
    expect((await claimPatterns.changedSince(mark)).released).toBe(1);
    await app.store.write(() => claims.release(first, 'completed', null, clock)); // already released: no change
    expect((await claimPatterns.changedSince(mark)).released).toBe(1);
    clock += 61_000;
    await app.store.write(() => claims.expireDue(clock)); // expired
    expect((await claimPatterns.changedSince(mark)).released).toBe(2);
    await app.sessions.end(b.id, 'complete', 'test'); // its claims released with the session
    expect((await claimPatterns.changedSince(mark)).released).toBe(4);
    expect(await claimPatterns.livePatternsAfter(mark)).toEqual([]); // the later claim's patterns went with it
    expect(await claims.activeAmong([first, later])).toEqual(new Set());
    await app.close();
  });
});

describe("a project's live patterns, page by page", () => {
  it('reads every live pattern once, in the order of base and rowid, whatever the page size', async () => {
    const app = await testApp();
    const repo = gitRepo();
    const a = (await app.sessions.start({ projectRoot: repo, name: 'a' })).session;
    const b = (await app.sessions.start({ projectRoot: repo, name: 'b' })).session;
    const claim = (session: typeof a, files: string[]) =>
      app.claims.claim({
        session,
        files,
        intent: 'x',
        scope: 'small',
        exclusive: false,
        ttlSeconds: undefined,
      });
    // Two sessions holding the same base (a file and a glob under it), bases sorting apart.
    await claim(a, ['src/z.ts', 'lib/**', 'src/a.ts']);
    await claim(b, ['src/a.ts', 'docs/readme.md', 'lib/x/**']);
    const gone = (await claim(b, ['old.ts'])).claim_id;
    await app.store.write(() => app.store.claims.release(gone, 'completed', null, app.now()));
    const { claimPatterns } = app.store;
    const whole = await claimPatterns.livePatternsOf(a.project_id, 100);
    const keys = whole.map((p) => [p.page_base, p.page_rowid] as const);
    expect(keys).toEqual([...keys].sort(([b1, r1], [b2, r2]) => (b1 < b2 ? -1 : b1 > b2 ? 1 : r1 - r2)));
    expect(whole.map((p) => `${p.session_name}:${p.pattern}`).sort()).toEqual(
      ['a:lib/**', 'a:src/a.ts', 'a:src/z.ts', 'b:docs/readme.md', 'b:lib/x/**', 'b:src/a.ts'].sort(),
    );
    for (const size of [1, 2, 4]) {
      const paged: typeof whole = [];
      for (let page = await claimPatterns.livePatternsOf(a.project_id, size); page.length > 0; ) {
        paged.push(...page);
        page = await claimPatterns.livePatternsOf(a.project_id, size, page.at(-1)!);
      }
      expect(paged).toEqual(whole);
    }
    await app.close();
  });
});

describe('purge', () => {
  it('removes ended sessions, released claims and old messages after the retention period', async () => {
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const app = await testApp({ now: () => clock, config: { retention_days: 7 } });
    const repo = gitRepo();
    const { session } = await app.sessions.start({ projectRoot: repo, name: 'old' });
    const keep = (await app.sessions.start({ projectRoot: repo, name: 'keep' })).session;
    await app.claims.claim({
      session,
      files: ['a.ts'],
      intent: 'x',
      scope: 'small',
      exclusive: false,
      ttlSeconds: undefined,
    });
    await app.messages.send(session, { content: 'hello' });
    await app.messages.send(keep, { to: session.id, content: 'for old' });
    await app.decisions.add(session, { category: 'other', title: 't', description: 'd' });
    await app.sessions.end(session.id, 'complete', 'test');
    clock += 8 * 86_400_000;
    await app.store.sessions.heartbeat(keep.id, clock);
    const result = await app.maintenance.purgeNow();
    expect(result).toMatchObject({ sessions: 1, claims: 1, messages: 2, notifications: 2 });
    expect(await app.store.notifications.list(session.id, 'all', null, 10, null)).toEqual([]);
    expect(await app.store.sessions.get(session.id)).toBeUndefined();
    expect((await app.store.sessions.get(keep.id))?.status).toBe('active');
    // Decisions are the project's memory: kept.
    expect(await app.store.decisions.list(session.project_id, null, 10, null)).toHaveLength(1);
    // A second purge within the interval does nothing.
    expect(await app.maintenance.purgeIfDue()).toBeNull();
  });

  it('ends sessions that stayed silent for the whole retention period', async () => {
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const app = await testApp({ now: () => clock });
    const { session } = await app.sessions.start({ projectRoot: gitRepo() });
    clock += 8 * 86_400_000;
    await app.maintenance.purgeNow();
    expect((await app.store.sessions.get(session.id))?.end_reason).toBe('silent');
  });
});
