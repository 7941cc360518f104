import { z } from 'zod';
import { inline, shown } from '../../core/fence.js';
import { cursorField, limitField, moreNote, nextCursorField, sessionIdField, text } from '../fields.js';
import { defineTool } from '../tool-context.js';
import { DECISION_CATEGORIES, type DecisionView } from './decisions-service.js';

const category = z.enum(DECISION_CATEGORIES);
const decision = z.object({
  decision_id: z.string(),
  category: z.string(),
  title: z.string(),
  description: z.string(),
  session: z.string(),
  session_id: z.string(),
  created_at: z.string(),
}) satisfies z.ZodType<DecisionView>;

export const decisionAdd = defineTool({
  name: 'collab_decision_add',
  title: 'Record a decision',
  description: 'Record a design decision for the other sessions.',
  kind: 'write',
  input: z.strictObject({
    session_id: sessionIdField,
    category: category.default('other'),
    title: text('titleChars'),
    description: text('descriptionChars'),
  }),
  output: z.object({
    decision_id: z.string(),
    category: z.string(),
    title: z.string(),
    created_at: z.string(),
  }),
  async handler({ app, connection }, input) {
    const d = await app.decisions.add(await connection.actor(input.session_id), input);
    return { decision_id: d.decision_id, category: d.category, title: d.title, created_at: d.created_at };
  },
  text: (o) => `Decision recorded (${o.decision_id}): [${o.category}] ${o.title}`,
});

export const decisionList = defineTool({
  name: 'collab_decision_list',
  title: 'List decisions',
  description: 'Decisions in this project: newest first, or best match for a query.',
  kind: 'read',
  input: z.strictObject({
    category: category.optional(),
    limit: limitField(20, 200),
    query: text('queryChars').optional(),
    cursor: cursorField,
  }),
  output: z.object({ decisions: z.array(decision), next_cursor: nextCursorField }),
  async handler({ app, connection }, input) {
    const page = await app.decisions.list(await connection.current(), input);
    return { decisions: page.items, next_cursor: page.next_cursor };
  },
  text: (o) =>
    o.decisions.length === 0
      ? 'No decisions.'
      : o.decisions
          .map(
            (d) =>
              `[${inline(d.category, 60)}] ${shown(d.title, 200)} — ${inline(d.description, 2000)} ("${inline(d.session, 60)}", ${d.created_at})`,
          )
          .join('\n') + moreNote(o.next_cursor),
});

export const decisionTools = [decisionAdd, decisionList];
