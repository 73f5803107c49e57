// create_and_wait_for_otp: creates a random inbox and holds the call until a message with a code
// or a verification link reaches it. The address goes out as a progress notification first, so
// the agent can use it while the call waits. Called again with `inbox` (and `since`), it resumes
// on the inbox it created instead of creating another (issue 36).
import { createInbox } from '../../../services/inboxes.js';
import { foundCode } from '../../../contract/model.js';
import type { WaitResult } from '../../../contract/results.js';
import { optionalBool, requireAddress, waitSince } from '../../../services/validate.js';
import { INBOX_START } from '../../../util/ids.js';
import { cursorOf, cursorSchema, defineWaitTool, foundCodeSchema, sinceArg, timeoutArg, UNTRUSTED_MAIL, waitMs } from './tool.js';

function outputFrom(since: string | null) {
  return (inbox: string, result: WaitResult): Record<string, unknown> => {
    const cursor = cursorOf(result, since);
    if (result.timed_out) return { inbox, otp: null, timed_out: true, cursor };
    return { ...foundCode(inbox, result.message), timed_out: false, cursor };
  };
}

export const createAndWaitForOtp = defineWaitTool<{ domain?: string; timeout?: number; require_auth?: boolean; inbox?: string; since?: string }>({
  name: 'create_and_wait_for_otp',
  title: 'Create inbox and wait for code',
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  description:
    'Creates a random inbox (on `domain`, default the service domain) and waits until a one-time code or verification link arrives in it. ' +
    'The address is sent at once as a progress notification. On timeout the result has timed_out: true and the inbox stays usable. ' +
    'To resume after a timeout or a dropped connection, call it again with `inbox` (the address it created) and `since` (the `cursor` it answered): ' +
    'no inbox is created then, and no code is missed or repeated. ' +
    UNTRUSTED_MAIL,
  inputSchema: {
    type: 'object',
    properties: {
      domain: { type: 'string', description: 'Domain for the inbox: a service domain or a verified custom domain' },
      timeout: timeoutArg(45),
      require_auth: { type: 'boolean', default: false, description: 'Create the inbox with require_auth: only mail that passes sender authentication answers' },
      inbox: { type: 'string', format: 'email', description: 'Resume on this inbox (one an earlier call created) instead of creating one; `domain` and `require_auth` are then ignored' },
      since: { ...sinceArg, description: 'With `inbox`: wait for codes newer than this message id (the `cursor` of the earlier answer); without it, every message of the inbox counts' },
    },
  },
  outputSchema: {
    type: 'object',
    // On a timeout only inbox, otp (null), timed_out and cursor.
    properties: { ...foundCodeSchema.properties, timed_out: { type: 'boolean' }, cursor: cursorSchema },
    required: ['inbox', 'otp', 'timed_out', 'cursor'],
  },
  async wait(ctx, args) {
    const { deps, caller } = ctx;
    const timeoutMs = waitMs(ctx, args.timeout, 45);
    // "Newer than the start" for the inbox: every message, including one that beats the waiter.
    let since: string | null = INBOX_START;
    let address: string;
    if (args.inbox !== undefined) {
      address = requireAddress(args.inbox);
      // "now" is the inbox's position when the wait starts (null); no `since` is its start.
      if (args.since !== undefined) since = waitSince(args.since);
    } else {
      if (args.since !== undefined) waitSince(args.since);
      const requireAuth = optionalBool(args.require_auth, 'require_auth');
      address = (await createInbox(deps, caller, { domain: args.domain ?? deps.config.domains[0], require_auth: requireAuth })).address;
    }
    ctx.progress(0, address);
    return { address, options: { since, match: 'code', timeoutMs }, output: outputFrom(since) };
  },
});
