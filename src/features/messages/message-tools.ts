import { z } from 'zod';
import { inline, quoteBlock } from '../../core/fence.js';
import { idOf, sessionIdField, sessionRefField, text } from '../fields.js';
import { defineTool } from '../tool-context.js';
import type { ReceiptView } from './messages-service.js';

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

const receipt = z.object({
  session_id: z.string(),
  session: z.string(),
  delivered_at: z.string().nullable(),
  delivered_via: z.enum(['tool_response', 'prompt', 'turn_end', 'wake', 'wait', 'list']).nullable(),
  acted_at: z.string().nullable(),
}) satisfies z.ZodType<ReceiptView>;

export const messageList = defineTool({
  name: 'collab_message_list',
  title: 'Read messages',
  description: "Your messages and the project's broadcasts, oldest first; box sent: yours, with receipts.",
  kind: 'write',
  idempotent: true,
  marksOwnRead: true,
  input: z.strictObject({
    session_id: sessionIdField,
    box: z.enum(['inbox', 'sent']).default('inbox'),
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
        read: z.boolean().optional(),
        receipts: z.array(receipt).optional(),
      }),
    ),
  }),
  async handler({ app, connection }, input) {
    const session = await connection.actor(input.session_id);
    if (input.box === 'sent') return { messages: await app.messages.sent(session, input.limit) };
    return {
      messages: await app.messages.list(session, {
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
          .map((m) =>
            m.receipts
              ? `[${m.id}] to ${m.broadcast ? 'everyone' : m.to_session_id}:\n${quoteBlock(m.content, 10_000, 400, '[… cut]')}\n${receiptsText(m.receipts)}`
              : `[${m.id}] from "${inline(m.from, 60)}"${m.broadcast ? ' (broadcast)' : ''}:\n${quoteBlock(m.content, 10_000, 400, '[… cut]')}`,
          )
          .join('\n'),
});

function receiptsText(receipts: ReceiptView[]): string {
  if (receipts.length === 0) return '  not delivered to anyone yet';
  return receipts
    .map(
      (r) =>
        `  "${inline(r.session, 60)}": ${r.delivered_at ? `delivered ${r.delivered_at} (${r.delivered_via ?? 'unknown'})${r.acted_at ? `, acted ${r.acted_at}` : ', not acted since'}` : 'not delivered yet'}`,
    )
    .join('\n');
}

export const messageTools = [messageSend, messageList];
