// watch_email: long-polls an existing inbox for its next message (or the first newer than `since`).
import type { WaitResult } from '../../../contract/results.js';
import { optionalSince, requireAddress } from '../../../services/validate.js';
import { defineWaitTool, messageSummarySchema, UNTRUSTED_MAIL } from './tool.js';

/** The tool's output is the wait's result as the shard gave it: `{timed_out, message}`. */
function output(_inbox: string, result: WaitResult): Record<string, unknown> {
  return result;
}

export const watchEmail = defineWaitTool<{ inbox: string; timeout?: number; since?: string }>({
  name: 'watch_email',
  title: 'Watch an inbox',
  description:
    'Waits for the next email on an existing inbox and returns it. With `since` (a message id), returns the first message newer than it, at once if one is already there. ' +
    'On timeout the result has timed_out: true and message: null.',
  inputSchema: {
    type: 'object',
    properties: {
      inbox: { type: 'string', format: 'email', description: 'Full email address of the inbox' },
      timeout: { type: 'number', minimum: 10, maximum: 60, default: 30, description: 'Seconds to wait' },
      since: { type: 'string', description: 'A message id: wait for messages newer than it' },
    },
    required: ['inbox'],
  },
  outputSchema: {
    type: 'object',
    properties: { timed_out: { type: 'boolean' }, message: { anyOf: [messageSummarySchema, { type: 'null' }] } },
    required: ['timed_out', 'message'],
  },
  wait(ctx, args) {
    const address = requireAddress(args.inbox);
    const since = optionalSince(args.since);
    const timeoutMs = Math.min((args.timeout ?? 30) * 1000, ctx.maxWaitMs);
    return { address, options: { since, match: 'any', timeoutMs }, output };
  },
});
