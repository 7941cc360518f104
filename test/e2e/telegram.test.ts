import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeTelegram, type SentMessage } from '../fixtures/fake-telegram.js';
import { hookFixture } from '../helpers/hook-fixtures.js';
import { openSqlite } from '../helpers/sqlite.js';
import { bareServe, CLI, connectStdio, hookClient, waitFor, waitForExit } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

const run = promisify(execFile);
const PERSON = 42;
const STRANGER = 99;
type Connected = Awaited<ReturnType<typeof connectStdio>>;
type Outcome = { question_id: string; status: string; answer?: string; answered_via?: string };

const open: Connected[] = [];
const fakes: FakeTelegram[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => {})));
  await Promise.all(fakes.splice(0).map((f) => f.stop()));
});

async function setup(allowed = [PERSON]) {
  const telegram = new FakeTelegram();
  fakes.push(telegram);
  const root = await telegram.start();
  const home = tempDir('collab-home-');
  const repo = gitRepo();
  const env = {
    SESSION_COLLAB_TELEGRAM_BOT_TOKEN: telegram.token,
    SESSION_COLLAB_TELEGRAM_ALLOWED_USER_IDS: allowed.join(','),
    SESSION_COLLAB_TELEGRAM_API_ROOT: root,
  };
  /** A client whose `serve` is a relay to the machine's server; `inProcess`: a server of its own. */
  const connect = async (name: string, inProcess = false) => {
    const args = ['--toolsets', 'collab,human', ...(inProcess ? ['--in-process'] : [])];
    const c = await connectStdio({ cwd: repo, home, name, args, env });
    open.push(c);
    return c;
  };
  return { telegram, home, repo, connect, env };
}

/** The process that polls the bot now, from the lease row. */
function poller(home: string): number | null {
  const db = openSqlite(join(home, 'registry.db'), { readonly: true });
  try {
    const row = db.prepare('SELECT holder_pid, lease_until FROM telegram_pollers').get() as
      | { holder_pid: number; lease_until: number }
      | undefined;
    return row && row.lease_until > Date.now() ? row.holder_pid : null;
  } finally {
    db.close();
  }
}

/** The question's message sent to the person. */
async function questionMessage(telegram: FakeTelegram, text: string): Promise<SentMessage> {
  await waitFor(() => telegram.sentTo(PERSON, text).length > 0, 10_000, `the question "${text}" in Telegram`);
  return telegram.sentTo(PERSON, text)[0]!;
}

describe('Telegram: several sessions ask, one person answers from a phone', () => {
  it('each answer, by button or by reply, reaches its own asker; a stranger is ignored', async () => {
    const { telegram, connect } = await setup();
    const a = await connect('api');
    const b = await connect('web');
    const askA = a.call<Outcome>('ask_human', {
      question: 'Deploy the API now?',
      options: ['yes', 'later'],
      label: 'release',
      urgency: 'high',
      wait_seconds: 40,
    });
    const askB = b.call<Outcome>('ask_human', { question: 'Name for the new table?', wait_seconds: 40 });
    const deploy = await questionMessage(telegram, 'Deploy the API now?');
    const naming = await questionMessage(telegram, 'Name for the new table?');
    expect(deploy.text).toMatch(/release \(api-\w+\) · collab-repo-\w+@main/);
    expect(deploy.text).toContain('URGENT');
    expect(deploy.reply_markup?.inline_keyboard?.map((row) => row[0]!.text)).toEqual(['yes', 'later']);

    // A stranger presses a button and replies: nothing is answered.
    telegram.press(STRANGER, deploy.message_id, telegram.button(deploy, 'yes'));
    telegram.send(STRANGER, 'orders', naming.message_id);
    await waitFor(() => telegram.pendingUpdates === 0, 10_000, 'the stranger’s updates to be read');
    // The person answers the second by replying, the first by its button.
    telegram.send(PERSON, 'orders_v2', naming.message_id);
    telegram.press(PERSON, deploy.message_id, telegram.button(deploy, 'later'));
    expect(await askA).toMatchObject({ status: 'answered', answer: 'later', answered_via: 'telegram' });
    expect(await askB).toMatchObject({ status: 'answered', answer: 'orders_v2', answered_via: 'telegram' });
    // Both question messages now say how they were answered, without buttons.
    await waitFor(() => deploy.edited && naming.edited, 10_000, 'the question messages to be edited');
    expect(deploy.text).toMatch(/answered in Telegram at \d\d:\d\d UTC: later/);
    expect(deploy.reply_markup).toBeUndefined();
    expect(telegram.conflicts).toBe(0);
  }, 40_000);

  it('the Pending list, a picked question answered by a forced reply, free text attached afterwards', async () => {
    const { telegram, home, connect } = await setup();
    const a = await connect('a');
    const first = await a.call<Outcome>('ask_human', { question: 'Which port?', wait_seconds: 0 });
    const second = await a.call<Outcome>('ask_human', { question: 'Which region?', wait_seconds: 0 });
    await questionMessage(telegram, 'Which region?');

    telegram.send(PERSON, 'Pending');
    await waitFor(() => telegram.sentTo(PERSON, '2 pending questions').length > 0, 10_000, 'the list');
    const list = telegram.sentTo(PERSON, '2 pending questions')[0]!;
    telegram.press(PERSON, list.message_id, telegram.button(list, 'Which port?'));
    await waitFor(
      () => telegram.sentTo(PERSON, 'Your answer to "Which port?"').length > 0,
      10_000,
      'the prompt',
    );
    const prompt = telegram.sentTo(PERSON, 'Your answer to "Which port?"')[0]!;
    expect(prompt.reply_markup?.force_reply).toBe(true);
    telegram.send(PERSON, '8080', prompt.message_id);

    // Free text replying to nothing: the bot asks which question it answers.
    telegram.send(PERSON, 'eu-west-1');
    await waitFor(
      () => telegram.sentTo(PERSON, 'Which question does this answer?').length > 0,
      10_000,
      'the attach prompt',
    );
    const attach = telegram.sentTo(PERSON, 'Which question does this answer?')[0]!;
    telegram.press(PERSON, attach.message_id, telegram.button(attach, 'Which region?'));

    const { questions } = await a.call<{ questions: Outcome[] }>('check_answers', {
      question_ids: [first.question_id, second.question_id],
      wait_seconds: 20,
    });
    const answered = async () =>
      (await a.call<{ questions: Outcome[] }>('list_questions', { status: 'answered' })).questions.length;
    for (let i = 0; i < 100 && (await answered()) < 2; i++) await new Promise((r) => setTimeout(r, 100));
    const all = (
      await a.call<{ questions: Array<Outcome & { question: string }> }>('list_questions', { status: 'all' })
    ).questions;
    expect(all.find((q) => q.question_id === first.question_id)).toMatchObject({
      status: 'answered',
      answer: '8080',
    });
    expect(all.find((q) => q.question_id === second.question_id)).toMatchObject({
      status: 'answered',
      answer: 'eu-west-1',
    });
    expect(questions.length).toBe(2);
    // Answered from the terminal meanwhile? No: a late terminal answer is refused.
    const late = await run(process.execPath, [CLI, 'answer', first.question_id, '9090'], {
      env: { ...process.env, SESSION_COLLAB_HOME: home },
    }).catch((e: { code: number; stdout: string }) => e);
    expect((late as { code: number }).code).toBe(3);
    expect((late as { stdout: string }).stdout).toContain('already answered via telegram');
  }, 40_000);

  it('an answer from the terminal closes the Telegram message; Telegram down, the terminal still works', async () => {
    const { telegram, home, connect } = await setup();
    const a = await connect('a');
    const asked = await a.call<Outcome>('ask_human', {
      question: 'Merge now?',
      options: ['yes', 'no'],
      wait_seconds: 0,
    });
    const message = await questionMessage(telegram, 'Merge now?');
    await run(process.execPath, [CLI, 'answer', asked.question_id, '--option', '1'], {
      env: { ...process.env, SESSION_COLLAB_HOME: home },
    });
    await waitFor(() => message.edited, 15_000, 'the message to say it was answered in the terminal');
    expect(message.text).toMatch(/answered in the terminal at \d\d:\d\d UTC: yes/);

    telegram.setDown(true);
    const offline = a.call<Outcome>('ask_human', { question: 'Rotate the keys?', wait_seconds: 30 });
    await new Promise((r) => setTimeout(r, 500));
    const { stdout } = await run(process.execPath, [CLI, 'answer', '--json'], {
      env: { ...process.env, SESSION_COLLAB_HOME: home },
    });
    const id = (JSON.parse(stdout).questions as Outcome[])[0]!.question_id;
    await run(process.execPath, [CLI, 'answer', id, 'not today'], {
      env: { ...process.env, SESSION_COLLAB_HOME: home },
    });
    expect(await offline).toMatchObject({
      status: 'answered',
      answer: 'not today',
      answered_via: 'terminal',
    });
    // Back up: a pending question asked while it was down is sent.
    const later = await a.call<Outcome>('ask_human', { question: 'Sent once it is back?', wait_seconds: 0 });
    telegram.setDown(false);
    await questionMessage(telegram, 'Sent once it is back?');
    expect(telegram.sentTo(PERSON, 'Sent once it is back?')).toHaveLength(1);
    void later;
  }, 60_000);
});

describe('Telegram when parts of it fail', () => {
  it('a user the bot cannot reach and a refused button answer hold nothing up', async () => {
    const BLOCKED = 43;
    const { telegram, connect } = await setup([PERSON, BLOCKED]);
    telegram.blocked.add(BLOCKED);
    telegram.refuseCallbackAnswers = true;
    const a = await connect('a');
    const first = a.call<Outcome>('ask_human', { question: 'First?', options: ['x', 'y'], wait_seconds: 30 });
    const message = await questionMessage(telegram, 'First?');
    // The button's answer to Telegram is refused (too old): the answer still counts, and the
    // updates after it are read.
    telegram.press(PERSON, message.message_id, telegram.button(message, 'y'));
    expect(await first).toMatchObject({ status: 'answered', answer: 'y' });
    const second = a.call<Outcome>('ask_human', { question: 'Second?', wait_seconds: 30 });
    const next = await questionMessage(telegram, 'Second?');
    telegram.send(PERSON, 'fine', next.message_id);
    expect(await second).toMatchObject({ status: 'answered', answer: 'fine' });
    // Each question went to the reachable user once.
    expect(telegram.sentTo(PERSON, 'First?')).toHaveLength(1);
    expect(telegram.sentTo(BLOCKED)).toEqual([]);
  }, 40_000);
});

describe('a server whose connection closes while Telegram keeps it busy', () => {
  it('exits and ends its session when the transport closes on an oversized message, stdin still open', async () => {
    const { home, repo, env } = await setup();
    // A server of its own (in-process): the machine's server outlives any one connection.
    const server = bareServe(repo, home, [process.execPath], {
      args: ['--toolsets', 'collab,human', '--in-process'],
      env,
    });
    const { child } = server;
    expect(await server.call('collab_session_list')).not.toBeNull();
    await waitFor(() => poller(home) === child.pid, 10_000, 'the server to poll');
    child.stdin.write('x'.repeat(11 * 1024 * 1024)); // no newline: over the transport's 10 MB
    const started = Date.now();
    expect(await server.exit).toBe(0);
    // It exits rather than hangs (how fast is the machine's business: a bound, not a timing).
    expect(Date.now() - started).toBeLessThan(30_000);
    const db = openSqlite(join(home, 'registry.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT status FROM sessions').all()).toEqual([{ status: 'ended' }]);
    } finally {
      db.close();
    }
    child.stdin.destroy();
  }, 30_000);
});

describe('Telegram webhook mode', () => {
  it('the holder listens for the posts, checks the secret token, and answers from them; nobody polls', async () => {
    const { telegram, home, repo, env } = await setup();
    const port = await freePort();
    const secret = 'secret-token-0123456789';
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        telegram: {
          mode: 'webhook',
          webhook_url: 'https://collab.example.test/telegram/updates',
          webhook_secret: secret,
          webhook_listen: `127.0.0.1:${port}`,
        },
      }),
    );
    const a = await connectStdio({ cwd: repo, home, args: ['--toolsets', 'collab,human'], env });
    open.push(a);
    await waitFor(() => telegram.webhook !== null, 10_000, 'setWebhook');
    expect(telegram.webhook).toEqual({
      url: 'https://collab.example.test/telegram/updates',
      secret_token: secret,
    });
    const asking = a.call<Outcome>('ask_human', {
      question: 'Via webhook?',
      options: ['yes', 'no'],
      wait_seconds: 30,
    });
    const message = await questionMessage(telegram, 'Via webhook?');
    const post = (token: string, update: unknown) =>
      fetch(`http://127.0.0.1:${port}/telegram/updates`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': token },
        body: JSON.stringify(update),
      });
    const yes = telegram.button(message, 'yes');
    const press = (id: number) => ({
      update_id: id,
      callback_query: {
        id: `cb${id}`,
        from: { id: PERSON },
        data: yes,
        message: { message_id: message.message_id, chat: { id: PERSON } },
      },
    });
    expect((await post('wrong-token-0123456789', press(7))).status).toBe(401);
    expect((await post(secret, { not: 'an update' })).status).toBe(400);
    expect((await post(secret, press(8))).status).toBe(200);
    expect(await asking).toMatchObject({ status: 'answered', answer: 'yes', answered_via: 'telegram' });
    // Telegram posting the same update again (its answer was lost): handled once.
    expect((await post(secret, press(8))).status).toBe(200);
    expect(telegram.callbackAnswers.filter((c) => c.id === 'cb8')).toHaveLength(1);
    expect(telegram.calls.some((c) => c.method === 'getUpdates')).toBe(false);
  }, 30_000);
});

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('doctor and Telegram', () => {
  it('reports the bot when the token works, and what to do when Telegram does not answer', async () => {
    const { telegram, home, env: telegramEnv } = await setup();
    const env = { ...process.env, SESSION_COLLAB_HOME: home, ...telegramEnv };
    const doctor = async () => {
      const out = await run(process.execPath, [CLI, 'doctor', '--json'], { env }).catch(
        (e: { stdout: string }) => e,
      );
      return JSON.parse(out.stdout) as {
        ok: boolean;
        checks: Array<{ name: string; ok: boolean; detail: string; hint?: string }>;
      };
    };
    const good = await doctor();
    expect(good.checks.find((c) => c.name === 'telegram')).toMatchObject({
      ok: true,
      detail: 'bot @collab_test_bot, 1 user(s) may answer',
    });
    telegram.setDown(true);
    const bad = await doctor();
    const check = bad.checks.find((c) => c.name === 'telegram')!;
    expect(check.ok).toBe(false);
    expect(check.hint).toContain('@BotFather');
    expect(JSON.stringify(bad)).not.toContain(telegram.token);
  });
});

describe('Telegram: exactly one poller per bot, across processes', () => {
  it('three servers, one polls; killed, another takes over within seconds, waits out the poll it left open; nothing is lost or answered twice', async () => {
    const { telegram, home, connect } = await setup();
    // Servers of their own (in-process), as servers of several builds or a hub beside them would be.
    const servers = [await connect('one', true), await connect('two', true), await connect('three', true)];
    await waitFor(() => poller(home) !== null, 10_000, 'a poller');
    const first = poller(home)!;
    expect(servers.map((s) => s.pid)).toContain(first);
    const survivor = servers.find((s) => s.pid !== first)!;

    const q1 = await survivor.call<Outcome>('ask_human', {
      question: 'Before the kill?',
      options: ['a', 'b'],
      wait_seconds: 0,
    });
    const m1 = await questionMessage(telegram, 'Before the kill?');
    const [buttonA, buttonB] = [telegram.button(m1, 'a'), telegram.button(m1, 'b')];
    // Killed as its poll begins: Telegram keeps that poll open for its 5 s, and the next poller meets it.
    telegram.keepsVanishedPolls = true;
    const begun = telegram.pollsBegun;
    await waitFor(() => telegram.pollsBegun > begun, 10_000, 'a poll');
    process.kill(first, 'SIGKILL');
    await waitForExit(first);
    const killedAt = Date.now();
    await waitFor(() => poller(home) !== null && poller(home) !== first, 15_000, 'another poller');
    expect(Date.now() - killedAt).toBeLessThan(5_000);
    const second = poller(home)!;
    await waitFor(() => telegram.conflicts > 0, 10_000, "the new poller's poll to meet the one left open");
    // Pressed while nobody polls: the next poller must read it, once.
    telegram.press(PERSON, m1.message_id, buttonB);
    const { questions } = await survivor.call<{ questions: Outcome[] }>('check_answers', {
      question_ids: [q1.question_id],
      wait_seconds: 20,
    });
    expect(questions[0]).toMatchObject({ status: 'answered', answer: 'b' });

    // The other button, tapped before the message lost its buttons: still one answer, the second told so.
    telegram.press(PERSON, m1.message_id, buttonA);
    await waitFor(() => telegram.pendingUpdates === 0, 15_000, 'the double tap to be read');
    await waitFor(() => telegram.callbackAnswers.length >= 2, 10_000, 'the callback answers');
    expect(telegram.callbackAnswers.at(-1)?.text).toContain('already answered');
    const after = await survivor.call<{ questions: Outcome[] }>('list_questions', { status: 'all' });
    expect(after.questions.find((q) => q.question_id === q1.question_id)).toMatchObject({ answer: 'b' });

    // It kept its lease and polled again once the poll in its way had ended: one conflict, and no
    // other server took over (a poller that meets a conflict twice gives the lease up for a lease).
    expect(telegram.conflicts).toBe(1);
    expect(poller(home)).toBe(second);
    telegram.keepsVanishedPolls = false;

    // A clean stop hands the lease over at once.
    const current = poller(home)!;
    const holder = servers.find((s) => s.pid === current)!;
    await holder.close();
    await waitForExit(current);
    await waitFor(() => poller(home) !== null && poller(home) !== current, 5_000, 'the third poller');
    expect(telegram.conflicts).toBe(1);
    expect(telegram.maxConcurrentPolls).toBe(1);
  }, 60_000);
});

describe('Telegram: a session that cannot be woken is idle with news', () => {
  it('its person is told once per idle spell; a Claude Code session its wake hook watches is not', async () => {
    const { telegram, home, repo, connect } = await setup();
    const messenger = await connect('messenger');
    await messenger.call('collab_session_start', { name: 'messenger', project_root: repo });
    const codex = await hookClient({ cwd: repo, home });
    const claude = await hookClient({ cwd: repo, home });
    try {
      // A Codex session (its Stop input) and a Claude Code one end their turns with nothing new.
      const codexStop = hookFixture('codex/stop', repo, 'X-1');
      const claudeStop = hookFixture('claude-code/stop', repo, 'C-1');
      expect((await codex.hook('turn-end', codexStop)).stdout).toBe('');
      expect((await claude.hook('turn-end', claudeStop)).stdout).toBe('');
      const waking = claude.hook('wake', claudeStop);
      const list = (
        await messenger.call<{ sessions: Array<{ id: string; client: string | null }> }>(
          'collab_session_list',
        )
      ).sessions;
      const codexId = list.find((s) => s.client === 'codex-cli')!.id;
      const claudeId = list.find((s) => s.client === 'claude-code')!.id;
      await messenger.call('collab_message_send', {
        to_session_id: codexId,
        content: 'codex: the API moved',
      });
      await messenger.call('collab_message_send', {
        to_session_id: claudeId,
        content: 'claude: the API moved',
      });
      await waitFor(
        () => telegram.sentTo(PERSON, 'finished its turn and is waiting').length > 0,
        25_000,
        'the idle notice',
      );
      const told = telegram.sentTo(PERSON, 'finished its turn and is waiting');
      expect(told).toHaveLength(1);
      expect(told[0]!.text).toContain('codex-cli');
      expect(told[0]!.text).toContain('1 unread message');
      expect(told[0]!.text).toContain('codex: the API moved');
      // The Claude Code session was woken instead.
      expect((await waking).code).toBe(2);
      // More news in the same idle spell: not told again.
      await messenger.call('collab_message_send', {
        to_session_id: codexId,
        content: 'codex: and the schema',
      });
      await new Promise((r) => setTimeout(r, 7_000));
      // Compared whole, so that a second notice says whose it is.
      expect(telegram.sentTo(PERSON, 'finished its turn and is waiting').map((m) => m.text)).toEqual([
        told[0]!.text,
      ]);
      // It acts, then idles again with news: a new spell, told anew.
      await codex.hook('turn-end', { ...codexStop, stop_hook_active: false });
      await codex.hook('post-tool-use', hookFixture('codex/post-tool-use-apply-patch', repo, 'X-1'));
      expect((await codex.hook('turn-end', codexStop)).stdout).toBe('');
      await messenger.call('collab_message_send', { to_session_id: codexId, content: 'codex: third' });
      await waitFor(
        () => telegram.sentTo(PERSON, 'finished its turn and is waiting').length === 2,
        25_000,
        'the second idle notice',
      );
    } finally {
      await codex.close();
      await claude.close();
    }
  }, 90_000);

  it('news between a Claude Code turn’s end and its wake hook’s start: the hook wakes the agent with it, and its person is not told', async () => {
    const { telegram, home, repo, connect } = await setup();
    const messenger = await connect('messenger');
    await messenger.call('collab_session_start', { name: 'messenger', project_root: repo });
    const claude = await hookClient({ cwd: repo, home });
    try {
      const claudeStop = hookFixture('claude-code/stop', repo, 'C-1');
      expect((await claude.hook('turn-end', claudeStop)).stdout).toBe('');
      const list = (
        await messenger.call<{ sessions: Array<{ id: string; client: string | null }> }>(
          'collab_session_list',
        )
      ).sessions;
      const claudeId = list.find((s) => s.client === 'claude-code')!.id;
      await messenger.call('collab_message_send', {
        to_session_id: claudeId,
        content: 'claude: the API moved',
      });
      // The poller's round after the news (its poll ended now, as at its timeout): the session is
      // idle with news, and its wake hook has not reached the server yet.
      const polls = telegram.pollsBegun;
      telegram.endPolls();
      await waitFor(() => telegram.pollsBegun > polls, 10_000, "the poller's next round");
      const waking = claude.hook('wake', claudeStop);
      expect((await waking).code).toBe(2);
      const after = telegram.pollsBegun;
      telegram.endPolls();
      await waitFor(() => telegram.pollsBegun > after, 10_000, "the poller's round after the wake");
      expect(telegram.sentTo(PERSON, 'finished its turn and is waiting')).toEqual([]);
    } finally {
      await claude.close();
    }
  }, 60_000);
});
