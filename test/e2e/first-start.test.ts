/**
 * Many servers starting together on a fresh home folder (an orchestrator launching its agents, a
 * machine's first session after install): every one starts, the config file is whole, the schema
 * is created once. Each server speaks bare JSON-RPC over its stdio, so the test measures their
 * start and not a client's.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/app/config.js';
import { SCHEMA_VERSION } from '../../src/store/migrations/schema.js';
import { openSqlite, pragmaValue } from '../helpers/sqlite.js';
import { bareServe } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

const SERVERS = 12;
const ROUNDS = 6;

/** Starts a server, initializes, calls one tool, closes; resolves with the tool result or the failure. */
async function oneServer(cwd: string, home: string): Promise<{ ok: boolean; detail: string }> {
  const server = bareServe(cwd, home);
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 20_000);
  const line = await server.call('collab_session_list');
  server.child.stdin.end();
  const code = await server.exit;
  clearTimeout(timer);
  const ok = line !== null && !(JSON.parse(line) as { result: { isError?: boolean } }).result.isError;
  const { out, err } = server.output();
  return ok && code === 0 ? { ok, detail: line! } : { ok: false, detail: `exit ${code}: ${err || out}` };
}

describe('first start', () => {
  it(`${SERVERS} servers started at once on an empty home, ${ROUNDS} times: all start, one schema, a whole config`, async () => {
    const repo = gitRepo();
    for (let round = 0; round < ROUNDS; round++) {
      const home = join(tempDir('collab-fresh-'), 'home'); // not even the folder exists
      const results = await Promise.all(Array.from({ length: SERVERS }, () => oneServer(repo, home)));
      const failed = results.filter((r) => !r.ok);
      expect(failed, `round ${round}`).toEqual([]);
      expect(JSON.parse(readFileSync(join(home, 'config.json'), 'utf8'))).toEqual(DEFAULT_CONFIG);
      expect(readdirSync(home).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      const db = openSqlite(join(home, 'registry.db'), { readonly: true });
      try {
        expect(pragmaValue(db, 'user_version')).toBe(SCHEMA_VERSION);
        expect(pragmaValue(db, 'journal_mode')).toBe('wal');
        expect((db.prepare('SELECT COUNT(*) AS n FROM sessions').get() as { n: number }).n).toBe(SERVERS);
      } finally {
        db.close();
      }
    }
  }, 240_000);
});
