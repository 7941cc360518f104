import { z } from 'zod';
import { inline, quoteBlock } from '../../core/fence.js';
import { idOf, sessionIdField, sessionRefField, text } from '../fields.js';
import { defineTool } from '../tool-context.js';
import type { MessageView } from './messages-service.js';

export const messageSend = defineTool({
  name: 'collab_message_send',
  title: 'Message a session',
  description: 'Message another session, or broadcast to the project.',
  kind: 'write',
  input: z.strictObject({
    from_session_id: sessionIdField,
    to_session_id: sessionRefField.optional().describe('Id or name; omit to broadcast'),
    content: text('messageChars'),
    reply_to: idOf('message').optional().describe('Message id answered'),
  }),
  output: z.object({
    message_id: z.string(),
    to_session_id: z.string().nullable(),
    recipients: z.number(),
    recipient_status: z.enum(['active', 'inactive', 'ended']).optional(),
  }),
  async handler({ app, connection }, input) {
    return app.messages.send(await connection.actor(input.from_session_id), {
      to: input.to_session_id,
      content: input.content,
      replyTo: input.reply_to,
    });
  },
  text: (o) =>
    o.to_session_id === null
      ? `Broadcast sent to ${o.recipients} active session(s) (message_id ${o.message_id}).`
      : `Message sent (message_id ${o.message_id})${o.recipient_status && o.recipient_status !== 'active' ? `; note: the recipient is ${o.recipient_status}` : ''}.`,
});

export const messageList = defineTool({
  name: 'collab_message_list',
  title: 'Read messages',
  description: 'Messages to this session and broadcasts in its project, oldest first.',
  kind: 'write',
  idempotent: true,
  marksOwnRead: true,
  input: z.strictObject({
    session_id: sessionIdField,
    unread_only: z.boolean().default(true),
    mark_as_read: z.boolean().default(true),
    limit: z.number().int().min(1).max(500).default(50),
  }),
  output: z.object({
    messages: z.array(
      z.object({
        id: z.string(),
        from_session_id: z.string(),
        from: z.string(),
        to_session_id: z.string().nullable(),
        broadcast: z.boolean(),
        reply_to: z.string().nullable(),
        content: z.string(),
        created_at: z.string(),
        read: z.boolean(),
      }) satisfies z.ZodType<MessageView>,
    ),
  }),
  async handler({ app, connection }, input) {
    return {
      messages: await app.messages.list(await connection.actor(input.session_id), {
        unreadOnly: input.unread_only,
        markAsRead: input.mark_as_read,
        limit: input.limit,
      }),
    };
  },
  text: (o) =>
    o.messages.length === 0
      ? 'No messages.'
      : o.messages
          .map(
            (m) =>
              `[${m.id}] from "${inline(m.from, 60)}"${m.broadcast ? ' (broadcast)' : ''}:\n${quoteBlock(m.content, 10_000, 400, '[… cut]')}`,
          )
          .join('\n'),
});

export const messageTools = [messageSend, messageList];
