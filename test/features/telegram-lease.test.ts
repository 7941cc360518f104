/**
 * The Telegram poller's lease is decided inside the write transaction: another process's lease
 * write that lands between this process's read (the holder looked gone) and its write must win, so
 * that Telegram never sees two pollers for one bot. The write is landed there on purpose, by
 * another process, at the moment the read has happened: the race, made certain.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app/app.js';
import { telegramSettings } from '../../src/app/telegram-config.js';
import { TelegramChannel } from '../../src/features/human/telegram-channel.js';
import { telegramApi } from '../../src/integrations/telegram-api.js';
import { FakeTelegram } from '../fixtures/fake-telegram.js';
import { teamDatabaseOf, testApp } from '../helpers/app.js';
import { childSqlite } from '../helpers/sqlite.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

/**
 * Another process writes the bot's lease for `holder` (a process of this host) into the app's
 * database: the SQLite file, or the team database.
 */
async function leaseFromAnotherProcess(
  app: App,
  bot: string,
  holder: { id: string; pid: number; host: string },
) {
  const team = teamDatabaseOf(app.paths.home);
  const url = team === undefined ? null : await team;
  const update =
    'UPDATE telegram_pollers SET holder = $1, holder_pid = $2, holder_host = $3, lease_until = $4 WHERE bot = $5';
  const script =
    url !== null
      ? `const { Client } = require('pg');
       (async () => {
         const c = new Client({ connectionString: process.argv[1] });
         await c.connect();
         await c.query(${JSON.stringify(update)}, [process.argv[3], Number(process.argv[4]), process.argv[5], Date.now() + 60000, process.argv[2]]);
         await c.end();
       })().catch((e) => { console.error(e); process.exit(1); });`
      : `${childSqlite()}
       const db = openDb(process.argv[1]);
       db.exec('PRAGMA busy_timeout = 10000');
       db.prepare(${JSON.stringify(update.replace(/\$\d/g, '?'))})
         .run(process.argv[3], Number(process.argv[4]), process.argv[5], Date.now() + 60000, process.argv[2]);
       db.close();`;
  const target = url ?? join(app.paths.home, 'registry.db');
  const run = spawnSync(
    process.execPath,
    ['-e', script, target, bot, holder.id, String(holder.pid), holder.host],
    {
      cwd: process.cwd(),
      encoding: 'utf8',
    },
  );
  if (run.status !== 0) throw new Error(`the other process failed: ${run.stderr}`);
}

describe('the Telegram lease: check and take in one transaction', () => {
  it('a lease another process writes between the read and the write wins; this one does not poll', async () => {
    const telegram = new FakeTelegram();
    const root = await telegram.start();
    cleanups.push(() => telegram.stop());
    const app = await testApp();
    cleanups.push(() => app.close());
    const bot = createHash('sha256').update(telegram.token).digest('hex').slice(0, 16);

    // The lease is held by a process of this host that is gone: takeable, as the read will see.
    const gone = spawnSync('true').pid;
    await app.store.write(() =>
      app.store.telegram.take(bot, 'gone-holder', gone, app.host, Date.now() + 60_000),
    );
    // The other process that will hold it, alive.
    const other = spawn('sleep', ['60'], { stdio: 'ignore' });
    cleanups.push(() => {
      other.kill('SIGKILL');
    });

    // Right after this process has read the gone holder (outside the transaction), the other
    // process writes its lease: before this process's write transaction begins.
    const read = app.store.telegram.poller.bind(app.store.telegram);
    let landed = false;
    vi.spyOn(app.store.telegram, 'poller').mockImplementation(async (b) => {
      const row = await read(b);
      if (!landed && row?.holder === 'gone-holder') {
        landed = true;
        await leaseFromAnotherProcess(app, bot, {
          id: 'other-process',
          pid: other.pid!,
          host: app.host,
        });
      }
      return row;
    });

    const settings = telegramSettings(app.config, {
      SESSION_COLLAB_TELEGRAM_BOT_TOKEN: telegram.token,
      SESSION_COLLAB_TELEGRAM_ALLOWED_USER_IDS: '42',
      SESSION_COLLAB_TELEGRAM_API_ROOT: root,
    });
    const channel = new TelegramChannel(
      app,
      app.human,
      { ...settings, bot_token: telegram.token },
      telegramApi(telegram.token, root),
    );
    channel.start();
    cleanups.push(() => channel.stop());
    for (let i = 0; i < 100 && !landed; i++) await new Promise((r) => setTimeout(r, 50));
    expect(landed).toBe(true);
    // Several rounds of looking (one a second): the other process keeps the lease throughout.
    await new Promise((r) => setTimeout(r, 2_500));
    expect((await read(bot))?.holder).toBe('other-process');
    expect(await channel.polls()).toBe(false);
    expect(telegram.calls.filter((c) => c.method === 'getUpdates')).toEqual([]);

    // Its holder gone, the lease is taken over, and polling starts: one poller, never two.
    other.kill('SIGKILL');
    for (let i = 0; i < 100 && !(await channel.polls()); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await channel.polls()).toBe(true);
    for (let i = 0; i < 100 && !telegram.calls.some((c) => c.method === 'getUpdates'); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(telegram.calls.some((c) => c.method === 'getUpdates')).toBe(true);
    expect(telegram.conflicts).toBe(0);
  }, 30_000);
});
