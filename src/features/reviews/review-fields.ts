/** What the review toolset's tools share: their schemas of items, projects and suggestions, and how they reach the service. */
import { z } from 'zod';
import { quoteBlock } from '../../core/fence.js';
import { PHASES, SEVERITIES, STATUSES, SUGGESTION_TYPES, WORK_TYPES } from '../../core/work-status.js';
import { text } from '../fields.js';
import type { ToolContext } from '../tool-context.js';
import type { ItemView } from './review-views.js';

export const workType = z.enum(WORK_TYPES);
export const phase = z.enum(PHASES);
export const projectStatus = z.enum(['active', 'completed', 'archived']);
export const loose = z.object({}).passthrough();
export const suggestion = z.strictObject({
  type: z.enum(SUGGESTION_TYPES),
  severity: z.enum(SEVERITIES),
  title: text('titleChars'),
  explanation: text('descriptionChars'),
  location: z
    .strictObject({
      startLine: z.number().int().positive().optional(),
      endLine: z.number().int().positive().optional(),
      section: text('titleChars', 0).optional(),
    })
    .optional(),
  currentContent: text('workContentChars', 0).optional(),
  suggestedContent: text('workContentChars', 0).optional(),
});
export const project = z.object({ id: z.string(), name: z.string(), status: projectStatus }).passthrough();
export const item = z
  .object({
    id: z.string(),
    projectId: z.string(),
    type: workType,
    phase,
    title: z.string(),
    description: z.string().nullable(),
    content: z.string(),
    metadata: z.record(z.string(), z.unknown()),
    status: z.enum(STATUSES),
    version: z.number(),
    submittedBy: z.string(),
    submittedById: z.string().nullable(),
    submittedAt: z.string(),
    updatedAt: z.string(),
  })
  .passthrough() satisfies z.ZodType<ItemView>;

export const svc = (ctx: ToolContext) => ctx.app.reviews;
/** The connection's session (awaited: finding or starting it may read the store). */
export const me = async (ctx: ToolContext) => ctx.connection.current();

/** Text other sessions wrote, whole (it is bounded where it is stored), quoted line by line. */
export const quoteAll = (text: string) => quoteBlock(text, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
