/** Storage faults, met by the built CLI: one line that names the problem and the fix, no stack. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqlite, pragmaValue } from '../helpers/sqlite.js';
import { CLI, requireBuild } from '../helpers/stdio.js';
import { tempDir } from '../helpers/temp.js';

function run(home: string, ...args: string[]) {
  requireBuild();
  return spawnSync(process.execPath, [CLI, ...args], {
    env: { ...process.env, SESSION_COLLAB_HOME: home },
    encoding: 'utf8',
  });
}

const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at /);

/**
 * Grows a home's database with 200 KB of filler rows, then flips bytes of the file between the
 * offsets `range` gives for its size: a database damaged inside, past its header.
 */
function damage(home: string, range: (size: number) => [number, number]): void {
  const db = openSqlite(join(home, 'registry.db'));
  db.exec('PRAGMA journal_mode = DELETE');
  db.exec(
    'CREATE TABLE filler (x TEXT); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400) INSERT INTO filler SELECT hex(randomblob(500)) FROM n;',
  );
  db.close();
  const bytes = readFileSync(join(home, 'registry.db'));
  const [from, to] = range(bytes.length);
  for (let i = from; i < to; i += 211) bytes[i] = bytes[i]! ^ 0x5a;
  writeFileSync(join(home, 'registry.db'), bytes);
}

describe('storage faults explain themselves', () => {
  it('a registry.db that is not a database: one line with the fix, for status and serve alike', () => {
    const home = tempDir('collab-home-');
    writeFileSync(join(home, 'registry.db'), 'this is not a database '.repeat(100));
    for (const args of [['status'], ['serve'], ['migrate', '--json']]) {
      const out = spawnSync(process.execPath, [CLI, ...args], {
        env: { ...process.env, SESSION_COLLAB_HOME: home },
        encoding: 'utf8',
        input: '',
      });
      expect(out.status, args.join(' ')).toBe(1);
      expect(out.stderr).toContain('registry.db is damaged');
      expect(out.stderr).toContain('registry.db.damaged');
      // The database file is named, not the home folder (which `mv` would move whole).
      expect(out.stderr).not.toContain(`mv "${home}" `);
      noStack(out.stderr);
    }
  });

  it('a database damaged in the middle: doctor says so and how to recover', () => {
    const home = tempDir('collab-home-');
    expect(run(home, 'status').status).toBe(0);
    damage(home, (size) => [8192, size - 4096]);
    const out = run(home, 'doctor', '--json');
    expect(out.status).toBe(1);
    const database = JSON.parse(out.stdout).checks.find((c: { name: string }) => c.name === 'database');
    expect(database.ok).toBe(false);
    expect(database.hint ?? database.detail).toMatch(/damaged|malformed/);
  });

  it('a home path that is a file: one line saying so', () => {
    const file = join(tempDir('collab-'), 'home');
    writeFileSync(file, 'x');
    const out = run(file, 'status');
    expect(out.status).toBe(1);
    expect(out.stderr).toContain('is a file, not a folder');
    noStack(out.stderr);
  });

  it('a config value out of range: the key and its range, in doctor too', () => {
    const home = tempDir('collab-home-');
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'config.json'), JSON.stringify({ inactive_after_minutes: 1e-12 }));
    const out = run(home, 'status');
    expect(out.status).toBe(1);
    expect(out.stderr).toContain('"inactive_after_minutes" must be a number of minutes from 0.25 to 10080');
    const doctor = JSON.parse(run(home, 'doctor', '--json').stdout);
    expect(doctor.checks.find((c: { name: string }) => c.name === 'config').ok).toBe(false);
  });
});

describe('a database damaged inside', () => {
  it('is found by the server soon after it starts, and refused for writes with what to do', async () => {
    const { connectStdio } = await import('../helpers/stdio.js');
    const { gitRepo } = await import('../helpers/temp.js');
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    expect(run(home, 'status').status).toBe(0);
    // Only the end of the file (the filler's pages): the tables a claim writes stay readable.
    damage(home, (size) => [Math.floor(size * 0.7), size]);
    const server = await connectStdio({ cwd: repo, home });
    try {
      await new Promise((r) => setTimeout(r, 2_000));
      const refused = await server.fail('collab_claim', { files: ['src/a.ts'], intent: 'on a damaged file' });
      expect(refused.code).toBe('DB_ERROR');
      expect(refused.message).toContain('is damaged');
      expect(refused.hint).toContain('.damaged');
    } finally {
      await server.close();
    }
  });
});

describe('doctor --repair', () => {
  it('rebuilds a damaged database from what can be read, keeps the damaged file, refuses while it is open', async () => {
    const { connectStdio, serverPid, stopServer } = await import('../helpers/stdio.js');
    const { gitRepo } = await import('../helpers/temp.js');
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const a = await connectStdio({ cwd: repo, home });
    await a.call('collab_claim', { files: ['src/a.ts', 'src/b.ts'], intent: 'kept through the repair' });
    await a.call('collab_decision_add', { category: 'api', title: 'REST', description: 'not RPC' });
    await a.close();
    // Nothing has the file open when it is damaged (the machine's server stopped too).
    await stopServer(home);
    damage(home, (size) => [Math.floor(size * 0.7), size]);
    expect(run(home, 'doctor').status).toBe(1);
    // A client attaches again: the machine's server has the damaged file open. --repair stops that
    // server (its relays start another when next needed); a process of anyone else's it names.
    const again = await connectStdio({ cwd: repo, home });
    await again.close();
    const server = serverPid(home);
    expect(server).not.toBeNull();

    // While a process has the database open, nothing is moved: it would go on writing to the old file.
    const holder = openSqlite(join(home, 'registry.db'), { readonly: true });
    holder.prepare('SELECT 1').get();
    const refused = run(home, 'doctor', '--repair');
    holder.close();
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`is open in pid ${process.pid}`);
    expect(refused.stderr).not.toContain(`pid ${server}`);
    expect(serverPid(home)).toBeNull();
    noStack(refused.stderr);
    expect(readdirSync(home).filter((f) => f.includes('.damaged-'))).toEqual([]);

    const repaired = run(home, 'doctor', '--repair');
    expect(repaired.status, repaired.stdout + repaired.stderr).toBe(0);
    expect(repaired.stdout).toContain('Repaired database');
    expect(repaired.stdout).toMatch(/claim_files\s+2 row\(s\) kept/);
    expect(repaired.stdout).toContain('All good.');
    expect(readdirSync(home).filter((f) => f.startsWith('registry.db.damaged-'))).not.toEqual([]);
    const db = openSqlite(join(home, 'registry.db'), { readonly: true });
    try {
      expect(pragmaValue(db, 'integrity_check')).toBe('ok');
      expect(db.prepare('SELECT intent FROM claims').all()).toEqual([{ intent: 'kept through the repair' }]);
      // The full-text index came back with the rows.
      expect(db.prepare("SELECT title FROM decisions_fts WHERE decisions_fts MATCH 'rpc'").all()).toEqual([
        { title: 'REST' },
      ]);
    } finally {
      db.close();
    }
    // The server works on the repaired file.
    const b = await connectStdio({ cwd: repo, home });
    try {
      const list = await b.call<{ claims: Array<{ files: string[] }> }>('collab_claims_list', {
        status: 'all',
      });
      expect(list.claims[0]!.files).toEqual(['src/a.ts', 'src/b.ts']);
    } finally {
      await b.close();
    }
  });

  it('moves a broken config.json aside, so the defaults apply', () => {
    const home = tempDir('collab-home-');
    writeFileSync(join(home, 'config.json'), '{ "inactive_after_minutes": ');
    expect(run(home, 'status').status).toBe(1);
    const out = run(home, 'doctor', '--repair');
    expect(out.status, out.stdout + out.stderr).toBe(0);
    expect(out.stdout).toContain('Repaired config: moved to');
    expect(readdirSync(home).some((f) => f.startsWith('config.json.bad-'))).toBe(true);
    expect(run(home, 'status').status).toBe(0);
    expect(run(home, 'doctor', '--repair').stdout).toContain('Nothing to repair.');
  });
});

describe('guard outside git', () => {
  it('says it needs a repository, in one line', () => {
    const folder = tempDir('collab-nogit-');
    const out = spawnSync(process.execPath, [CLI, 'guard', 'install'], {
      cwd: folder,
      env: { ...process.env, SESSION_COLLAB_HOME: tempDir('collab-home-') },
      encoding: 'utf8',
    });
    expect(out.status).toBe(1);
    expect(out.stderr).toContain('is not inside a git repository');
    noStack(out.stderr);
  });
});
