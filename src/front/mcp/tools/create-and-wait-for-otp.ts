// create_and_wait_for_otp: creates a random inbox and holds the call until a message with a code
// or a verification link reaches it. The address goes out as a progress notification first, so
// the agent can use it while the call waits.
import { createInbox } from '../../../services/inboxes.js';
import { waitForMessage } from '../../../services/messages.js';
import { optionalBool } from '../../../services/validate.js';
import { authVerdictSchema, defineTool, nullableString, UNTRUSTED_MAIL } from './tool.js';

/** "Newer than this" for a fresh inbox: every message, including one that beats the waiter. */
const FROM_THE_START = '';

export const createAndWaitForOtp = defineTool<{ domain?: string; timeout?: number; require_auth?: boolean }>({
  name: 'create_and_wait_for_otp',
  title: 'Create inbox and wait for code',
  description:
    'Creates a random inbox (on `domain`, default the service domain) and waits until a one-time code or verification link arrives in it. ' +
    'The address is sent at once as a progress notification. On timeout the result has timed_out: true and the inbox stays usable.',
  longPoll: true,
  inputSchema: {
    type: 'object',
    properties: {
      domain: { type: 'string', description: 'Domain for the inbox: a service domain or a verified custom domain' },
      timeout: { type: 'number', minimum: 10, maximum: 60, default: 45, description: 'Seconds to wait' },
      require_auth: { type: 'boolean', default: false, description: 'Create the inbox with require_auth: only mail that passes sender authentication answers' },
    },
  },
  outputSchema: {
    type: 'object',
    properties: {
      inbox: { type: 'string' }, otp: nullableString, verification_link: nullableString, message_id: nullableString,
      from: nullableString, subject: nullableString, received_at: nullableString, timed_out: { type: 'boolean' }, auth: authVerdictSchema,
    },
    required: ['inbox', 'otp', 'timed_out'],
  },
  async run(ctx, args) {
    const { deps, caller } = ctx;
    const requireAuth = optionalBool(args.require_auth, 'require_auth');
    const inbox = await createInbox(deps, caller, { domain: args.domain ?? deps.config.domains[0], require_auth: requireAuth });
    ctx.progress(0, inbox.address);
    const timeoutMs = Math.min((args.timeout ?? 45) * 1000, ctx.maxWaitMs);
    const result = await waitForMessage(deps, caller, inbox.address, { since: FROM_THE_START, match: 'code', timeoutMs, signal: ctx.signal });
    if (result.timed_out) return { inbox: inbox.address, otp: null, timed_out: true };
    const m = result.message;
    return {
      inbox: inbox.address, otp: m.otp, verification_link: m.verification_link, message_id: m.id,
      from: m.from, subject: m.subject, received_at: m.date, timed_out: false, auth: m.auth,
    };
  },
});
