/** Error codes every tool may answer with; each carries a default hint for what to do next. */
export const ERROR_CODES = {
  SESSION_NOT_FOUND:
    'Start a session with collab_session_start, or omit session_id to use this connection’s session.',
  SESSION_INACTIVE: 'That session has ended or timed out. Start a new one with collab_session_start.',
  SESSION_AMBIGUOUS: 'Several live sessions have that name: use the session id (see collab_session_list).',
  CLAIM_NOT_FOUND: 'Check the id with collab_claims_list (status "all").',
  CLAIM_NOT_ACTIVE: 'The claim was already released or expired; nothing to do.',
  CLAIM_CONFLICT:
    'Another live session holds these files. Message it with collab_message_send, wait, or ask the user.',
  NOT_OWNER:
    'A connection acts only as its own session: omit session_id (it defaults to yours), or message the other session with collab_message_send.',
  MESSAGE_NOT_FOUND: 'Check the id with collab_message_list (unread_only false).',
  REALM_NOT_FOUND:
    'Create a realm with `session-collab realm init`, add this repo with `session-collab realm add-repo`, or pass realm.',
  REALM_NOT_REGISTERED:
    'Realm folders are registered on each machine: `session-collab realm register <folder>` (realm init does it).',
  CONTRACT_NOT_FOUND: 'See the realm’s contracts with realm_status.',
  PROJECT_NOT_FOUND: 'See the projects with list_projects, or create one with create_project.',
  WORK_NOT_FOUND: 'See the work items with get_pending_reviews or get_project_context.',
  REVIEW_NOT_FOUND: 'See the reviews of the item with get_review_feedback.',
  SUGGESTION_NOT_FOUND: 'See the suggestions with get_review_feedback.',
  INVALID_STATE: 'See what the item allows in the message, or its status with get_work_detail.',
  GATE_CLOSED: 'Get an approving review of the current version first.',
  NOT_ALLOWED: 'Another session has to do this (a reviewer other than the submitter).',
  QUESTION_NOT_FOUND:
    'See your questions with list_questions (status "all"); a person sees every pending one with `session-collab answer --list`.',
  RUN_NOT_FOUND: 'See the runs with get_execution_history.',
  TOKEN_NOT_FOUND: 'See the hub’s tokens with `session-collab token list`.',
  ID_AMBIGUOUS: 'Several ids start with what was given: give more of the id, or all of it.',
  INVALID_INPUT: 'Fix the named field and call again.',
  DB_BUSY: 'Another process held the database past the wait; call again in a moment.',
  DB_ERROR: 'Check that the session-collab home folder is writable; run `session-collab doctor`.',
  CONFIG_ERROR: 'Fix config.json in the session-collab home folder; run `session-collab doctor`.',
  INTERNAL_ERROR: 'This is a bug in session-collab; see logs/collab.log in its home folder.',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  hint: string;
}

export class CollabError extends Error {
  readonly code: ErrorCode;
  readonly hint: string;

  constructor(code: ErrorCode, message: string, hint?: string) {
    super(message);
    this.name = 'CollabError';
    this.code = code;
    this.hint = hint ?? ERROR_CODES[code];
  }

  toBody(): ErrorBody {
    return { code: this.code, message: this.message, hint: this.hint };
  }
}

export function invalidInput(message: string, hint?: string): CollabError {
  return new CollabError('INVALID_INPUT', message, hint);
}
