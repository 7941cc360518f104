/**
 * Liveness cannot be fooled, with real processes: a holder stopped (SIGSTOP) past the inactivity
 * threshold and resumed. A file of its own: it waits out the threshold (15 s, the least config
 * allows), which other files run beside.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqlite } from '../helpers/sqlite.js';
import { connectStdio } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

type Closable = { close: () => Promise<unknown> };
const open: Closable[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

function setup() {
  const home = tempDir('collab-home-');
  const repo = gitRepo({
    'src/api/auth.py': 'def login(user):\n    pass\n',
    'src/ui/app.tsx': 'export {}\n',
  });
  return { home, repo };
}

async function server(options: Parameters<typeof connectStdio>[0]) {
  const s = await connectStdio(options);
  open.push(s);
  return s;
}

function activeClaims(home: string) {
  const db = openSqlite(join(home, 'registry.db'), { readonly: true });
  try {
    return db
      .prepare(
        `SELECT s.id AS session, s.client_session_id AS client, f.pattern, c.exclusive FROM claim_files f
         JOIN claims c ON c.id = f.claim_id JOIN sessions s ON s.id = c.session_id
         WHERE c.status = 'active' ORDER BY f.pattern`,
      )
      .all() as Array<{ session: string; client: string | null; pattern: string; exclusive: number }>;
  } finally {
    db.close();
  }
}

describe('liveness cannot be fooled', () => {
  it('a holder stopped past the inactivity threshold and resumed: the takeover stands, it is told, one exclusive claim', async () => {
    const { repo, home } = setup();
    // 15 s of silence (the least config allows) makes a session inactive; servers beat every second.
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({ inactive_after_minutes: 0.25, heartbeat_interval_seconds: 1 }),
    );
    const a = await server({ cwd: repo, home });
    const b = await server({ cwd: repo, home });
    await a.call('collab_session_start', { name: 'sleeper', project_root: repo });
    await b.call('collab_session_start', { name: 'taker', project_root: repo });
    await a.call('collab_claim', { files: ['src/api/auth.py'], intent: 'long refactor', exclusive: true });
    expect(
      (await b.fail('collab_claim', { files: ['src/api/auth.py'], intent: 'x', exclusive: true })).code,
    ).toBe('CLAIM_CONFLICT');
    process.kill(a.pid, 'SIGSTOP');
    try {
      const deadline = Date.now() + 60_000;
      while (
        (await b.call<{ safe: boolean }>('collab_check', { files: ['src/api/auth.py'] })).safe === false
      ) {
        if (Date.now() > deadline) throw new Error('the stopped holder never went inactive');
        await new Promise((r) => setTimeout(r, 500));
      }
      await b.call('collab_claim', { files: ['src/api/auth.py'], intent: 'took it over', exclusive: true });
    } finally {
      process.kill(a.pid, 'SIGCONT');
    }
    const response = await a.call<{
      notifications?: Array<{ type: string; files: string[]; released: string[] }>;
    }>('collab_claims_list');
    expect(response.notifications).toEqual([
      expect.objectContaining({
        type: 'claim_taken_over',
        session: 'taker',
        files: ['src/api/auth.py'],
        released: ['src/api/auth.py'],
      }),
    ]);
    const held = activeClaims(home).filter((c) => c.pattern === 'src/api/auth.py');
    expect(held).toHaveLength(1);
    expect(held[0]!.exclusive).toBe(1);
    const { sessions } = await b.call<{ sessions: Array<{ id: string; name: string }> }>(
      'collab_session_list',
    );
    expect(held[0]!.session).toBe(sessions.find((s) => s.name === 'taker')!.id);
    // The returned session is live again and protects what it still holds.
    await a.call('collab_claim', { files: ['src/ui/app.tsx'], intent: 'back to work', exclusive: true });
    expect(
      (await b.fail('collab_claim', { files: ['src/ui/app.tsx'], intent: 'x', exclusive: true })).code,
    ).toBe('CLAIM_CONFLICT');
  }, 120_000);
});
