/**
 * Questions a session puts to a person: their states, the channels an answer comes through, how
 * long a tool call may wait for one, and the short codes Telegram buttons carry.
 */

/**
 * pending → answered (the first answer, from any channel), cancelled (by the asker), expired (past
 * its time) or abandoned (its session ended). Only a pending question changes.
 */
export const QUESTION_STATUSES = ['pending', 'answered', 'cancelled', 'expired', 'abandoned'] as const;
export type QuestionStatus = (typeof QUESTION_STATUSES)[number];

export type Urgency = 'low' | 'normal' | 'high';

/** Where an answer came from. */
export type AnswerChannel = 'telegram' | 'terminal' | 'web' | 'elicitation';

const CHANNEL_NAMES: Record<AnswerChannel, string> = {
  telegram: 'Telegram',
  terminal: 'the terminal',
  web: 'the web page',
  elicitation: 'the client',
};

/** "answered in Telegram at 10:32": what the other channels show once a question is closed. */
export function closedNote(
  status: Exclude<QuestionStatus, 'pending'>,
  via: AnswerChannel | null,
  at: number,
): string {
  const time = new Date(at).toISOString().slice(11, 16);
  switch (status) {
    case 'answered':
      return `answered in ${via ? CHANNEL_NAMES[via] : 'another channel'} at ${time} UTC`;
    case 'cancelled':
      return `cancelled by the session at ${time} UTC`;
    case 'expired':
      return `expired at ${time} UTC`;
    case 'abandoned':
      return `abandoned at ${time} UTC: the session that asked has ended`;
  }
}

/**
 * What a Telegram button says when pressed (Telegram allows 64 bytes):
 * - `q:<question>:<n>`: answer the question with its option n;
 * - `p:<question>`: show this pending question, to answer it;
 * - `d:<message>:<question>`: answer the question with the text of that earlier message (a reply
 *   that replied to nothing, attached afterwards);
 * - `l`: list the pending questions.
 */
export type ButtonAction =
  | { kind: 'option'; questionId: string; option: number }
  | { kind: 'pick'; questionId: string }
  | { kind: 'draft'; messageId: number; questionId: string }
  | { kind: 'list' };

export const CALLBACK_DATA_BYTES = 64;

export function encodeButton(action: ButtonAction): string {
  const data =
    action.kind === 'option'
      ? `q:${action.questionId}:${action.option}`
      : action.kind === 'pick'
        ? `p:${action.questionId}`
        : action.kind === 'draft'
          ? `d:${action.messageId}:${action.questionId}`
          : 'l';
  if (Buffer.byteLength(data) > CALLBACK_DATA_BYTES)
    throw new Error(`button data longer than ${CALLBACK_DATA_BYTES} bytes: ${data}`);
  return data;
}

/** The action a button's data names; null for anything else (data from elsewhere is ignored). */
export function decodeButton(data: string | undefined): ButtonAction | null {
  if (!data || Buffer.byteLength(data) > CALLBACK_DATA_BYTES) return null;
  if (data === 'l') return { kind: 'list' };
  let m = /^q:([0-9a-f-]{36}):(\d{1,3})$/.exec(data);
  if (m) return { kind: 'option', questionId: m[1]!, option: Number(m[2]) };
  m = /^p:([0-9a-f-]{36})$/.exec(data);
  if (m) return { kind: 'pick', questionId: m[1]! };
  m = /^d:(\d{1,15}):([0-9a-f-]{36})$/.exec(data);
  if (m) return { kind: 'draft', messageId: Number(m[1]), questionId: m[2]! };
  return null;
}

/** "3 min", "2 h", "5 d": how long a question has waited, for a person scanning a list. */
export function age(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.floor(hours / 24)} d`;
}
