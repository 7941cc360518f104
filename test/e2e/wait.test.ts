/**
 * `collab_wait` as agents use it, over real relays and the machine's server: a session told that
 * another holds a file waits for it instead of ending its turn, and is answered when the holder
 * releases it (saying by whom); news for it (a message) ends the wait with the news; nothing ends
 * it after wait_seconds. A write by another process (the CLI, a library App on the same database)
 * wakes it too. A wait across a SIGKILL of the machine's server is answered. On the embedded file
 * and on PostgreSQL (LISTEN/NOTIFY).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freshPgDatabase, pgAvailable } from '../helpers/pg.js';
import { connectStdio, runCli, serverPid, stopServer, waitFor } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

type Closable = { close: () => Promise<unknown> };
const open: Closable[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => {})));
});

let pgUp = false;
beforeAll(async () => {
  pgUp = await pgAvailable('test/e2e/wait.test.ts');
});

interface WaitResult {
  outcome: string;
  message: string;
  released: Array<{ file: string; session: string; how: string }>;
  still_held: Array<{ file: string; session: string }>;
  waited_ms: number;
  messages: Array<{ from: string; content: string }>;
  notifications?: Array<{ type: string; preview?: string }>;
}

async function twoSessions(backend: 'sqlite' | 'postgresql') {
  const home = tempDir('collab-home-');
  if (backend === 'postgresql')
    writeFileSync(join(home, 'config.json'), JSON.stringify({ database_url: await freshPgDatabase() }));
  const repo = gitRepo({ 'src/auth.ts': 'export function login() {}\n' });
  const holder = await connectStdio({ cwd: repo, home, name: 'holder' });
  open.push(holder);
  const waiter = await connectStdio({ cwd: repo, home, name: 'waiter' });
  open.push(waiter);
  await holder.call('collab_session_start', { name: 'holder', project_root: repo });
  await waiter.call('collab_session_start', { name: 'waiter', project_root: repo });
  return { home, repo, holder, waiter };
}

describe.each(['sqlite', 'postgresql'] as const)('collab_wait (%s)', (backend) => {
  it('returns when the file it waits for is released, saying by whom; then news; then timed_out', async (ctx) => {
    if (backend === 'postgresql' && !pgUp) return ctx.skip();
    const { holder, waiter } = await twoSessions(backend);
    const { claim_id } = await holder.call<{ claim_id: string }>('collab_claim', {
      files: ['src/auth.ts'],
      intent: 'rename login',
    });
    const started = Date.now();
    const waiting = waiter.call<WaitResult>('collab_wait', { files: ['src/auth.ts'], wait_seconds: 30 });
    await new Promise((r) => setTimeout(r, 500));
    await holder.call('collab_release', { claim_id, status: 'completed' });
    const freed = await waiting;
    expect(freed.outcome).toBe('free');
    expect(freed.released).toEqual([
      expect.objectContaining({ file: 'src/auth.ts', session: 'holder', how: 'completed' }),
    ]);
    expect(freed.still_held).toEqual([]);
    // Woken by the release, not at the end of its time.
    expect(Date.now() - started).toBeLessThan(10_000);

    // Asked once the holder has let go: free at once, saying who released it lately.
    const late = await waiter.call<WaitResult>('collab_wait', { files: ['src/auth.ts'], wait_seconds: 30 });
    expect(late.outcome).toBe('free');
    expect(late.waited_ms).toBeLessThan(5_000);
    expect(late.released).toEqual([expect.objectContaining({ session: 'holder', how: 'completed' })]);

    // News: a message to it ends a wait without files, with the message delivered.
    const news = waiter.call<WaitResult>('collab_wait', { wait_seconds: 30 });
    await new Promise((r) => setTimeout(r, 300));
    await holder.call('collab_message_send', { content: 'auth.ts is yours now', to_session_id: 'waiter' });
    const told = await news;
    expect(told.outcome).toBe('news');
    // The message whole, now read: not announced again, and no news left to end the next wait.
    expect(told.messages).toEqual([
      expect.objectContaining({ from: 'holder', content: 'auth.ts is yours now' }),
    ]);
    expect(told.notifications ?? []).toEqual([]);
    // Its sender sees it was delivered by the wait.
    const sent = await holder.call<{ messages: Array<{ receipts: Array<{ delivered_via: string }> }> }>(
      'collab_message_list',
      { box: 'sent' },
    );
    expect(sent.messages[0]!.receipts[0]!.delivered_via).toBe('wait');

    // Nothing: timed out after its time, and a held file stays in still_held.
    await holder.call('collab_claim', { files: ['src/auth.ts'], intent: 'again' });
    const quiet = await waiter.call<WaitResult>('collab_wait', { files: ['src/auth.ts'], wait_seconds: 1 });
    expect(quiet.outcome).toBe('timed_out');
    expect(quiet.still_held).toEqual([expect.objectContaining({ file: 'src/auth.ts', session: 'holder' })]);
    expect(quiet.waited_ms).toBeGreaterThanOrEqual(1_000);
  }, 60_000);

  it('is woken by a write of another process: a claim released from the command line', async (ctx) => {
    if (backend === 'postgresql' && !pgUp) return ctx.skip();
    const { home, repo, holder, waiter } = await twoSessions(backend);
    const { claim_id } = await holder.call<{ claim_id: string }>('collab_claim', {
      files: ['src/auth.ts'],
      intent: 'rename login',
    });
    const waiting = waiter.call<WaitResult>('collab_wait', { files: ['src/auth.ts'], wait_seconds: 30 });
    await new Promise((r) => setTimeout(r, 500));
    // A person releases it with the CLI: a process of its own, writing the database itself.
    const cli = await runCli(home, ['release', claim_id, '--reason', 'stuck'], repo);
    expect(cli.code).toBe(0);
    const freed = await waiting;
    expect(freed.outcome).toBe('free');
    expect(freed.released[0]).toMatchObject({ file: 'src/auth.ts', session: 'holder' });
  }, 60_000);

  it('a wait across a SIGKILL of the machine server is answered by the next one', async (ctx) => {
    if (backend === 'postgresql' && !pgUp) return ctx.skip();
    const { home, holder, waiter } = await twoSessions(backend);
    const { claim_id } = await holder.call<{ claim_id: string }>('collab_claim', {
      files: ['src/auth.ts'],
      intent: 'rename login',
    });
    const waiting = waiter.call<WaitResult>('collab_wait', { files: ['src/auth.ts'], wait_seconds: 40 });
    await new Promise((r) => setTimeout(r, 500));
    const first = serverPid(home)!;
    process.kill(first, 'SIGKILL');
    await waitFor(() => {
      const next = serverPid(home);
      return next !== null && next !== first;
    }, 15_000);
    await holder.call('collab_release', { claim_id, status: 'completed' });
    const freed = await waiting;
    expect(freed.outcome).toBe('free');
    expect(freed.released[0]).toMatchObject({ file: 'src/auth.ts', how: 'completed' });
    await stopServer(home);
  }, 60_000);
});

describe('collab_wait refuses bad input before it waits', () => {
  it('0, negative, past the limit, not a number, files outside the repository, unknown fields', async () => {
    const { waiter } = await twoSessions('sqlite');
    for (const args of [
      { wait_seconds: 0 },
      { wait_seconds: -5 },
      { wait_seconds: 111 },
      { wait_seconds: 1.5 },
      { wait_seconds: 'soon' },
      { files: [], wait_seconds: 5 },
      { files: ['../outside.ts'], wait_seconds: 5 },
      { files: ['/etc/passwd'], wait_seconds: 5 },
      { wait_seconds: 5, forever: true },
    ]) {
      const started = Date.now();
      const error = await waiter.fail('collab_wait', args);
      expect(error.code, JSON.stringify(args)).toBe('INVALID_INPUT');
      expect(error.message.length).toBeGreaterThan(10);
      expect(Date.now() - started).toBeLessThan(3_000);
    }
  }, 60_000);
});
