import { CollabError } from '../core/errors.js';
import { claimTools } from '../features/claims/claim-tools.js';
import { decisionTools } from '../features/decisions/decision-tools.js';
import { landTools } from '../features/landing/land-tools.js';
import { messageTools } from '../features/messages/message-tools.js';
import { sessionTools } from '../features/sessions/session-tools.js';
import type { Tool } from '../features/tool-context.js';
import { waitTools } from '../features/waits/wait-tools.js';
import { TOOLSET_IDS, TOOLSETS, type Toolset, type ToolsetId } from './toolsets.js';

/**
 * The tools of each toolset (of the table in toolsets.ts), in the order clients list them. Toolsets
 * other than the default one load when chosen: defining a tool builds its schemas, and every spawn
 * of `serve` pays for what it loads.
 */
const LOAD: Record<ToolsetId, () => Promise<Tool[]>> = {
  collab: async () =>
    [...sessionTools, ...claimTools, ...messageTools, ...decisionTools, ...waitTools, ...landTools] as Tool[],
  realm: async () => {
    const [{ realmTools }, { notificationTools }] = await Promise.all([
      import('../features/realm/realm-tools.js'),
      import('../features/notifications/notification-tools.js'),
    ]);
    return [...realmTools, ...notificationTools] as Tool[];
  },
  review: async () => (await import('../features/reviews/review-tools.js')).reviewTools as Tool[],
  human: async () => (await import('../features/human/human-tools.js')).humanTools as Tool[],
  agent: async () => (await import('../features/agents/agent-tools.js')).agentTools as Tool[],
};

/** What a server serves: the tools of the chosen toolsets and the instructions that go with them. */
export interface Selection {
  toolsets: Toolset[];
  tools: Tool[];
  instructions: string;
}

/**
 * The chosen toolsets, in table order; an unknown name is an error that lists the valid ones.
 * `readOnly` keeps the tools that change nothing another session or a person sees: those that change
 * nothing (kind `read`), and those that only mark what the caller has read (`marksOwnRead`).
 */
export async function select(
  ids: readonly string[],
  options: { readOnly?: boolean } = {},
): Promise<Selection> {
  const unknown = ids.filter((t) => !(TOOLSET_IDS as string[]).includes(t));
  if (unknown.length > 0) {
    throw new CollabError(
      'CONFIG_ERROR',
      `Unknown toolset ${unknown.map((t) => `"${t}"`).join(', ')}.`,
      `Available toolsets: ${TOOLSET_IDS.join(', ')}.`,
    );
  }
  const toolsets = TOOLSETS.filter((t) => ids.includes(t.id));
  const tools = (await Promise.all(toolsets.map((t) => LOAD[t.id]()))).flat();
  return {
    toolsets,
    tools: options.readOnly ? tools.filter((t) => t.kind === 'read' || t.marksOwnRead === true) : tools,
    instructions: [
      ...toolsets.map((t) => t.instructions),
      ...(options.readOnly
        ? [
            'Read-only: only tools that change nothing other sessions or people see are served (reading your messages marks them read for you).',
          ]
        : []),
    ].join('\n\n'),
  };
}

/** The tools of the named toolsets. */
export async function selectTools(ids: readonly string[]): Promise<Tool[]> {
  return (await select(ids)).tools;
}

/** Every toolset with its tools (for the documentation and the schema snapshots). */
export async function everyToolset(): Promise<Array<{ toolset: Toolset; tools: Tool[] }>> {
  return Promise.all(TOOLSETS.map(async (toolset) => ({ toolset, tools: await LOAD[toolset.id]() })));
}

/** Every tool the product has. */
export async function allTools(): Promise<Tool[]> {
  return (await everyToolset()).flatMap((t) => t.tools);
}
