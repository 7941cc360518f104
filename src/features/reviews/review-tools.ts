/** The review toolset: work submitted, reviewed, answered and searched (its projects: review-project-tools.ts). */
import { z } from 'zod';
import { inline, shown } from '../../core/fence.js';
import { STATUSES, VERDICTS } from '../../core/work-status.js';
import { idField, idOf, list, text } from '../fields.js';
import { defineTool } from '../tool-context.js';
import { item, loose, me, phase, project, quoteAll, suggestion, svc, workType } from './review-fields.js';
import {
  archiveProject,
  createProject,
  getProject,
  listProjects,
  updateProject,
} from './review-project-tools.js';
import { itemView } from './review-views.js';

export const submitWork = defineTool({
  name: 'submit_work',
  title: 'Submit work for review',
  description: 'Worker: submit a design, code, tests, docs… for review. Returns the work item id and status.',
  kind: 'write',
  input: z.strictObject({
    projectId: idField.optional().describe('Default: this session’s repository'),
    type: workType,
    phase,
    title: text('titleChars'),
    description: text('descriptionChars', 0).optional(),
    content: text('workContentChars'),
    metadata: z
      .strictObject({
        filename: text('nameChars', 0).optional(),
        language: text('nameChars', 0).optional(),
        userRequest: text('messageChars', 0).optional(),
        dependencies: list(text('nameChars')).optional(),
      })
      .optional(),
    draft: z.boolean().optional().describe('Keep it a draft, not yet for review'),
  }),
  output: item,
  handler: async (ctx, input) => svc(ctx).submitWork(await me(ctx), input),
  text: (o) => `Submitted ${o.id} (v${o.version}), ${o.status}.`,
});

export const getReviewFeedback = defineTool({
  name: 'get_review_feedback',
  title: 'Review feedback',
  description: 'Worker: the reviews of a work item, with suggestions and responses.',
  kind: 'read',
  input: z.strictObject({ workItemId: idOf('work_item') }),
  output: z.object({ work_item: item, reviews: z.array(loose), open_suggestions: z.number() }),
  handler: async (ctx, input) => ({
    work_item: itemView(await svc(ctx).item(input.workItemId)),
    ...(await svc(ctx).feedback(input.workItemId)),
  }),
  text: (o) =>
    [
      `${shown(o.work_item.title, 120)} (${o.work_item.id}) v${o.work_item.version}: ${o.work_item.status}; ${o.open_suggestions} open suggestion(s).`,
      ...o.reviews.map(
        (r) =>
          `- ${inline(String(r.reviewer), 60)} on v${r.version}: ${r.verdict} — ${inline(String(r.summary ?? ''), 2000)}`,
      ),
    ].join('\n'),
});

export const respondToReview = defineTool({
  name: 'respond_to_review',
  title: 'Respond to a review',
  description: 'Worker: answer a review (acknowledged, will_fix, need_discussion, disagree).',
  kind: 'write',
  input: z.strictObject({
    workItemId: idOf('work_item'),
    reviewId: idOf('review'),
    response: text('messageChars'),
    action: z.enum(['acknowledged', 'will_fix', 'need_discussion', 'disagree']),
  }),
  output: z.object({
    response_id: z.string(),
    review_id: z.string(),
    work_item_id: z.string(),
    action: z.string(),
  }),
  handler: async (ctx, input) => svc(ctx).respond(await me(ctx), input),
  text: (o) => `Response recorded (${o.action}).`,
});

export const updateWork = defineTool({
  name: 'update_work',
  title: 'Update work',
  description:
    'Worker: a new version (content), a later phase, status "pending_review" (a draft sent for review) or "merged"; phase and merge need an approval of the current version.',
  kind: 'write',
  input: z.strictObject({
    workItemId: idOf('work_item'),
    content: text('workContentChars').optional(),
    changeDescription: text('messageChars'),
    title: text('titleChars').optional(),
    phase: phase.optional(),
    status: z.enum(['pending_review', 'merged']).optional(),
  }),
  output: item.extend({ auto_approved: z.boolean() }),
  handler: async (ctx, input) => svc(ctx).updateWork(await me(ctx), input),
  text: (o) =>
    `${o.id} is v${o.version}, ${o.status} (${o.phase})${o.auto_approved ? ' — approved automatically' : ''}.`,
});

export const markSuggestionResolved = defineTool({
  name: 'mark_suggestion_resolved',
  title: 'Resolve a suggestion',
  description: 'Worker: accept, reject or partially accept a suggestion.',
  kind: 'write',
  input: z.strictObject({
    suggestionId: idOf('suggestion'),
    resolution: z.enum(['accepted', 'rejected', 'partially_accepted']),
    comment: text('messageChars', 0).optional(),
  }),
  output: z.object({ id: z.string(), status: z.string() }).passthrough(),
  handler: async (ctx, input) => svc(ctx).resolveSuggestion(await me(ctx), input),
  text: (o) => `Suggestion ${o.id}: ${o.status}.`,
});

export const getPendingReviews = defineTool({
  name: 'get_pending_reviews',
  title: 'Work awaiting review',
  description: 'Reviewer: items awaiting review, except your own.',
  kind: 'read',
  input: z.strictObject({
    projectId: idField.optional(),
    type: workType.optional(),
    phase: phase.optional(),
  }),
  output: z.object({ work_items: z.array(item), more: z.number().optional() }),
  handler: async (ctx, input) => svc(ctx).pendingReviews(await me(ctx), input),
  text: (o) =>
    o.work_items.map((w) => `${w.id} ${shown(w.title, 120)} v${w.version} (${w.status})`).join('\n') ||
    'Nothing awaits review.',
});

export const getWorkDetail = defineTool({
  name: 'get_work_detail',
  title: 'Work item detail',
  description:
    'Reviewer: an item (opening it for review), its reviews; with includeHistory, its revisions (their contents newest first, up to 1,000,000 characters together) and a diff (diffFrom/diffTo, default the last two).',
  kind: 'write',
  input: z.strictObject({
    workItemId: idOf('work_item'),
    includeHistory: z.boolean().default(false),
    diffFrom: z.number().int().positive().optional(),
    diffTo: z.number().int().positive().optional(),
  }),
  output: item.extend({
    reviews: z.array(loose),
    open_suggestions: z.number(),
    revisions: z.array(loose).optional(),
    revisions_without_content: z.number().optional(),
    diff: z.string().nullable().optional(),
  }),
  handler: async (ctx, input) =>
    svc(ctx).workDetail(await me(ctx), input.workItemId, input.includeHistory, {
      from: input.diffFrom,
      to: input.diffTo,
    }),
  text: (o) =>
    // The content and its changes are another session's words: quoted line by line.
    `${shown(o.title, 120)} (${o.id}) v${o.version}, ${o.status}:\n${quoteAll(String(o.content))}${o.diff ? `\n\nChanges:\n${quoteAll(String(o.diff))}` : ''}${o.revisions_without_content ? `\n\nThe ${o.revisions_without_content} oldest revision(s) are listed without their content (over 1,000,000 characters with the newer ones); diffFrom/diffTo compare any two versions.` : ''}`,
});

export const submitReview = defineTool({
  name: 'submit_review',
  title: 'Submit a review',
  description:
    'Reviewer: approve, request changes, or comment, with located suggestions. Records the version reviewed: the one named, else the one you last read with get_work_detail (a review of an older version than the current one does not change the status).',
  kind: 'write',
  input: z.strictObject({
    workItemId: idOf('work_item'),
    verdict: z.enum(VERDICTS),
    summary: text('messageChars'),
    suggestions: list(suggestion).optional(),
    version: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        'The version you reviewed (default: the one you last read with get_work_detail, else the current one)',
      ),
  }),
  output: z.object({
    review_id: z.string(),
    work_item_id: z.string(),
    verdict: z.string(),
    version: z.number(),
    current_version: z.number(),
    stale: z.boolean(),
    status: z.enum(STATUSES),
    suggestions: z.array(loose),
  }),
  handler: async (ctx, input) => svc(ctx).submitReview(await me(ctx), input),
  text: (o) =>
    o.stale
      ? `Review ${o.review_id} (${o.verdict}) of v${o.version}, recorded; v${o.current_version} is current, so it does not change the status (the item is ${o.status}). Read v${o.current_version} (get_work_detail ${o.work_item_id} with includeHistory for what changed) and review it.`
      : `Review ${o.review_id} (${o.verdict}) of v${o.version}; the item is ${o.status}.`,
});

export const addSuggestion = defineTool({
  name: 'add_suggestion',
  title: 'Add a suggestion',
  description: 'Reviewer: add a located suggestion to an existing review.',
  kind: 'write',
  input: suggestion.extend({ reviewId: idOf('review') }),
  output: z.object({ id: z.string(), status: z.string() }).passthrough(),
  handler: async (ctx, { reviewId, ...s }) => svc(ctx).addSuggestion(await me(ctx), reviewId, s),
  text: (o) => `Suggestion ${o.id} added.`,
});

export const getProjectContext = defineTool({
  name: 'get_project_context',
  title: 'Project context',
  description: 'A project with all its work items, their latest review and open suggestions.',
  kind: 'read',
  input: z.strictObject({ projectId: idField, includeResolved: z.boolean().default(false) }),
  output: z.object({ project, work_items: z.array(item), more: z.number().optional() }),
  handler: (ctx, input) => svc(ctx).projectContext(input.projectId, input.includeResolved),
  text: (o) =>
    o.work_items.map((w) => `${w.id} ${shown(w.title, 120)} v${w.version} ${w.status}`).join('\n') ||
    'No work items.',
});

export const getHistory = defineTool({
  name: 'get_history',
  title: 'History',
  description:
    'Every event (submit, review, suggestion, response, update, resolution), oldest first; page with cursor.',
  kind: 'read',
  input: z.strictObject({
    projectId: idField.optional(),
    workItemId: idOf('work_item').optional(),
    limit: z.number().int().min(1).max(500).default(50),
    cursor: z.number().int().nonnegative().optional(),
  }),
  output: z.object({ events: z.array(loose), next_cursor: z.number().nullable() }),
  handler: (ctx, input) => svc(ctx).history(input),
  text: (o) =>
    o.events.map((e) => `${e.at} ${inline(String(e.actor), 60)} ${e.kind}`).join('\n') || 'No history.',
});

export const getConversation = defineTool({
  name: 'get_conversation',
  title: 'Worker ↔ reviewer conversation',
  description: 'The whole dialogue between worker and reviewer: detailed, summary or timeline.',
  kind: 'read',
  input: z.strictObject({
    projectId: idField.optional(),
    workItemId: idOf('work_item').optional(),
    format: z.enum(['detailed', 'summary', 'timeline']).default('detailed'),
    limit: z.number().int().min(1).max(1000).default(100),
  }),
  output: z.object({ format: z.string(), entries: z.array(loose), text: z.string() }),
  handler: (ctx, input) => svc(ctx).conversation(input),
  text: (o) => (o.text ? quoteAll(o.text) : 'No conversation yet.'),
});

export const searchWork = defineTool({
  name: 'search_work',
  title: 'Search work',
  description:
    'Full-text search over titles, descriptions, content, review summaries and suggestions; best match first.',
  kind: 'read',
  input: z.strictObject({
    projectId: idField.optional(),
    query: text('queryChars'),
    type: workType.optional(),
    status: z.enum(STATUSES).optional(),
    limit: z.number().int().min(1).max(200).default(20),
  }),
  output: z.object({ work_items: z.array(item) }),
  handler: async (ctx, input) => ({ work_items: await svc(ctx).search(input.query, input) }),
  text: (o) =>
    o.work_items.map((w) => `${w.id} ${shown(w.title, 120)} (${w.status})`).join('\n') || 'Nothing found.',
});

export const reviewTools = [
  createProject,
  getProject,
  listProjects,
  updateProject,
  archiveProject,
  submitWork,
  getReviewFeedback,
  respondToReview,
  updateWork,
  markSuggestionResolved,
  getPendingReviews,
  getWorkDetail,
  submitReview,
  addSuggestion,
  getProjectContext,
  getHistory,
  getConversation,
  searchWork,
];
