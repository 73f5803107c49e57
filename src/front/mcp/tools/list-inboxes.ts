// list_inboxes: every inbox of the caller's account.
import { listInboxes as list } from '../../../services/inboxes.js';
import { defineTool, READS } from './tool.js';

export const listInboxes = defineTool<Record<string, never>>({
  name: 'list_inboxes',
  readOnly: true,
  title: 'List inboxes',
  hints: READS,
  description: 'Lists all inboxes owned by the account of the API key.',
  inputSchema: { type: 'object', properties: {} },
  outputSchema: {
    type: 'object',
    properties: {
      count: { type: 'integer' },
      inboxes: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            address: { type: 'string' }, domain: { type: 'string' }, created_at: { type: 'string' },
            message_count: { type: 'integer' }, unread_count: { type: 'integer' }, require_auth: { type: 'boolean' },
          },
          required: ['address', 'domain', 'created_at'],
        },
      },
    },
    required: ['count', 'inboxes'],
  },
  async run({ deps, caller }) {
    const inboxes = await list(deps, caller);
    return { count: inboxes.length, inboxes };
  },
});
