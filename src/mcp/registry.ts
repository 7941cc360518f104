import { CollabError } from '../core/errors.js';
import { claimTools } from '../features/claims/claim-tools.js';
import { decisionTools } from '../features/decisions/decision-tools.js';
import { messageTools } from '../features/messages/message-tools.js';
import { notificationTools } from '../features/notifications/notification-tools.js';
import { realmTools } from '../features/realm/realm-tools.js';
import { reviewTools } from '../features/reviews/review-tools.js';
import { sessionTools } from '../features/sessions/session-tools.js';
import { TOOLSETS, type ToolDescriptor, type Toolset } from './tool.js';

/** Every tool the product has, in the order clients list them. */
export const ALL_TOOLS: ToolDescriptor[] = [
  ...sessionTools,
  ...claimTools,
  ...messageTools,
  ...decisionTools,
  ...realmTools,
  ...reviewTools,
  ...notificationTools,
] as ToolDescriptor[];

/** The tools of the named toolsets; an unknown name is an error that lists the valid ones. */
export function selectTools(toolsets: readonly string[]): ToolDescriptor[] {
  const unknown = toolsets.filter((t) => !(TOOLSETS as readonly string[]).includes(t));
  if (unknown.length > 0) {
    throw new CollabError(
      'CONFIG_ERROR',
      `Unknown toolset ${unknown.map((t) => `"${t}"`).join(', ')}.`,
      `Available toolsets: ${TOOLSETS.join(', ')}.`,
    );
  }
  return ALL_TOOLS.filter((t) => toolsets.includes(t.toolset as Toolset));
}
