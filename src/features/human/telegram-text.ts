/**
 * What the bot says: a question as a message (who asks, its urgency and age, its options as
 * buttons), how a closed one ends, and what a person is told of their answer.
 */
import { basename } from 'node:path';
import { inline } from '../../core/fence.js';
import { age, closedNote, encodeButton } from '../../core/questions.js';
import type { Keyboard } from '../../integrations/telegram-api.js';
import type { QuestionWithSession } from '../../store/questions-store.js';
import { optionsOf } from './question-views.js';

/** Who asks: the label (when given) or the session's name, with its repo and branch. */
function asker(q: QuestionWithSession): string {
  const where = `${basename(q.session_worktree)}${q.session_branch ? `@${q.session_branch}` : ''}`;
  return `${q.label ? `${q.label} (${q.session_name})` : q.session_name} · ${where}`;
}

export function questionText(q: QuestionWithSession, now: number): string {
  const urgency = q.urgency === 'high' ? ' · URGENT' : q.urgency === 'low' ? ' · low priority' : '';
  const how = optionsOf(q)
    ? 'Tap a choice, or reply to this message with your own answer.'
    : 'Reply to this message with your answer.';
  const body = q.question.length > 3_000 ? `${q.question.slice(0, 2_999)}…` : q.question;
  return `❓ ${asker(q)}${urgency} · ${age(now - q.created_at)}\n\n${body}\n\n${how}`;
}

export function questionButtons(q: QuestionWithSession): Keyboard | undefined {
  const options = optionsOf(q);
  if (!options) return undefined;
  return {
    inline: options.map((text, i) => [
      { text, data: encodeButton({ kind: 'option', questionId: q.id, option: i + 1 }) },
    ]),
  };
}

function noteOf(q: QuestionWithSession): string {
  return closedNote(q.status as Exclude<typeof q.status, 'pending'>, q.answered_via, q.closed_at ?? 0);
}

/** The line a closed question's messages end with. */
export function closedText(q: QuestionWithSession): string {
  return q.status === 'answered' ? `✅ ${noteOf(q)}: ${inline(q.answer ?? '', 500)}` : `— ${noteOf(q)}`;
}

/** "already answered in the terminal at 10:32 UTC: yes", for a person whose answer came too late. */
export function already(q: QuestionWithSession): string {
  return `already ${noteOf(q)}${q.status === 'answered' ? `: ${inline(q.answer ?? '', 200)}` : ''}`;
}

export function buttonLabel(q: QuestionWithSession, now: number): string {
  return inline(`${q.label ?? q.session_name}: ${q.question} (${age(now - q.created_at)})`, 60);
}

/** What a person is told of their answer: sent, or why not. */
export function confirmation(won: boolean, q: QuestionWithSession, text?: string): string {
  if (won) return `✓ Sent to "${q.session_name}"${text ? `: ${inline(text, 200)}` : ''}`;
  return `Not sent: the question was ${already(q)}.`;
}
