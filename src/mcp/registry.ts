import { CollabError } from '../core/errors.js';
import { claimTools } from '../features/claims/claim-tools.js';
import { decisionTools } from '../features/decisions/decision-tools.js';
import { messageTools } from '../features/messages/message-tools.js';
import { sessionTools } from '../features/sessions/session-tools.js';
import { TOOLSETS, type ToolDescriptor, type Toolset } from './tool.js';

/**
 * The tools of each toolset, in the order clients list them. Toolsets other than the default one
 * load when chosen: defining a tool builds its schemas, and every spawn of `serve` pays for what
 * it loads.
 */
const LOADERS: Record<Toolset, () => Promise<ToolDescriptor[]>> = {
  collab: async () => [...sessionTools, ...claimTools, ...messageTools, ...decisionTools] as ToolDescriptor[],
  realm: async () => {
    const [{ realmTools }, { notificationTools }] = await Promise.all([
      import('../features/realm/realm-tools.js'),
      import('../features/notifications/notification-tools.js'),
    ]);
    return [...realmTools, ...notificationTools] as ToolDescriptor[];
  },
  review: async () => (await import('../features/reviews/review-tools.js')).reviewTools as ToolDescriptor[],
};

/** The tools of the named toolsets; an unknown name is an error that lists the valid ones. */
export async function selectTools(toolsets: readonly string[]): Promise<ToolDescriptor[]> {
  const unknown = toolsets.filter((t) => !(TOOLSETS as readonly string[]).includes(t));
  if (unknown.length > 0) {
    throw new CollabError(
      'CONFIG_ERROR',
      `Unknown toolset ${unknown.map((t) => `"${t}"`).join(', ')}.`,
      `Available toolsets: ${TOOLSETS.join(', ')}.`,
    );
  }
  const chosen = TOOLSETS.filter((t) => toolsets.includes(t));
  return (await Promise.all(chosen.map((t) => LOADERS[t]()))).flat();
}

/** Every tool the product has (for its documentation). */
export function allTools(): Promise<ToolDescriptor[]> {
  return selectTools(TOOLSETS);
}
