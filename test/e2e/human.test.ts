import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { hookFixture } from '../helpers/hook-fixtures.js';
import { CLI, connectStdio } from '../helpers/stdio.js';
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
      { name: 'ask_human', arguments: { question: 'Still there?', wait_seconds: 8 } },
      {
        timeout: 4_000,
        resetTimeoutOnProgress: true,
        onprogress: (p) => progress.push(String(p.message)),
      },
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(7_500);
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
    await new Promise((r) => setTimeout(r, 4_000));
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
