import { z } from 'zod';
import { cursorField, limitField, moreNote, nextCursorField } from '../fields.js';
import { defineTool } from '../tool-context.js';

export const notificationsList = defineTool({
  name: 'notifications_list',
  title: 'List notifications',
  description:
    'Notifications for this session (messages, overlapping claims, ended neighbours, contract and binding changes), newest first. Pending ones also arrive with every tool response.',
  kind: 'read',
  input: z.strictObject({
    state: z.enum(['pending', 'seen', 'expired', 'all']).default('all'),
    type: z.string().min(1).optional().describe('e.g. message, claim_conflict, contract_updated'),
    limit: limitField(50, 500),
    cursor: cursorField,
  }),
  output: z.object({
    notifications: z.array(
      z
        .object({
          id: z.string(),
          type: z.string(),
          state: z.enum(['pending', 'seen', 'expired']),
          count: z.number(),
          created_at: z.string(),
          updated_at: z.string(),
        })
        .passthrough(),
    ),
    next_cursor: nextCursorField,
  }),
  async handler({ app, connection }, input) {
    const page = await app.notifications.list(
      (await connection.current()).id,
      input.state,
      input.type,
      input.limit,
      input.cursor,
    );
    return { notifications: page.items, next_cursor: page.next_cursor };
  },
  text: (o) =>
    o.notifications.length === 0
      ? 'No notifications.'
      : o.notifications
          .map((n) => `[${n.state}] ${n.type} ${n.created_at}${n.count > 1 ? ` (${n.count}×)` : ''}`)
          .join('\n') + moreNote(o.next_cursor),
});

export const notificationTools = [notificationsList];
