// get_latest_email: the most recent message of an inbox, with its extracted code (and why it was
// picked), its sender authentication and the injection-safe text; raw text and HTML only on request.
import { latestMessageJson } from '../../../services/messages.js';
import { optionalBool, requireAddress } from '../../../services/validate.js';
import { JsonText } from '../jsonrpc.js';
import { defineTool, READS, inboxArg, latestMessageSchema, UNTRUSTED_MAIL } from './tool.js';

export const getLatestEmail = defineTool<{ inbox: string; include_raw?: boolean }>({
  name: 'get_latest_email',
  readOnly: true,
  title: 'Get latest email',
  hints: READS,
  description:
    'Returns the most recent message of an inbox (sender, subject, extracted otp and verification_link, in `extraction` why each was picked or is null, ' +
    'sender authentication), or null if it is empty. ' +
    'The body comes as `safe_text`: only the text a person would see, hidden text and invisible characters removed, links listed as "[n] text → URL (host)", ' +
    'with `warnings` naming what was removed or looks deceptive. `include_raw: true` adds the original `text` and `html`, which may hide instructions. ' +
    UNTRUSTED_MAIL,
  inputSchema: {
    type: 'object',
    properties: {
      inbox: inboxArg,
      include_raw: { type: 'boolean', default: false, description: 'Also return the raw text and HTML parts (untrusted, may contain hidden text)' },
    },
    required: ['inbox'],
  },
  outputSchema: {
    type: 'object',
    properties: {
      inbox: { type: 'string' },
      message: { anyOf: [latestMessageSchema, { type: 'null' }] },
    },
    required: ['inbox', 'message'],
  },
  async run({ deps, caller }, args) {
    const inbox = requireAddress(args.inbox);
    const includeRaw = optionalBool(args.include_raw, 'include_raw');
    const message = await latestMessageJson(deps, caller, inbox, includeRaw);
    return new JsonText(`{"inbox":${JSON.stringify(inbox)},"message":${message ?? 'null'}}`);
  },
});
