import { z } from 'zod';
import { inline, quoteBlock } from '../../core/fence.js';
import { QUESTION_STATUSES } from '../../core/questions.js';
import { PROGRESS_EVERY_MS, waitMs } from '../../core/waits.js';
import type { QuestionWithSession } from '../../store/questions-store.js';
import { idOf, list, sessionIdField, text } from '../fields.js';
import { type CallControls, defineTool } from '../tool-context.js';
import type { QuestionView } from './question-views.js';
import type { QuestionsService } from './questions-service.js';

const statusField = z.enum(QUESTION_STATUSES);
const channelField = z.enum(['telegram', 'terminal', 'web', 'elicitation']);
const waitField = z.number().int().min(0).max(110);

/** What ask_human and check_answers say of one question. */
const outcome = z.object({
  question_id: z.string(),
  status: statusField,
  answer: z.string().optional(),
  answered_via: channelField.optional(),
  answered_at: z.string().optional(),
  /** The person declined or dismissed the client's form (the question stays open elsewhere). */
  elicitation: z.string().optional(),
});

function outcomeOf(v: QuestionView): z.input<typeof outcome> {
  return {
    question_id: v.question_id,
    status: v.status,
    ...(v.answer !== null ? { answer: v.answer } : {}),
    ...(v.answered_via !== null ? { answered_via: v.answered_via } : {}),
    ...(v.answered_at !== null ? { answered_at: v.answered_at } : {}),
    ...(v.elicitation !== null ? { elicitation: v.elicitation } : {}),
  };
}

function outcomeText(o: z.output<typeof outcome>): string {
  switch (o.status) {
    case 'answered':
      return `Question ${o.question_id} answered via ${o.answered_via} at ${o.answered_at}:\n${quoteBlock(o.answer ?? '', 10_000, 200, '[… cut]')}`;
    case 'pending':
      return `Question ${o.question_id} is still pending${o.elicitation ? ` (the person ${o.elicitation} the form in the client)` : ''}. Carry on; the answer will come with a later tool response, or call check_answers.`;
    default:
      return `Question ${o.question_id} is ${o.status}.`;
  }
}

/**
 * Puts the question to the person in the client too, when it can show a form. An answer there is
 * recorded like any other (the first wins); a decline or dismissal is recorded and ends the wait.
 * Returns a stop function (the wait ended another way: the form is withdrawn).
 */
function elicitAlongside(
  human: QuestionsService,
  call: CallControls,
  question: { id: string; text: string; options: string[] | null },
  timeoutMs: number,
  declined: () => void,
): () => void {
  if (!call.elicit) return () => {};
  const controller = new AbortController();
  const abort = () => controller.abort();
  call.signal.addEventListener('abort', abort, { once: true });
  call
    .elicit({ message: question.text, options: question.options }, { signal: controller.signal, timeoutMs })
    .then(
      async (result) => {
        if (result.action === 'accept') await human.answer(question.id, result.answer, 'elicitation', null);
        else {
          await human.recordElicitation(question.id, result.action === 'decline' ? 'declined' : 'cancelled');
          declined();
        }
      },
      async () => {
        if (!controller.signal.aborted) await human.recordElicitation(question.id, 'failed');
      },
    )
    .catch(() => {}); // a database fault here leaves the question pending: nothing to undo
  return () => {
    call.signal.removeEventListener('abort', abort);
    controller.abort();
  };
}

export const askHuman = defineTool({
  name: 'ask_human',
  title: 'Ask a person',
  description:
    'Ask the person a question (Telegram, terminal, web page, this client). Waits up to wait_seconds for the answer, else returns pending: the answer then comes with a later tool response, or from check_answers.',
  kind: 'write',
  waits: true,
  waitDefault: ({ app }) => app.config.human_wait_seconds,
  input: z.strictObject({
    session_id: sessionIdField,
    question: text('messageChars'),
    options: list(text('titleChars'), 'listItems').optional().describe('Choices offered as buttons'),
    label: text('nameChars').optional().describe('What this is about, shown with the question'),
    urgency: z.enum(['low', 'normal', 'high']).default('normal'),
    wait_seconds: waitField.optional().describe('Default 45, at most 110'),
  }),
  output: outcome,
  async handler({ app, connection, call }, input) {
    const human = app.human;
    const asked = await human.ask(await connection.actor(input.session_id), {
      question: input.question,
      ...(input.options ? { options: input.options } : {}),
      ...(input.label ? { label: input.label } : {}),
      urgency: input.urgency,
    });
    const ms = waitMs(input.wait_seconds, app.config.human_wait_seconds, app.config.human_max_wait_seconds);
    const stopWaiting = new AbortController();
    const signals = call ? AbortSignal.any([call.signal, stopWaiting.signal]) : stopWaiting.signal;
    const withdraw =
      call && ms > 0
        ? elicitAlongside(
            human,
            call,
            { id: asked.id, text: asked.question, options: human.view(asked).options },
            ms,
            () => stopWaiting.abort(),
          )
        : () => {};
    try {
      await human.waitForAny([asked.id], ms, signals, progressTick(call, 'an answer'));
    } finally {
      withdraw();
    }
    return (await handOver(human, [asked.id], call))[0]!;
  },
  text: outcomeText,
});

/** Progress every few seconds while a call waits (when the client asked for progress). */
function progressTick(call: CallControls | undefined, what: string) {
  if (!call) return undefined;
  return {
    everyMs: PROGRESS_EVERY_MS,
    fn: (waited: number) =>
      call.progress(`Waiting for ${what} from a person (${Math.round(waited / 1000)} s)…`),
  };
}

/**
 * The questions as they stand now, answered ones marked as handed to their asker, unless the call
 * was cancelled (the client will not read this result: the answer then comes as a notification).
 */
async function handOver(
  human: QuestionsService,
  ids: string[],
  call: CallControls | undefined,
): Promise<Array<z.input<typeof outcome>>> {
  const rows: QuestionWithSession[] = [];
  for (const id of ids) rows.push(await human.get(id));
  if (!call?.signal.aborted) await human.markReturned(rows);
  return rows.map((r) => outcomeOf(human.view(r)));
}

export const checkAnswers = defineTool({
  name: 'check_answers',
  title: 'Check for answers',
  description:
    "Your questions' answers: those given, or your pending and newly answered ones. With wait_seconds, waits until one is answered.",
  kind: 'write',
  idempotent: true,
  marksOwnRead: true,
  waits: true,
  input: z.strictObject({
    session_id: sessionIdField,
    question_ids: list(idOf('question')).optional(),
    wait_seconds: waitField.default(0),
  }),
  output: z.object({ questions: z.array(outcome) }),
  async handler({ app, connection, call }, input) {
    const human = app.human;
    const session = await connection.actor(input.session_id);
    const targets = await human.targets(session, input.question_ids);
    const ready = targets.some((q) => q.status !== 'pending');
    if (!ready) {
      const ms = waitMs(input.wait_seconds, 0, app.config.human_max_wait_seconds);
      await human.waitForAny(
        targets.map((q) => q.id),
        ms,
        call?.signal,
        progressTick(call, 'answers'),
      );
    }
    return {
      questions: await handOver(
        human,
        targets.map((q) => q.id),
        call,
      ),
    };
  },
  text: (o) =>
    o.questions.length === 0 ? 'No open questions.' : o.questions.map((q) => outcomeText(q)).join('\n\n'),
});

export const listQuestions = defineTool({
  name: 'list_questions',
  title: 'List your questions',
  description: "This session's questions to a person, newest first.",
  kind: 'read',
  input: z.strictObject({
    session_id: sessionIdField,
    status: z.enum(['pending', 'answered', 'cancelled', 'expired', 'abandoned', 'all']).default('pending'),
    limit: z.number().int().min(1).max(200).default(50),
  }),
  output: z.object({
    questions: z.array(
      z.object({
        question_id: z.string(),
        status: statusField,
        question: z.string(),
        options: z.array(z.string()).nullable(),
        label: z.string().nullable(),
        urgency: z.enum(['low', 'normal', 'high']),
        asked_at: z.string(),
        answer: z.string().nullable(),
        answered_via: channelField.nullable(),
        answered_at: z.string().nullable(),
      }),
    ),
  }),
  async handler({ app, connection }, input) {
    const human = app.human;
    // A session sees only its own questions, as check_answers and cancel_question do.
    const session = await connection.actor(input.session_id);
    return {
      questions: (await human.list(session, input.status, input.limit)).map((q) => {
        const v = human.view(q);
        return {
          question_id: v.question_id,
          status: v.status,
          question: v.question,
          options: v.options,
          label: v.label,
          urgency: v.urgency,
          asked_at: v.asked_at,
          answer: v.answer,
          answered_via: v.answered_via,
          answered_at: v.answered_at,
        };
      }),
    };
  },
  text: (o) =>
    o.questions.length === 0
      ? 'No questions.'
      : o.questions
          .map(
            (q) =>
              `[${q.question_id}] ${q.status}: ${inline(q.question, 200)}${q.answer !== null ? `\n  answer (${q.answered_via}): ${inline(q.answer, 400)}` : ''}`,
          )
          .join('\n'),
});

export const cancelQuestion = defineTool({
  name: 'cancel_question',
  title: 'Cancel a question',
  description: 'Withdraw one of your pending questions; every channel shows it as cancelled.',
  kind: 'destructive',
  idempotent: true,
  input: z.strictObject({ session_id: sessionIdField, question_id: idOf('question') }),
  output: z.object({ question_id: z.string(), status: statusField }),
  async handler({ app, connection }, input) {
    const q = await app.human.cancel(await connection.actor(input.session_id), input.question_id);
    return { question_id: q.id, status: q.status };
  },
  text: (o) =>
    o.status === 'cancelled'
      ? `Question ${o.question_id} cancelled.`
      : `Question ${o.question_id} was already ${o.status}; nothing to cancel.`,
});

export const humanTools = [askHuman, checkAnswers, listQuestions, cancelQuestion];
