import type { AgentsConfig } from '../../app/config.js';
import type { AgentProvider } from '../../core/agent-events.js';
import { CollabError } from '../../core/errors.js';

/** How one agent CLI is run: its arguments for a new or a continued conversation, prompt on stdin. */
export interface ProviderAdapter {
  provider: AgentProvider;
  /** The permission setting in force, as the CLI's flag says it. */
  permission(config: AgentsConfig): string;
  args(config: AgentsConfig, resume: string | null): string[];
  /**
   * Whether the conversation can continue from an earlier point than its latest: claude forks a
   * new id at every call; codex appends to one thread.
   */
  canGoBack: boolean;
  /**
   * Whether the CLI keeps its conversations per working folder (a resume from another folder finds
   * none): a continued call then runs in the folder its conversation ran in.
   */
  sessionsPerFolder: boolean;
}

const claude: ProviderAdapter = {
  provider: 'claude',
  permission: (c) => `--permission-mode ${c.claude_permission_mode}`,
  // Every continued call forks: each call's session id stays a fixed point of the conversation.
  args: (c, resume) => [
    '-p',
    '--output-format',
    'stream-json',
    '--verbose',
    '--permission-mode',
    c.claude_permission_mode,
    ...(resume ? [`--resume=${resume}`, '--fork-session'] : []),
  ],
  canGoBack: true,
  // ~/.claude/projects/<folder>/<session>.jsonl
  sessionsPerFolder: true,
};

const codex: ProviderAdapter = {
  provider: 'codex',
  permission: (c) => `--sandbox ${c.codex_sandbox}`,
  // `-` reads the prompt from stdin.
  args: (c, resume) => [
    'exec',
    '--json',
    '--sandbox',
    c.codex_sandbox,
    ...(resume ? ['resume', resume] : []),
    '-',
  ],
  canGoBack: false,
  // ~/.codex/sessions/<date>/rollout-…-<thread>.jsonl, found from any folder
  sessionsPerFolder: false,
};

const gemini: ProviderAdapter = {
  provider: 'gemini',
  permission: (c) => `--approval-mode ${c.gemini_approval_mode}`,
  args: (c, resume) => [
    '--output-format',
    'stream-json',
    '--approval-mode',
    c.gemini_approval_mode,
    ...(resume ? [`--resume=${resume}`] : []),
  ],
  canGoBack: false,
  // ~/.gemini/tmp/<folder hash>/chats/
  sessionsPerFolder: true,
};

export const PROVIDERS: Record<AgentProvider, ProviderAdapter> = { claude, codex, gemini };

export function adapterOf(provider: AgentProvider): ProviderAdapter {
  const adapter = PROVIDERS[provider];
  if (!adapter)
    throw new CollabError('INVALID_INPUT', `Unknown provider "${provider}".`, 'Use claude, codex or gemini.');
  return adapter;
}
