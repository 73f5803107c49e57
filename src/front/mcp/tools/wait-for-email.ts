// wait_for_email: the cursor-first wait (issue 36). Waits on an existing inbox for the first message
// newer than `since` (default: the inbox's position now), optionally only one with a code or a
// verification link, and answers with `cursor` for the next call.
import type { WaitMatch } from '../../../contract/commands.js';
import type { WaitResult } from '../../../contract/results.js';
import { optionalBool, requireAddress, waitSince } from '../../../services/validate.js';
import { cursorOf, cursorSchema, defineWaitTool, inboxArg, messageSummarySchema, sinceArg, timeoutArg, UNTRUSTED_MAIL, waitMs, WAITS } from './tool.js';

function matchOf(otpOnly: boolean, linkOnly: boolean): WaitMatch {
  if (otpOnly && linkOnly) return 'code';
  return otpOnly ? 'otp' : linkOnly ? 'link' : 'any';
}

export const waitForEmail = defineWaitTool<{ inbox: string; since?: string; timeout?: number; otp_only?: boolean; link_only?: boolean }>({
  name: 'wait_for_email',
  title: 'Wait for an email',
  hints: WAITS,
  description:
    'Waits for the first email on an existing inbox that is newer than `since` and returns it (at once if one is already there). ' +
    '`since` is a message id, usually the `cursor` of the previous answer, or "now" (the default). Every answer carries `cursor`: pass it as `since` ' +
    'to the next call and no mail is missed or repeated, even across timeouts and dropped connections. `otp_only` / `link_only` wait for a message ' +
    'with a one-time code / a verification link (both: either). On timeout: timed_out: true, message: null. ' +
    UNTRUSTED_MAIL,
  inputSchema: {
    type: 'object',
    properties: {
      inbox: inboxArg,
      since: sinceArg,
      timeout: timeoutArg(30),
      otp_only: { type: 'boolean', default: false, description: 'Only a message with a one-time code answers' },
      link_only: { type: 'boolean', default: false, description: 'Only a message with a verification link answers' },
    },
    required: ['inbox'],
  },
  outputSchema: {
    type: 'object',
    properties: {
      inbox: { type: 'string' },
      timed_out: { type: 'boolean' },
      message: { anyOf: [messageSummarySchema, { type: 'null' }] },
      cursor: cursorSchema,
    },
    required: ['inbox', 'timed_out', 'message', 'cursor'],
  },
  wait(ctx, args) {
    const address = requireAddress(args.inbox);
    const since = waitSince(args.since);
    const match = matchOf(optionalBool(args.otp_only, 'otp_only'), optionalBool(args.link_only, 'link_only'));
    const timeoutMs = waitMs(ctx, args.timeout, 30);
    const output = (inbox: string, result: WaitResult) => ({ inbox, timed_out: result.timed_out, message: result.message, cursor: cursorOf(result, since) });
    return { address, options: { since, match, timeoutMs }, output };
  },
});
