// Views of a stored message that answers are made of, defined once and built where they are
// needed: get_latest_email's message is built on the shard that reads the record, as JSON text
// the front passes through, so the front's event loop (the busiest thread) neither decodes the
// record nor encodes the view.
import { unverified } from '../contract/authentication.js';
import { extractionOf, type MessageRecord } from '../contract/model.js';
import type { FullMessage, LatestMessage } from '../contract/shapes.js';
import { safeView } from './safe-text.js';

/** The safe view and authentication of a message, computed for records stored before they were kept. */
export function trustFields(m: Omit<MessageRecord, 'headers'>): { safe_text: string; warnings: string[]; authentication: NonNullable<MessageRecord['authentication']> } {
  const authentication = m.authentication ?? unverified();
  if (m.safe_text !== undefined) return { safe_text: m.safe_text, warnings: m.warnings ?? [], authentication };
  const view = safeView(m);
  return { safe_text: view.safe_text, warnings: view.warnings, authentication };
}

/** get_latest_email's `message`: what the code and link are and why, who sent it, the safe text; text and HTML only with `includeRaw`. */
export function latestMessageView(m: Omit<MessageRecord, 'headers'>, includeRaw: boolean): LatestMessage {
  const { safe_text, warnings, authentication } = trustFields(m);
  return {
    id: m.id, from: m.from, to: m.to, subject: m.subject, date: m.date,
    otp: m.otp, verification_link: m.verification_link, has_attachment: m.attachments.length > 0, extraction: extractionOf(m),
    auth: authentication.summary, authentication, safe_text, warnings,
    ...(includeRaw ? { text: m.text, html: m.html } : {}),
  };
}

/** GET …/messages/{id}: the stored record's public fields, the summary's, and the trust fields. */
export function fullMessageView(m: MessageRecord): FullMessage {
  const { safe_text, warnings, authentication } = trustFields(m);
  return {
    id: m.id, inbox: m.inbox, from: m.from, to: m.to, subject: m.subject, date: m.date, text: m.text, html: m.html, headers: m.headers,
    attachments: m.attachments, otp: m.otp, verification_link: m.verification_link, read: m.read, extraction: extractionOf(m),
    safe_text, warnings, authentication, has_attachment: m.attachments.length > 0, auth: authentication.summary,
  };
}
