// get_latest_email: the most recent message of an inbox, with its text and extracted code.
import { extractionOf } from '../../../contract/model.js';
import { latestMessage } from '../../../services/messages.js';
import { requireAddress } from '../../../services/validate.js';
import { defineTool, inboxArg, nullableString } from './tool.js';

export const getLatestEmail = defineTool<{ inbox: string }>({
  name: 'get_latest_email',
  readOnly: true,
  title: 'Get latest email',
  description: 'Returns the most recent message of an inbox (sender, subject, text, extracted otp and verification_link, and in `extraction` why each was picked or is null), or null if it is empty.',
  inputSchema: { type: 'object', properties: { inbox: inboxArg }, required: ['inbox'] },
  outputSchema: {
    type: 'object',
    properties: {
      inbox: { type: 'string' },
      message: {
        type: ['object', 'null'],
        properties: {
          id: { type: 'string' }, from: { type: 'string' }, to: { type: 'array', items: { type: 'string' } }, subject: { type: 'string' },
          date: { type: 'string' }, text: nullableString, html: nullableString, otp: nullableString, verification_link: nullableString,
          has_attachment: { type: 'boolean' },
          extraction: {
            type: 'object',
            properties: { otp_reason: { type: 'string' }, link_reason: { type: 'string' } },
            required: ['otp_reason', 'link_reason'],
          },
        },
      },
    },
    required: ['inbox', 'message'],
  },
  async run({ deps, caller }, args) {
    const inbox = requireAddress(args.inbox);
    const m = await latestMessage(deps, caller, inbox);
    if (!m) return { inbox, message: null };
    return {
      inbox,
      message: {
        id: m.id, from: m.from, to: m.to, subject: m.subject, date: m.date, text: m.text, html: m.html,
        otp: m.otp, verification_link: m.verification_link, has_attachment: m.attachments.length > 0, extraction: extractionOf(m),
      },
    };
  },
});
