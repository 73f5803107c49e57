// get_messages: several messages of an inbox, newest first.
import { listMessages } from '../../../services/messages.js';
import { requireAddress } from '../../../services/validate.js';
import { defineTool, inboxArg, messageSummarySchema, READS, UNTRUSTED_MAIL } from './tool.js';

export const getMessages = defineTool<{ inbox: string; limit?: number; unread_only?: boolean }>({
  name: 'get_messages',
  readOnly: true,
  title: 'Get messages',
  hints: READS,
  description: `Returns up to \`limit\` messages of the inbox, newest first, each with its extracted otp, verification_link and sender authentication (auth). ${UNTRUSTED_MAIL}`,
  inputSchema: {
    type: 'object',
    properties: {
      inbox: inboxArg,
      limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
      unread_only: { type: 'boolean', default: false },
    },
    required: ['inbox'],
  },
  outputSchema: {
    type: 'object',
    properties: { inbox: { type: 'string' }, count: { type: 'integer' }, messages: { type: 'array', items: messageSummarySchema } },
    required: ['inbox', 'count', 'messages'],
  },
  async run({ deps, caller }, args) {
    const inbox = requireAddress(args.inbox);
    const messages = await listMessages(deps, caller, inbox, args.limit ?? 10, args.unread_only ?? false);
    return { inbox, count: messages.length, messages };
  },
});
