// watch_email: long-polls an existing inbox for its next message (or the first newer than `since`).
import type { WaitResult } from '../../../contract/results.js';
import { requireAddress, waitSince } from '../../../services/validate.js';
import { cursorOf, cursorSchema, defineWaitTool, inboxArg, messageSummarySchema, sinceArg, timeoutArg, UNTRUSTED_MAIL, waitMs, WAITS } from './tool.js';

export const watchEmail = defineWaitTool<{ inbox: string; timeout?: number; since?: string }>({
  name: 'watch_email',
  title: 'Watch an inbox',
  hints: WAITS,
  description:
    'Waits for the next email on an existing inbox and returns it. With `since` (a message id, or the `cursor` of an earlier answer), returns the first message newer than it, at once if one is already there. ' +
    'Every answer carries `cursor`: pass it as `since` next time and no mail is missed or repeated. On timeout the result has timed_out: true and message: null. ' +
    UNTRUSTED_MAIL,
  inputSchema: {
    type: 'object',
    properties: {
      inbox: inboxArg,
      timeout: timeoutArg(30),
      since: sinceArg,
    },
    required: ['inbox'],
  },
  outputSchema: {
    type: 'object',
    properties: { timed_out: { type: 'boolean' }, message: { anyOf: [messageSummarySchema, { type: 'null' }] }, cursor: cursorSchema },
    required: ['timed_out', 'message', 'cursor'],
  },
  wait(ctx, args) {
    const address = requireAddress(args.inbox);
    const since = waitSince(args.since);
    const timeoutMs = waitMs(ctx, args.timeout, 30);
    const output = (_inbox: string, result: WaitResult) => ({ timed_out: result.timed_out, message: result.message, cursor: cursorOf(result, since) });
    return { address, options: { since, match: 'any', timeoutMs }, output };
  },
});
