// list_inboxes: every inbox of the caller's account.
import { listInboxes as list } from '../../../services/inboxes.js';
import { defineTool, inboxSchema, READS } from './tool.js';

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
      inboxes: { type: 'array', items: inboxSchema },
    },
    required: ['count', 'inboxes'],
  },
  async run({ deps, caller }) {
    const inboxes = await list(deps, caller);
    return { count: inboxes.length, inboxes };
  },
});
