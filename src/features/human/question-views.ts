/** A question as tools, the CLI and the channels show it. */
import type { AnswerChannel, QuestionStatus, Urgency } from '../../core/questions.js';
import { iso } from '../../core/time.js';
import type { QuestionRow, QuestionWithSession } from '../../store/questions-store.js';

/** A question as tools, the CLI and the channels show it. */
export interface QuestionView {
  question_id: string;
  status: QuestionStatus;
  question: string;
  options: string[] | null;
  label: string | null;
  urgency: Urgency;
  asked_at: string;
  session_id: string;
  session: string;
  answer: string | null;
  answered_via: AnswerChannel | null;
  answered_at: string | null;
  closed_at: string | null;
  /** What the person did with the client's own form when it was not an answer (declined, cancelled). */
  elicitation: string | null;
}

export function questionView(q: QuestionWithSession): QuestionView {
  return {
    question_id: q.id,
    status: q.status,
    question: q.question,
    options: optionsOf(q),
    label: q.label,
    urgency: q.urgency,
    asked_at: iso(q.created_at),
    session_id: q.session_id,
    session: q.session_name,
    answer: q.answer,
    answered_via: q.answered_via,
    answered_at: q.status === 'answered' && q.closed_at !== null ? iso(q.closed_at) : null,
    closed_at: q.closed_at === null ? null : iso(q.closed_at),
    elicitation: q.elicitation,
  };
}

/** A question's options, or null when it is free text. */
export function optionsOf(q: Pick<QuestionRow, 'options'>): string[] | null {
  return q.options === null ? null : (JSON.parse(q.options) as string[]);
}
