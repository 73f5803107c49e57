// watch_email: long-polls an existing inbox for its next message (or the first newer than `since`).
import type { WaitResult } from '../../../contract/results.js';
import { requireAddress, waitSince } from '../../../services/validate.js';
import { cursorOf, cursorSchema, defineWaitTool, messageSummarySchema, sinceArg, UNTRUSTED_MAIL, WAITS } from './tool.js';

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
      inbox: { type: 'string', format: 'email', description: 'Full email address of the inbox' },
      timeout: { type: 'number', minimum: 10, maximum: 60, default: 30, description: 'Seconds to wait' },
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
    const timeoutMs = Math.min((args.timeout ?? 30) * 1000, ctx.maxWaitMs);
    const output = (_inbox: string, result: WaitResult) => ({ timed_out: result.timed_out, message: result.message, cursor: cursorOf(result, since) });
    return { address, options: { since, match: 'any', timeoutMs }, output };
  },
});
