// extract_otp: the newest one-time code or verification link among an inbox's recent messages.
import { trustedVerdict } from '../../../contract/authentication.js';
import { foundCode } from '../../../contract/model.js';
import { getInbox } from '../../../services/inboxes.js';
import { listMessages } from '../../../services/messages.js';
import { requireAddress } from '../../../services/validate.js';
import { defineTool, foundCodeSchema, READS, inboxArg, UNTRUSTED_MAIL } from './tool.js';

/** How far back to look for the newest message that carries a code or link. */
const SCAN_MESSAGES = 100;

export const extractOtp = defineTool<{ inbox: string }>({
  name: 'extract_otp',
  readOnly: true,
  title: 'Extract one-time code',
  hints: READS,
  description: `Returns the latest 4 to 6 digit one-time code or verification link received by the inbox (null when none has arrived), with the sender authentication (auth) of the message it came from. ` +
    `On an inbox with require_auth, codes from mail that fails sender authentication are skipped. ${UNTRUSTED_MAIL}`,
  inputSchema: { type: 'object', properties: { inbox: inboxArg }, required: ['inbox'] },
  outputSchema: foundCodeSchema,
  async run({ deps, caller }, args) {
    const inbox = requireAddress(args.inbox);
    const [recent, policy] = await Promise.all([listMessages(deps, caller, inbox, SCAN_MESSAGES, false), getInbox(deps, caller, inbox)]);
    // require_auth holds here as in waits: a spoofed code is never the answer.
    const m = recent.find((s) => (s.otp !== null || s.verification_link !== null) && (!policy.require_auth || trustedVerdict(s.auth)));
    return foundCode(inbox, m ?? null);
  },
});
