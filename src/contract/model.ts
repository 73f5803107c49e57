// The records the actors keep in LMDB and the views they answer with: the shapes front and shard
// share. Field names follow the public API (snake_case) so that a record can be answered without
// renaming.
import type { PlanName } from '../config/plans.js';
import { verdict, type Authentication } from './authentication.js';
import type { ScopedKeyRecord } from './keys.js';
import type { AdminAccount, FoundCode, FullMessage, Inbox, MessageSummary, WebhookDelivery } from './shapes.js';

export type { MessageSummary } from './shapes.js';

export interface AccountRecord {
  id: string;
  name: string | null;
  plan: PlanName;
  key_hash: string;
  /** The API key sealed with the master key (it signs webhooks). */
  key_sealed: Uint8Array;
  created_at: string;
  /** UTC month the credit counter belongs to, "2026-11". */
  credits_month: string;
  credits_used: number;
  /** Bumped by every key rotation; tokens, codes and sessions of an older generation are refused. */
  key_generation?: number;
  /** Scoped keys (issue 36); absent on records written before they existed. */
  keys?: ScopedKeyRecord[];
}

/** What an account looks like outside its shard: no secrets (the admin API's account less its key). */
export type AccountView = Omit<AdminAccount, 'api_key'>;

export interface InboxRecord {
  address: string;
  domain: string;
  account_id: string;
  created_at: string;
  message_count: number;
  unread_count: number;
  /** Waits ignore mail that fails sender authentication (issue 19); absent on older records. */
  require_auth?: boolean;
  /** The scoped key that created it, which may then use it (issue 36); absent otherwise. */
  created_by?: string;
  /** Raw bytes of the messages it holds (DESIGN §7 usage); absent on records older than storage limits: 0. */
  bytes?: number;
  /** The inbox's own retention in seconds, shorter than its plan's; null or absent: the plan's. */
  retention?: number | null;
  /** The owner's plan, kept here for the shard's retention sweep; absent on older records (not swept). */
  plan?: PlanName;
}

/** An inbox as every interface shows it (the public shape of src/contract/shapes.ts). */
export type InboxView = Inbox;

export type AttachmentMeta = FullMessage['attachments'][number];

/** Why extraction picked each value, or why it is null (the full message view shows it). */
export type ExtractionReasons = FullMessage['extraction'];

export interface MessageRecord {
  id: string;
  inbox: string;
  from: string;
  to: string[];
  subject: string;
  date: string;
  text: string | null;
  html: string | null;
  headers: Record<string, string>;
  attachments: AttachmentMeta[];
  otp: string | null;
  verification_link: string | null;
  /** Absent on messages the pool could not parse (and on records written before reasons were kept). */
  extraction?: ExtractionReasons;
  read: boolean;
  size: number;
  /** The injection-safe view (src/mail/safe-text.ts); absent on records stored before it existed. */
  safe_text?: string;
  warnings?: string[];
  /** Sender authentication (src/contract/authentication.ts); absent on records stored before it existed. */
  authentication?: Authentication;
}

export interface DomainRecord {
  domain: string;
  account_id: string;
  /** 32 lowercase hex characters, unique per domain and account. */
  token: string;
  verified: boolean;
  added_at: string;
  verified_at: string | null;
}

export interface WebhookRecord {
  id: string;
  account_id: string;
  inbox: string;
  url: string;
  created_at: string;
  failure_count: number;
  disabled: boolean;
}

/** One delivery attempt as the delivery log keeps and lists it. */
export type DeliveryLog = WebhookDelivery;

/** A parsed message as the ingress hands it to the shard (id, inbox and date are the shard's). */
export type ParsedMessage = Omit<MessageRecord, 'id' | 'inbox' | 'date' | 'read'>;

/**
 * A parsed message as the pool hands it over: `parts` carries the decoded bytes of its attachments
 * (in the order of `attachments`), which the ingress takes off and the shard stores beside the raw
 * source, so a download reads its part instead of parsing the message again (issue 37).
 */
export type ParsedWithParts = ParsedMessage & { parts?: Uint8Array[] };

/** An attachment's bytes, as a download answers them. */
export interface AttachmentContent {
  filename: string | null;
  content_type: string;
  content: Uint8Array;
}

export function toSummary(m: MessageRecord): MessageSummary {
  return {
    id: m.id,
    inbox: m.inbox,
    from: m.from,
    to: m.to,
    subject: m.subject,
    date: m.date,
    has_attachment: m.attachments.length > 0,
    otp: m.otp,
    verification_link: m.verification_link,
    read: m.read,
    auth: verdict(m.authentication),
  };
}

/** The code and link of a message, as extract_otp and create_and_wait_for_otp answer them; all null without one. */
export function foundCode(inbox: string, m: MessageSummary | null): FoundCode {
  if (!m) return { inbox, otp: null, verification_link: null, message_id: null, from: null, subject: null, received_at: null, auth: null };
  return { inbox, otp: m.otp, verification_link: m.verification_link, message_id: m.id, from: m.from, subject: m.subject, received_at: m.date, auth: m.auth };
}

const NOT_RECORDED = 'no extraction was recorded for this message (it could not be parsed)';

/** The reasons of a message's extraction, for its full view; always present there. */
export function extractionOf(m: Pick<MessageRecord, 'extraction'>): ExtractionReasons {
  return m.extraction ?? { otp_reason: NOT_RECORDED, link_reason: NOT_RECORDED };
}

export function toInboxView(r: InboxRecord): InboxView {
  return {
    address: r.address,
    domain: r.domain,
    created_at: r.created_at,
    message_count: r.message_count,
    unread_count: r.unread_count,
    require_auth: r.require_auth ?? false,
    retention: r.retention ?? null,
  };
}

export function toAccountView(r: AccountRecord): AccountView {
  return { id: r.id, name: r.name, plan: r.plan, created_at: r.created_at };
}
