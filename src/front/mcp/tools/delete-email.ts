// delete_email: deletes one message of an inbox.
import { deleteMessage } from '../../../services/messages.js';
import { requireAddress, requireMessageId } from '../../../services/validate.js';
import { defineTool, inboxArg } from './tool.js';

export const deleteEmail = defineTool<{ inbox: string; message_id: string }>({
  name: 'delete_email',
  title: 'Delete an email',
  hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  description: 'Deletes one message from an inbox.',
  inputSchema: {
    type: 'object',
    properties: { inbox: inboxArg, message_id: { type: 'string', description: 'Message id (msg_...)' } },
    required: ['inbox', 'message_id'],
  },
  outputSchema: {
    type: 'object',
    properties: { deleted: { type: 'boolean' }, inbox: { type: 'string' }, message_id: { type: 'string' } },
    required: ['deleted', 'inbox', 'message_id'],
  },
  async run({ deps, caller }, args) {
    const inbox = requireAddress(args.inbox);
    const { id } = await deleteMessage(deps, caller, inbox, requireMessageId(args.message_id));
    return { deleted: true, inbox, message_id: id };
  },
});
