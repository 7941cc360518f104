import { describe, expect, it } from 'vitest';
import { connectInMemory, testApp } from '../helpers/app.js';
import { beforeNextWrite } from '../helpers/interleave.js';
import { gitRepo } from '../helpers/temp.js';

type Outcome = { question_id: string; status: string; answer?: string };

describe('questions that expire', () => {
  it('a pending question past question_expiry_minutes is expired; a late answer does not win', async () => {
    let clock = Date.parse('2026-03-01T10:00:00Z');
    const app = await testApp({ now: () => clock, config: { question_expiry_minutes: 5 } });
    const a = await connectInMemory(app, gitRepo(), 'a', ['collab', 'human']);
    const asked = await a.call<Outcome>('ask_human', { question: 'Still needed?', wait_seconds: 0 });
    clock += 4 * 60_000;
    expect((await a.call<{ questions: Outcome[] }>('check_answers', {})).questions[0]?.status).toBe(
      'pending',
    );
    clock += 2 * 60_000;
    const { questions } = await a.call<{ questions: Outcome[] }>('list_questions', { status: 'all' });
    expect(questions[0]).toMatchObject({ question_id: asked.question_id, status: 'expired' });
    const late = await app.human.answer(asked.question_id, 'yes', 'terminal', 'me');
    expect(late.won).toBe(false);
    expect(late.question.status).toBe('expired');
    await a.close();
    await app.close();
  });

  it('without a wait, check_answers answers at once with what there is', async () => {
    const app = await testApp();
    const a = await connectInMemory(app, gitRepo(), 'a', ['collab', 'human']);
    expect(await a.call('check_answers', {})).toEqual({ questions: [] });
    const asked = await a.call<Outcome>('ask_human', { question: 'Q?', wait_seconds: 0 });
    const started = Date.now();
    expect((await a.call<{ questions: Outcome[] }>('check_answers', {})).questions).toEqual([
      { question_id: asked.question_id, status: 'pending' },
    ]);
    expect(Date.now() - started).toBeLessThan(1_000);
    await a.close();
    await app.close();
  });
});

describe('an answer given again', () => {
  it('by the same person through the same channel is "sent" again, not "already answered"; anyone else’s is not', async () => {
    const app = await testApp();
    const a = await connectInMemory(app, gitRepo(), 'a', ['collab', 'human']);
    const asked = await a.call<Outcome>('ask_human', { question: 'Ship it?', wait_seconds: 0 });
    const first = await app.human.answer(asked.question_id, 'yes', 'telegram', '111');
    expect(first).toMatchObject({ won: true, again: false });
    // The same Telegram update read again (its poller died after recording it): the person's own.
    const replayed = await app.human.answer(asked.question_id, 'yes', 'telegram', '111');
    expect(replayed).toMatchObject({ won: false, again: true });
    const { confirmation } = await import('../../src/features/human/telegram-text.js');
    expect(confirmation(replayed.won || replayed.again, replayed.question, 'yes')).toMatch(/^✓ Sent to "/);
    for (const [text, via, by] of [
      ['no', 'telegram', '111'],
      ['yes', 'telegram', '222'],
      ['yes', 'terminal', '111'],
    ] as const)
      expect(await app.human.answer(asked.question_id, text, via, by)).toMatchObject({
        won: false,
        again: false,
      });
    await a.close();
    await app.close();
  });
});

describe('an asker taken up again while a person answers or looks', () => {
  /**
   * The asker of a question (silent past the inactivity threshold, so gone by its heartbeat) is
   * heard from again just before the next write: once it is what decides, it counts.
   */
  async function silentAsker() {
    let clock = Date.parse('2026-03-01T10:00:00Z');
    const app = await testApp({ now: () => clock });
    const repo = gitRepo();
    const a = await connectInMemory(app, repo, 'a', ['collab', 'human']);
    const b = await connectInMemory(app, repo, 'b', ['collab', 'human']);
    const mine = await a.call<Outcome>('ask_human', { question: 'Which one?', wait_seconds: 0 });
    const theirs = await b.call<Outcome>('ask_human', { question: 'Anyone?', wait_seconds: 0 });
    clock += (app.config.inactive_after_minutes + 1) * 60_000;
    const { store } = app;
    const revived = { done: false };
    beforeNextWrite(store, async () => {
      revived.done = true;
      await app.sessions.touch(a.connection.currentId!);
    });
    const close = async () => {
      await Promise.all([a.close(), b.close()]);
      await app.close();
    };
    return { app, mine, theirs, revived, close };
  }

  it('the person’s answer reaches it (the question is not abandoned)', async () => {
    const { app, mine, revived, close } = await silentAsker();
    const outcome = await app.human.answer(mine.question_id, 'the first', 'terminal', 'me');
    expect(revived.done).toBe(true);
    expect(outcome).toMatchObject({ won: true, question: { status: 'answered', answer: 'the first' } });
    await close();
  });

  it('its question stays pending; one of an asker still gone is abandoned', async () => {
    const { app, mine, theirs, revived, close } = await silentAsker();
    const listed = await app.human.list(null, 'all', 10);
    expect(revived.done).toBe(true);
    expect(Object.fromEntries(listed.map((q) => [q.id, q.status]))).toEqual({
      [mine.question_id]: 'pending',
      [theirs.question_id]: 'abandoned',
    });
    await close();
  });
});
