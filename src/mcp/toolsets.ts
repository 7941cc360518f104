/**
 * The toolsets: the one table that serving, `--toolsets` (its help and its check), the server's
 * instructions and the docs all read. It imports nothing, so the CLI reads it for its help at no
 * cost; each toolset's tools are loaded by `registry.ts`, which has a loader for every id here.
 */
export interface Toolset {
  id: ToolsetId;
  /** One line, for `--toolsets` help and the docs. */
  description: string;
  /** Served when neither --toolsets nor config.json says otherwise. */
  default: boolean;
  /** What the server tells the client about this toolset (joined for the enabled ones). */
  instructions: string;
}

export type ToolsetId = 'collab' | 'realm' | 'review' | 'human' | 'agent';

export const TOOLSETS: readonly Toolset[] = [
  {
    id: 'collab',
    description: 'sessions, claims, checks, messages and decisions between sessions on one project',
    default: true,
    instructions:
      "Coordinates sessions that work on the same code. Before editing files, claim them (collab_claim); before deleting or rewriting, collab_check; if another session holds them, message it, wait for them (collab_wait), or ask the user; collab_wait also returns when news for you arrives, instead of ending your turn. Release claims when done. Read collab_message_list now and then. session_id may be omitted: it defaults to this connection's session.",
  },
  {
    id: 'realm',
    description: 'repos that share versioned contracts: contract changes, RFC worktrees, PR status',
    default: false,
    instructions:
      'Realm: in a repo of a realm, session_start ties this session to an RFC; realm_status and contract_get show the contracts this repo provides and consumes; contract changes arrive as notifications; worktree_create and pr_status work across the domain peers.',
  },
  {
    id: 'review',
    description: 'a worker submits work, a reviewer approves or requests changes with located suggestions',
    default: false,
    instructions:
      'Review: a worker submits work (submit_work) and answers reviews (respond_to_review, update_work); a reviewer takes get_pending_reviews, reads get_work_detail and decides with submit_review and its suggestions. Every version and word is kept (get_history, get_conversation).',
  },
  {
    id: 'human',
    description: 'ask a person and get the answer back: Telegram, the terminal, the web page or this client',
    default: false,
    instructions:
      'Human: when a decision needs a person, ask_human (with options when there are a few answers). It waits a while; if the answer is still pending, carry on with other work: the answer comes with a later tool response, or call check_answers. cancel_question when it no longer matters.',
  },
  {
    id: 'agent',
    description: 'hand work to another agent CLI (claude, codex, gemini) and continue its conversation',
    default: false,
    instructions:
      "Agent: execute_claude hands a prompt to claude (provider codex or gemini too) and continues that conversation on the next call; name independent conversations with conversation. A long run returns running: poll execution_status. get_execution_history reads and searches past runs; set_current_session goes back to an earlier point (claude). These tools act as this connection's session.",
  },
];

export const TOOLSET_IDS = TOOLSETS.map((t) => t.id);
export const DEFAULT_TOOLSETS = TOOLSETS.filter((t) => t.default).map((t) => t.id);
