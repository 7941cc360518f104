import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { hookFixture } from '../helpers/hook-fixtures.js';
import { CLI, connectStdio, hasScript, inTerminal, waitForExit } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

const run = promisify(execFile);
type Connected = Awaited<ReturnType<typeof connectStdio>>;
const open: Connected[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function connect(home: string, repo: string, extra: Partial<Parameters<typeof connectStdio>[0]> = {}) {
  const c = await connectStdio({ cwd: repo, home, args: ['--toolsets', 'collab,human'], ...extra });
  open.push(c);
  return c;
}

/** `session-collab answer …` as a person at a terminal runs it: its own process. */
async function answer(
  home: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, 'answer', ...args], {
      env: { ...process.env, SESSION_COLLAB_HOME: home },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

type Outcome = {
  question_id: string;
  status: string;
  answer?: string;
  answered_via?: string;
  elicitation?: string;
};

describe('ask_human: each answer reaches the session that asked', () => {
  it('two sessions ask at once; each answer from the terminal reaches its own asker, while it waits', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const a = await connect(home, repo, { name: 'a' });
    const b = await connect(home, repo, { name: 'b' });
    const asking = [
      a.call<Outcome>('ask_human', {
        question: 'Deploy to staging?',
        options: ['yes', 'no'],
        wait_seconds: 30,
      }),
      b.call<Outcome>('ask_human', { question: 'Which database name?', wait_seconds: 30 }),
    ];
    // The person lists the pending questions (another process) and answers each by its id.
    let listed: Array<{ question_id: string; question: string; session: string }> = [];
    for (let i = 0; i < 50 && listed.length < 2; i++) {
      listed = JSON.parse((await answer(home, ['--json'])).stdout).questions;
      if (listed.length < 2) await new Promise((r) => setTimeout(r, 100));
    }
    expect(listed).toHaveLength(2);
    const deploy = listed.find((q) => q.question === 'Deploy to staging?')!;
    const name = listed.find((q) => q.question === 'Which database name?')!;
    expect((await answer(home, [name.question_id.slice(0, 8), 'orders', 'db'])).code).toBe(0);
    expect((await answer(home, [deploy.question_id, '--option', '2'])).code).toBe(0);
    const [fromA, fromB] = await Promise.all(asking);
    expect(fromA).toMatchObject({
      question_id: deploy.question_id,
      status: 'answered',
      answer: 'no',
      answered_via: 'terminal',
    });
    expect(fromB).toMatchObject({ question_id: name.question_id, status: 'answered', answer: 'orders db' });
    // Handed over in the result: not delivered again as a notification.
    const next = await a.client.callTool({ name: 'collab_session_list', arguments: {} });
    expect(JSON.stringify(next.structuredContent)).not.toContain('question_answered');
  });

  it('the first answer wins: two people answering at once, one is told it was already answered', async () => {
    const home = tempDir('collab-home-');
    const a = await connect(home, gitRepo());
    const asked = await a.call<Outcome>('ask_human', { question: 'Ship it?', wait_seconds: 0 });
    expect(asked.status).toBe('pending');
    const results = await Promise.all(
      ['first', 'second', 'third'].map((text) => answer(home, [asked.question_id, text])),
    );
    expect(results.filter((r) => r.code === 0)).toHaveLength(1);
    expect(results.filter((r) => r.code === 3 && r.stdout.includes('already answered'))).toHaveLength(2);
    const { questions } = await a.call<{ questions: Outcome[] }>('check_answers', {});
    expect(questions).toHaveLength(1);
    const winner = results.findIndex((r) => r.code === 0);
    expect(questions[0]).toMatchObject({ status: 'answered', answer: ['first', 'second', 'third'][winner] });
  });

  it('a late answer reaches the session with its next tool response, once, and through its hook', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const a = await connect(home, repo, { clientSessionId: 'A-1', hooks: true });
    const late = await a.call<Outcome>('ask_human', { question: 'Rename the table?', wait_seconds: 0 });
    expect((await answer(home, [late.question_id, 'yes, to orders'])).code).toBe(0);
    const next = await a.client.callTool({ name: 'collab_session_list', arguments: {} });
    const notes = (next.structuredContent as { notifications?: Array<Record<string, unknown>> })
      .notifications;
    expect(notes).toEqual([
      expect.objectContaining({
        type: 'question_answered',
        question_id: late.question_id,
        answer: 'yes, to orders',
      }),
    ]);
    expect((next.content as Array<{ text: string }>)[0]!.text).toContain('yes, to orders');
    const again = await a.client.callTool({ name: 'collab_session_list', arguments: {} });
    expect((again.structuredContent as { notifications?: unknown }).notifications).toBeUndefined();

    // Another answer, delivered by the client's hook after a tool use (no tool call in between).
    const second = await a.call<Outcome>('ask_human', { question: 'And the index?', wait_seconds: 0 });
    expect((await answer(home, [second.question_id, 'drop it'])).code).toBe(0);
    const hook = await a.hook('post-tool-use', hookFixture('claude-code/post-tool-use-read', repo, 'A-1'));
    expect(hook.stdout).toContain('drop it');
  });

  it('a wait outlives the client request timeout through progress notifications; a cancelled wait stops', async () => {
    const home = tempDir('collab-home-');
    const a = await connect(home, gitRepo());
    const progress: string[] = [];
    const started = Date.now();
    const waited = await a.client.callTool(
      { name: 'ask_human', arguments: { question: 'Still there?', wait_seconds: 7 } },
      {
        timeout: 4_000,
        resetTimeoutOnProgress: true,
        onprogress: (p) => progress.push(String(p.message)),
      },
    );
    // Past the 4 s request timeout: kept alive by the progress at 3 s and 6 s.
    expect(Date.now() - started).toBeGreaterThanOrEqual(6_500);
    expect((waited.structuredContent as Outcome).status).toBe('pending');
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress[0]).toMatch(/Waiting for an answer from a person \(\d+ s\)/);

    const controller = new AbortController();
    const after: string[] = [];
    let aborted = false;
    const cancelled = a.client
      .callTool(
        { name: 'ask_human', arguments: { question: 'Cancel me', wait_seconds: 60 } },
        {
          signal: controller.signal,
          onprogress: (p) => {
            if (aborted) after.push(String(p.message));
          },
        },
      )
      .catch((error: Error) => error);
    await new Promise((r) => setTimeout(r, 500));
    aborted = true;
    controller.abort();
    expect(await cancelled).toBeInstanceOf(Error);
    // Longer than the 3 s between progress notifications: none comes after the cancel.
    await new Promise((r) => setTimeout(r, 3_500));
    expect(after).toEqual([]);
    // The question itself stays open for the person.
    const { questions } = await a.call<{ questions: Array<{ question: string; status: string }> }>(
      'list_questions',
      {},
    );
    expect(questions.find((q) => q.question === 'Cancel me')?.status).toBe('pending');
  }, 30_000);

  it('questions of an ended session are abandoned; another session cannot cancel them', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const a = await connect(home, repo);
    const b = await connect(home, repo);
    const asked = await a.call<Outcome>('ask_human', { question: 'Mine', wait_seconds: 0 });
    expect(await b.fail('cancel_question', { question_id: asked.question_id })).toMatchObject({
      code: 'NOT_OWNER',
    });
    expect(await b.fail('cancel_question', { question_id: 'nope' })).toMatchObject({
      code: 'QUESTION_NOT_FOUND',
    });
    await a.call('collab_session_end', {});
    expect((await answer(home, [asked.question_id, 'too late'])).stdout).toContain('abandoned');
    const listed = JSON.parse((await answer(home, ['--json'])).stdout).questions;
    expect(listed).toEqual([]);
  });

  it('questions of a session whose processes died are abandoned when a person looks', async () => {
    const home = tempDir('collab-home-');
    const a = await connect(home, gitRepo());
    const asked = await a.call<Outcome>('ask_human', { question: 'Anyone there?', wait_seconds: 0 });
    for (const pid of [a.pid, a.clientPid]) process.kill(pid, 'SIGKILL');
    await Promise.all([waitForExit(a.pid), waitForExit(a.clientPid)]);
    expect(JSON.parse((await answer(home, ['--json'])).stdout).questions).toEqual([]);
    const late = await answer(home, [asked.question_id, 'hello?']);
    expect(late.code).toBe(3);
    expect(late.stdout).toContain('abandoned');
  });

  it('cancel_question closes it everywhere', async () => {
    const home = tempDir('collab-home-');
    const a = await connect(home, gitRepo());
    const asked = await a.call<Outcome>('ask_human', {
      question: 'Cancel?',
      options: ['a', 'b'],
      wait_seconds: 0,
    });
    expect(await a.call('cancel_question', { question_id: asked.question_id })).toEqual({
      question_id: asked.question_id,
      status: 'cancelled',
    });
    const late = await answer(home, [asked.question_id, '--option', '1']);
    expect(late.code).toBe(3);
    expect(late.stdout).toContain('cancelled');
    expect(await a.fail('ask_human', { question: 'x', options: ['same', 'same'] })).toMatchObject({
      code: 'INVALID_INPUT',
    });
  });
});

describe('ask_human through the client itself (MCP elicitation)', () => {
  const form = { elicitation: { form: {} } };

  it('the person answers in the client; a decline is recorded, not taken for an answer', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const seen: unknown[] = [];
    const accepting = await connect(home, repo, {
      capabilities: form,
      setup: (client) =>
        client.setRequestHandler('elicitation/create', async (request) => {
          seen.push(request.params);
          return { action: 'accept', content: { answer: 'blue' } };
        }),
    });
    const answered = await accepting.call<Outcome>('ask_human', {
      question: 'Which colour?',
      options: ['red', 'blue'],
      wait_seconds: 20,
    });
    expect(answered).toMatchObject({ status: 'answered', answer: 'blue', answered_via: 'elicitation' });
    expect(seen).toEqual([
      expect.objectContaining({
        message: 'Which colour?',
        requestedSchema: expect.objectContaining({
          properties: { answer: expect.objectContaining({ enum: ['red', 'blue'] }) },
        }),
      }),
    ]);

    const declining = await connect(home, repo, {
      capabilities: form,
      setup: (client) => client.setRequestHandler('elicitation/create', async () => ({ action: 'decline' })),
    });
    const declined = await declining.call<Outcome>('ask_human', { question: 'Not here', wait_seconds: 20 });
    expect(declined).toMatchObject({ status: 'pending', elicitation: 'declined' });
    expect(declined.answer).toBeUndefined();
  });

  it('config can turn it off: the client is not asked', async () => {
    const home = tempDir('collab-home-');
    writeFileSync(join(home, 'config.json'), JSON.stringify({ human_elicitation: false }));
    let asked = 0;
    const a = await connect(home, gitRepo(), {
      capabilities: form,
      setup: (client) =>
        client.setRequestHandler('elicitation/create', async () => {
          asked++;
          return { action: 'accept', content: { answer: 'x' } };
        }),
    });
    expect(await a.call<Outcome>('ask_human', { question: 'Quiet?', wait_seconds: 1 })).toMatchObject({
      status: 'pending',
    });
    expect(asked).toBe(0);
  });

  it('an answer from the terminal wins over an open form, and the form is withdrawn', async () => {
    const home = tempDir('collab-home-');
    let withdrawn = false;
    const a = await connect(home, gitRepo(), {
      capabilities: form,
      setup: (client) =>
        client.setRequestHandler('elicitation/create', (_request, ctx) => {
          // The person leaves the form open: only the server's cancellation ends it.
          return new Promise((_resolve, reject) => {
            ctx.mcpReq.signal.addEventListener('abort', () => {
              withdrawn = true;
              reject(new Error('withdrawn'));
            });
          });
        }),
    });
    const asking = a.call<Outcome>('ask_human', { question: 'Race?', wait_seconds: 30 });
    let id: string | undefined;
    for (let i = 0; i < 50 && !id; i++) {
      id = JSON.parse((await answer(home, ['--json'])).stdout).questions[0]?.question_id;
      if (!id) await new Promise((r) => setTimeout(r, 100));
    }
    expect((await answer(home, [id!, 'from the terminal'])).code).toBe(0);
    expect(await asking).toMatchObject({
      status: 'answered',
      answered_via: 'terminal',
      answer: 'from the terminal',
    });
    for (let i = 0; i < 50 && !withdrawn; i++) await new Promise((r) => setTimeout(r, 50));
    expect(withdrawn).toBe(true);
  });
});

describe('session-collab answer in a terminal (a real pseudo-terminal)', () => {
  it('picks a question with the arrow keys and answers with a choice; then one by number, in words', async () => {
    if (!(await hasScript())) {
      console.warn('SKIPPED: script(1) (util-linux) is not installed: the pseudo-terminal test needs it.');
      return;
    }
    const home = tempDir('collab-home-');
    const a = await connect(home, gitRepo(), { name: 'shell' });
    const free = await a.call<Outcome>('ask_human', { question: 'Commit message?', wait_seconds: 0 });
    const choice = await a.call<Outcome>('ask_human', {
      question: 'Which strategy?',
      options: ['rebase', 'merge'],
      wait_seconds: 0,
    });
    // Newest first: "Which strategy?" then "Commit message?". Down arrow + Enter takes the second…
    // so go down and back up, then Enter: the first.
    const { screen, code } = await inTerminal({
      home,
      args: ['answer'],
      steps: [
        ['2 pending question(s)', '\x1b[B\x1b[A\r'],
        ['Answer:', '2'],
      ],
    });
    expect(code).toBe(0);
    expect(screen).toContain('Which strategy?');
    expect(screen).toContain('Answer sent to session');
    const second = await inTerminal({
      home,
      args: ['answer'],
      steps: [
        ['1 pending question(s)', '1'],
        ['Your answer: ', 'tidy the imports\r'],
      ],
    });
    expect(second.code).toBe(0);
    const { questions } = await a.call<{ questions: Outcome[] }>('check_answers', {
      question_ids: [choice.question_id, free.question_id],
    });
    expect(questions).toEqual([
      expect.objectContaining({ status: 'answered', answer: 'merge', answered_via: 'terminal' }),
      expect.objectContaining({ status: 'answered', answer: 'tidy the imports', answered_via: 'terminal' }),
    ]);
  }, 30_000);
});

describe('session audit files (sessions/<id>.jsonl)', () => {
  /** The session id of the one audit file in the home folder. */
  const onlyTrail = (home: string) => {
    const files = readdirSync(join(home, 'sessions')).filter((f) => f.endsWith('.jsonl'));
    expect(files).toHaveLength(1);
    return files[0]!.slice(0, -'.jsonl'.length);
  };
  const lines = (file: string) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  it('many processes append to one session file at once: every line whole, metadata first', async () => {
    const home = tempDir('collab-home-');
    const a = await connect(home, gitRepo(), { name: 'audited' });
    const asked: Outcome[] = [];
    for (let i = 0; i < 8; i++)
      asked.push(await a.call<Outcome>('ask_human', { question: `Question ${i}?`, wait_seconds: 0 }));
    await Promise.all(asked.map((q, i) => answer(home, [q.question_id, `answer ${i}`])));
    await a.call('cancel_question', { question_id: asked[0]!.question_id }); // already answered: no line
    const sessionId = onlyTrail(home);
    const trail = lines(join(home, 'sessions', `${sessionId}.jsonl`));
    expect(trail[0]).toMatchObject({
      type: 'session',
      session_id: sessionId,
      name: expect.stringContaining('audited'),
    });
    expect(trail.filter((l) => l.type === 'question')).toHaveLength(8);
    const answers = trail.filter((l) => l.type === 'answer');
    expect(answers.map((l) => l.answer).sort()).toEqual(asked.map((_, i) => `answer ${i}`).sort());
    expect(answers.every((l) => l.via === 'terminal')).toBe(true);
    expect(trail.filter((l) => l.type === 'session')).toHaveLength(1);
    expect(readdirSync(join(home, 'sessions')).filter((f) => f.endsWith('.lock'))).toEqual([]);
  });

  it('a damaged file is set aside and started again; ended sessions are archived by day', async () => {
    const home = tempDir('collab-home-');
    const repo = gitRepo();
    const a = await connect(home, repo, { name: 'first' });
    const q = await a.call<Outcome>('ask_human', { question: 'One?', wait_seconds: 0 });
    const sessionId = onlyTrail(home);
    const file = join(home, 'sessions', `${sessionId}.jsonl`);
    writeFileSync(file, 'not json at all\n{"type":"question"}\n');
    expect((await answer(home, [q.question_id, 'kept'])).code).toBe(0);
    const fresh = lines(file);
    expect(fresh[0]).toMatchObject({ type: 'session', session_id: sessionId });
    expect(fresh[1]).toMatchObject({ type: 'answer', answer: 'kept' });
    expect(readdirSync(join(home, 'sessions')).some((f) => f.startsWith(`${sessionId}.jsonl.damaged-`))).toBe(
      true,
    );

    await a.call('collab_session_end', {});
    // A new session writing its first line clears out the ended one's file.
    const b = await connect(home, repo, { name: 'second' });
    await b.call('ask_human', { question: 'Two?', wait_seconds: 0 });
    const day = new Date().toISOString().slice(0, 10);
    expect(existsSync(file)).toBe(false);
    const archived = join(home, 'sessions', 'archive', day, `${sessionId}.jsonl`);
    expect(lines(archived).map((l) => l.type)).toEqual(['session', 'answer']);
  });
});
