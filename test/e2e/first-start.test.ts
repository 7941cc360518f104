/**
 * Many servers starting together on a fresh home folder (an orchestrator launching its agents, a
 * machine's first session after install): every one starts, the config file is whole, the schema
 * is created once. Each server speaks bare JSON-RPC over its stdio, so the test measures their
 * start and not a client's.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/app/config.js';
import { SCHEMA_VERSION } from '../../src/store/migrations.js';
import { CLI, requireBuild } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

const SERVERS = 12;
const ROUNDS = 20;

/** Starts a server, initializes, calls one tool, closes; resolves with the tool result or the failure. */
function oneServer(cwd: string, home: string): Promise<{ ok: boolean; detail: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'serve'], {
      cwd,
      env: { ...process.env, SESSION_COLLAB_HOME: home, CLAUDE_CODE_SESSION_ID: '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let result: { ok: boolean; detail: string } | null = null;
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.stdout.on('data', (d) => {
      out += d;
      for (const line of out.split('\n')) {
        if (!line.startsWith('{') || result) continue;
        const msg = JSON.parse(line) as { id?: number; result?: { isError?: boolean }; error?: unknown };
        if (msg.id === 2) {
          result = { ok: !msg.error && !msg.result?.isError, detail: line };
          child.stdin.end();
        }
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(result && code === 0 ? result : { ok: false, detail: `exit ${code}: ${err || out}` });
    });
    const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'first-start', version: '1' },
      },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'collab_session_list', arguments: {} },
    });
  });
}

describe('first start', () => {
  it(`${SERVERS} servers started at once on an empty home, ${ROUNDS} times: all start, one schema, a whole config`, async () => {
    requireBuild();
    const repo = gitRepo();
    for (let round = 0; round < ROUNDS; round++) {
      const home = join(tempDir('collab-fresh-'), 'home'); // not even the folder exists
      const results = await Promise.all(Array.from({ length: SERVERS }, () => oneServer(repo, home)));
      const failed = results.filter((r) => !r.ok);
      expect(failed, `round ${round}`).toEqual([]);
      expect(JSON.parse(readFileSync(join(home, 'config.json'), 'utf8'))).toEqual(DEFAULT_CONFIG);
      expect(readdirSync(home).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      const db = new Database(join(home, 'registry.db'), { readonly: true });
      try {
        expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
        expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
        expect((db.prepare('SELECT COUNT(*) AS n FROM sessions').get() as { n: number }).n).toBe(SERVERS);
      } finally {
        db.close();
      }
    }
  }, 240_000);
});
