// extract_otp: the newest one-time code or verification link among an inbox's recent messages.
import { trustedVerdict } from '../../../contract/authentication.js';
import { getInbox } from '../../../services/inboxes.js';
import { listMessages } from '../../../services/messages.js';
import { requireAddress } from '../../../services/validate.js';
import { authVerdictSchema, defineTool, READS, inboxArg, nullableString, UNTRUSTED_MAIL } from './tool.js';

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
  outputSchema: {
    type: 'object',
    properties: {
      inbox: { type: 'string' }, otp: nullableString, verification_link: nullableString, message_id: nullableString,
      from: nullableString, subject: nullableString, received_at: nullableString, auth: { anyOf: [authVerdictSchema, { type: 'null' }] },
    },
    required: ['inbox', 'otp', 'verification_link', 'message_id'],
  },
  async run({ deps, caller }, args) {
    const inbox = requireAddress(args.inbox);
    const [recent, policy] = await Promise.all([listMessages(deps, caller, inbox, SCAN_MESSAGES, false), getInbox(deps, caller, inbox)]);
    // require_auth holds here as in waits: a spoofed code is never the answer.
    const m = recent.find((s) => (s.otp !== null || s.verification_link !== null) && (!policy.require_auth || trustedVerdict(s.auth)));
    if (!m) return { inbox, otp: null, verification_link: null, message_id: null, from: null, subject: null, received_at: null, auth: null };
    return { inbox, otp: m.otp, verification_link: m.verification_link, message_id: m.id, from: m.from, subject: m.subject, received_at: m.date, auth: m.auth };
  },
});
