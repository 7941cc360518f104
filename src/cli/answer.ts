import { basename } from 'node:path';
import { App } from '../app/app.js';
import { CollabError, invalidInput } from '../core/errors.js';
import { inline, quoteBlock } from '../core/fence.js';
import { age } from '../core/questions.js';
import type { QuestionView } from '../features/human/question-views.js';
import type { QuestionsService } from '../features/human/questions-service.js';
import { bold, dim, green, printJson, terminalUser, yellow } from './format.js';
import { choose, typeLine } from './terminal-choice.js';

export interface AnswerOptions {
  json?: boolean;
  list?: boolean;
  option?: string;
}

/**
 * `session-collab answer`: the pending questions of every session, to pick one and answer it (arrow
 * keys or numbers); `answer <id> <text…>` or `answer <id> --option <n>` for scripts; `--list`
 * (or no terminal) lists them, `--json` for scripts.
 */
export async function answerCommand(
  id: string | undefined,
  words: string[],
  options: AnswerOptions,
): Promise<void> {
  const app = await App.open();
  try {
    const human = app.human;
    if (id !== undefined) return await answerOne(human, id, words, options);
    const pending = (await human.list(null, 'pending', 200)).map((q) => ({ view: human.view(q), row: q }));
    if (options.json) {
      printJson({
        questions: pending.map((p) => ({
          ...p.view,
          worktree: p.row.session_worktree,
          branch: p.row.session_branch,
        })),
      });
      return;
    }
    if (pending.length === 0) {
      console.log('No pending questions.');
      return;
    }
    const now = app.now();
    const lines = pending.map(
      ({ view, row }) =>
        `${urgencyMark(view)}${bold(inline(view.label ?? view.session, 40))} ${dim(`${basename(row.session_worktree)}${row.session_branch ? `@${row.session_branch}` : ''}, ${age(now - row.created_at)}`)}  ${inline(view.question, 80)}  ${dim(view.question_id.slice(0, 8))}`,
    );
    if (options.list || !process.stdin.isTTY || !process.stdout.isTTY) {
      for (const line of lines) console.log(line);
      console.log(
        dim(`\nAnswer one: session-collab answer <id> <text…>   (or run this in a terminal to pick)`),
      );
      return;
    }
    const picked = await choose(`${pending.length} pending question(s):`, lines);
    if (picked === null) return;
    const { view } = pending[picked]!;
    // Every word here came from a session: one line each, control characters stripped.
    console.log(
      `\n${bold(inline(view.session, 100))}${view.label ? ` — ${inline(view.label, 100)}` : ''} asks:\n${quote(view.question)}\n`,
    );
    let answer: string | null;
    if (view.options) {
      const shown = view.options.map((o) => inline(o, 200));
      const choice = await choose('Answer:', [...shown, dim('(type an answer of my own)')]);
      if (choice === null) return;
      answer = choice < view.options.length ? view.options[choice]! : await typeLine('Your answer: ');
    } else answer = await typeLine('Your answer: ');
    if (answer === null || !answer.trim()) {
      console.log('Nothing sent.');
      return;
    }
    report(await human.answer(view.question_id, answer, 'terminal', terminalUser()), human);
  } finally {
    await app.close();
  }
}

async function answerOne(
  human: QuestionsService,
  id: string,
  words: string[],
  options: AnswerOptions,
): Promise<void> {
  const question = await human.resolve(id);
  let outcome: Awaited<ReturnType<QuestionsService['answer']>>;
  if (options.option !== undefined) {
    const n = Number(options.option);
    if (!Number.isInteger(n) || n < 1)
      throw invalidInput(`--option: "${options.option}" is not a choice number.`);
    if (words.length > 0) throw invalidInput('Give either --option or an answer text, not both.');
    outcome = await human.answerOption(question.id, n, 'terminal', terminalUser());
  } else {
    const text = words.join(' ');
    if (!text.trim())
      throw new CollabError(
        'INVALID_INPUT',
        'No answer given.',
        `Pass the answer after the id: session-collab answer ${question.id.slice(0, 8)} "your answer"${question.options ? ', or --option <n>' : ''}.`,
      );
    outcome = await human.answer(question.id, text, 'terminal', terminalUser());
  }
  if (options.json) {
    printJson({ won: outcome.won, question: human.view(outcome.question) });
    if (!outcome.won) process.exitCode = 3;
    return;
  }
  report(outcome, human);
}

function report(outcome: Awaited<ReturnType<QuestionsService['answer']>>, human: QuestionsService): void {
  const view = human.view(outcome.question);
  if (outcome.won) {
    console.log(green(`Answer sent to session "${inline(view.session, 100)}".`));
    return;
  }
  process.exitCode = 3;
  console.log(
    yellow(
      view.status === 'answered'
        ? `Not sent: the question was already answered via ${view.answered_via} at ${view.answered_at}: ${inline(view.answer ?? '', 200)}`
        : `Not sent: the question is ${view.status}.`,
    ),
  );
}

function urgencyMark(view: QuestionView): string {
  return view.urgency === 'high' ? yellow('! ') : '  ';
}

function quote(text: string): string {
  return quoteBlock(text, 4_000, 40, '[… cut]');
}
