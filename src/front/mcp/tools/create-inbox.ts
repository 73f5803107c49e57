// create_inbox: creates an inbox and answers at once (issue 36), with the same options as
// POST /v1/inboxes. Its `cursor` is the inbox's start, so a wait from it misses no mail that
// arrives between the two calls.
import { createInbox as create } from '../../../services/inboxes.js';
import { INBOX_START } from '../../../util/ids.js';
import { cursorSchema, defineTool, inboxSchema } from './tool.js';

export const createInbox = defineTool<{ address?: string; domain?: string; require_auth?: boolean; retention?: number }>({
  name: 'create_inbox',
  title: 'Create an inbox',
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  description:
    'Creates an inbox and returns its address at once: a random address on `domain` (default the service domain), or the given `address` ' +
    '(on a service domain or a verified custom domain of the account). Then wait for mail with wait_for_email, passing the returned `cursor` as `since`.',
  inputSchema: {
    type: 'object',
    properties: {
      address: { type: 'string', format: 'email', description: 'The address to create; random when absent' },
      domain: { type: 'string', description: 'Domain of a random address: a service domain or a verified custom domain' },
      require_auth: { type: 'boolean', default: false, description: 'Waits on this inbox answer only mail that passes sender authentication' },
      retention: { type: 'integer', minimum: 1, description: "Seconds this inbox keeps a message, at most the plan's retention; absent: the plan's" },
    },
  },
  outputSchema: {
    type: 'object',
    properties: { ...inboxSchema.properties, cursor: cursorSchema },
    required: [...inboxSchema.required, 'cursor'],
  },
  async run({ deps, caller }, args) {
    const inbox = await create(deps, caller, { address: args.address, domain: args.domain, require_auth: args.require_auth, retention: args.retention });
    return { ...inbox, cursor: INBOX_START };
  },
});
