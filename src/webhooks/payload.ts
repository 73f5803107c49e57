// The new_message notification (SEED.md "Events") and its signatures: X-Service-Signature, the hex
// HMAC-SHA256 of the raw body keyed by the account's API key, and the Standard Webhooks headers
// (webhook-id, webhook-timestamp, webhook-signature "v1,<base64>") keyed by the same key's bytes.
import { createHmac } from 'node:crypto';
import type { MessageRecord } from '../contract/model.js';
import { verdict } from '../contract/authentication.js';
import type { NewMessageEvent } from '../contract/shapes.js';

export function newMessageBody(m: MessageRecord): string {
  const event: NewMessageEvent = {
    event: 'new_message',
    inbox: m.inbox,
    message: {
      id: m.id, from: m.from, subject: m.subject, date: m.date, has_attachment: m.attachments.length > 0,
      // auth: sender authentication when the message was committed (issue 19; a field beside SEED.md's).
      otp: m.otp, verification_link: m.verification_link, auth: verdict(m.authentication),
    },
  };
  return JSON.stringify(event);
}

export function serviceSignature(body: string, apiKey: string): string {
  return createHmac('sha256', apiKey).update(body).digest('hex');
}

/** Standard Webhooks: the secret `whsec_<base64 of the key's bytes>` decodes to the key's bytes. */
export function standardSignature(webhookId: string, timestamp: number, body: string, apiKey: string): string {
  return `v1,${createHmac('sha256', Buffer.from(apiKey, 'utf8')).update(`${webhookId}.${timestamp}.${body}`).digest('base64')}`;
}

/** `serviceSig`, when the caller has it: the body's X-Service-Signature, the same for every webhook of a message. */
export function signedHeaders(webhookId: string, body: string, apiKey: string, now = Date.now(), serviceSig = serviceSignature(body, apiKey)): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    'content-type': 'application/json',
    'x-service-signature': serviceSig,
    'webhook-id': webhookId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardSignature(webhookId, timestamp, body, apiKey),
  };
}
