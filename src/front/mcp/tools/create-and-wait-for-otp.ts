// create_and_wait_for_otp: creates a random inbox and holds the call until a message with a code
// or a verification link reaches it. The address goes out as a progress notification first, so
// the agent can use it while the call waits.
import { createInbox } from '../../../services/inboxes.js';
import type { WaitResult } from '../../../contract/results.js';
import { optionalBool } from '../../../services/validate.js';
import { authVerdictSchema, defineWaitTool, nullableString, UNTRUSTED_MAIL } from './tool.js';

/** "Newer than this" for a fresh inbox: every message, including one that beats the waiter. */
const FROM_THE_START = '';

function output(inbox: string, result: WaitResult): Record<string, unknown> {
  if (result.timed_out) return { inbox, otp: null, timed_out: true };
  const m = result.message;
  return {
    inbox, otp: m.otp, verification_link: m.verification_link, message_id: m.id,
    from: m.from, subject: m.subject, received_at: m.date, timed_out: false, auth: m.auth,
  };
}

export const createAndWaitForOtp = defineWaitTool<{ domain?: string; timeout?: number; require_auth?: boolean }>({
  name: 'create_and_wait_for_otp',
  title: 'Create inbox and wait for code',
  description:
    'Creates a random inbox (on `domain`, default the service domain) and waits until a one-time code or verification link arrives in it. ' +
    'The address is sent at once as a progress notification. On timeout the result has timed_out: true and the inbox stays usable.',
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
  async wait(ctx, args) {
    const { deps, caller } = ctx;
    const requireAuth = optionalBool(args.require_auth, 'require_auth');
    const inbox = await createInbox(deps, caller, { domain: args.domain ?? deps.config.domains[0], require_auth: requireAuth });
    ctx.progress(0, inbox.address);
    const timeoutMs = Math.min((args.timeout ?? 45) * 1000, ctx.maxWaitMs);
    return { address: inbox.address, options: { since: FROM_THE_START, match: 'code', timeoutMs }, output };
  },
});
