// The public shapes, declared once: the inbox, the message summary, the full message, the latest
// message (get_latest_email), the new_message webhook event, the account (GET /v1/account, and as
// the admin API shows it) and the custom domain.
// Each is a JSON Schema literal; its TypeScript type is derived from it. REST and the actors build
// answers of these types, the MCP tools publish these schemas as their outputSchema, the webhook
// payload, the CLI and the dashboard read these types, and test/unit/shapes.test.ts checks real
// answers against the schemas. Adding a field: add it here, build it where the type says, run that test.
// Imports nothing at runtime, so the dashboard (compiled on its own) can import its types.
import type { FromSchema } from './json-schema.js';

const string = { type: 'string' } as const;
const integer = { type: 'integer' } as const;
const boolean = { type: 'boolean' } as const;
const strings = { type: 'array', items: string } as const;
export const nullableString = { type: ['string', 'null'] } as const;

/** The compact verdict shown in summaries, tool results and webhooks. */
export const authVerdictSchema = { type: 'string', enum: ['pass', 'fail', 'none', 'temperror'] } as const;

/** Sender authentication of a message (src/contract/authentication.ts says what each field means). */
export const authenticationSchema = {
  type: 'object',
  properties: {
    spf: string,
    dkim: {
      type: 'array',
      items: { type: 'object', properties: { domain: string, selector: string, result: string }, required: ['domain', 'selector', 'result'] },
    },
    dmarc: string,
    dmarc_policy: nullableString,
    arc: nullableString,
    aligned: boolean,
    from_domain: nullableString,
    summary: authVerdictSchema,
    pending: boolean,
    dkim_unchecked: integer,
    author_problem: string,
  },
  required: ['spf', 'dkim', 'dmarc', 'dmarc_policy', 'arc', 'aligned', 'from_domain', 'summary', 'pending'],
} as const;

/** Why extraction picked the code and the link, or why each is null. */
export const extractionSchema = {
  type: 'object',
  properties: { otp_reason: string, link_reason: string },
  required: ['otp_reason', 'link_reason'],
} as const;

export const attachmentSchema = {
  type: 'object',
  properties: { filename: nullableString, content_type: string, size: integer },
  required: ['filename', 'content_type', 'size'],
} as const;

/** An inbox (DESIGN §3): REST /v1/inboxes, list_inboxes, create_inbox. */
export const inboxSchema = {
  type: 'object',
  properties: {
    address: string,
    domain: string,
    created_at: string,
    message_count: integer,
    unread_count: integer,
    require_auth: boolean,
    retention: { type: ['integer', 'null'], description: "Seconds a message is kept; null: the plan's retention" },
  },
  required: ['address', 'domain', 'created_at', 'message_count', 'unread_count', 'require_auth', 'retention'],
} as const;

/** A message summary (DESIGN §3): message lists, waits, get_messages, watch_email, wait_for_email. */
export const messageSummarySchema = {
  type: 'object',
  properties: {
    id: string,
    inbox: string,
    from: string,
    to: strings,
    subject: string,
    date: string,
    has_attachment: boolean,
    otp: nullableString,
    verification_link: nullableString,
    read: boolean,
    auth: authVerdictSchema,
  },
  required: ['id', 'inbox', 'from', 'to', 'subject', 'date', 'has_attachment', 'otp', 'verification_link', 'read', 'auth'],
} as const;

/** The full message: GET /v1/inboxes/{address}/messages/{id}. */
export const fullMessageSchema = {
  type: 'object',
  properties: {
    ...messageSummarySchema.properties,
    text: nullableString,
    html: nullableString,
    headers: { type: 'object', additionalProperties: string },
    attachments: { type: 'array', items: attachmentSchema },
    extraction: extractionSchema,
    safe_text: string,
    warnings: strings,
    authentication: authenticationSchema,
  },
  required: [...messageSummarySchema.required, 'text', 'html', 'headers', 'attachments', 'extraction', 'safe_text', 'warnings', 'authentication'],
} as const;

/** get_latest_email's `message`: the code and link and why, the sender, the safe text; `text` and `html` only with include_raw. */
export const latestMessageSchema = {
  type: 'object',
  properties: {
    id: string,
    from: string,
    to: strings,
    subject: string,
    date: string,
    otp: nullableString,
    verification_link: nullableString,
    has_attachment: boolean,
    extraction: extractionSchema,
    auth: authVerdictSchema,
    authentication: authenticationSchema,
    safe_text: string,
    warnings: strings,
    text: nullableString,
    html: nullableString,
  },
  required: ['id', 'from', 'to', 'subject', 'date', 'otp', 'verification_link', 'has_attachment', 'extraction', 'auth', 'authentication', 'safe_text', 'warnings'],
} as const;

/** The new_message webhook body (SEED.md "Events"; `auth` is Mailcue's addition, issue 19). */
export const newMessageEventSchema = {
  type: 'object',
  properties: {
    event: { type: 'string', const: 'new_message' },
    inbox: string,
    message: {
      type: 'object',
      properties: {
        id: string,
        from: string,
        subject: string,
        date: string,
        has_attachment: boolean,
        otp: nullableString,
        verification_link: nullableString,
        auth: authVerdictSchema,
      },
      required: ['id', 'from', 'subject', 'date', 'has_attachment', 'otp', 'verification_link', 'auth'],
    },
  },
  required: ['event', 'inbox', 'message'],
} as const;

/**
 * A one-time code or verification link and the message it came in: extract_otp, and
 * create_and_wait_for_otp once one arrived. extract_otp answers every field null when none has.
 */
export const foundCodeSchema = {
  type: 'object',
  properties: {
    inbox: string,
    otp: nullableString,
    verification_link: nullableString,
    message_id: nullableString,
    from: nullableString,
    subject: nullableString,
    received_at: nullableString,
    auth: { anyOf: [authVerdictSchema, { type: 'null' }] },
  },
  required: ['inbox', 'otp', 'verification_link', 'message_id', 'from', 'subject', 'received_at', 'auth'],
} as const;

/** A webhook as GET /v1/webhooks lists it (SEED.md "Webhook"); `disabled` only with `?status=all`. */
export const webhookSchema = {
  type: 'object',
  properties: { _id: string, inbox: string, url: string, createdAt: string, failureCount: integer, disabled: boolean },
  required: ['_id', 'inbox', 'url', 'createdAt', 'failureCount'],
} as const;

/** One delivery attempt, as GET /v1/webhooks/{id}/deliveries lists it (DESIGN §3). */
export const webhookDeliverySchema = {
  type: 'object',
  properties: { at: string, status: { type: ['integer', 'null'] }, latency_ms: integer, error: nullableString },
  required: ['at', 'status', 'latency_ms', 'error'],
} as const;

/** A scoped key (issue 36) as /v1/keys shows it: never its hash; `key`, the secret, only in the answers that create or rotate it. */
export const scopedKeySchema = {
  type: 'object',
  properties: {
    id: string,
    name: nullableString,
    inboxes: { type: ['array', 'null'], items: string },
    created_inboxes: boolean,
    read_only: boolean,
    expires_at: nullableString,
    created_at: string,
    key: string,
  },
  required: ['id', 'name', 'inboxes', 'created_inboxes', 'read_only', 'expires_at', 'created_at'],
} as const;

/** A plan's limits as GET /v1/account shows them. */
export const planLimitsSchema = {
  type: 'object',
  properties: {
    tool_execution: boolean,
    ops_per_minute: integer,
    concurrent_sessions: integer,
    open_sessions_cap: integer,
    requests_per_minute: integer,
    custom_domains: boolean,
    webhooks: boolean,
    monthly_credits: integer,
    price_usd_per_month: { type: ['number', 'null'] },
    inboxes: integer,
    messages_per_inbox: integer,
    stored_bytes: integer,
    retention: integer,
    webhooks_per_inbox: integer,
  },
  required: [
    'tool_execution', 'ops_per_minute', 'concurrent_sessions', 'open_sessions_cap', 'requests_per_minute', 'custom_domains', 'webhooks',
    'monthly_credits', 'price_usd_per_month', 'inboxes', 'messages_per_inbox', 'stored_bytes', 'retention', 'webhooks_per_inbox',
  ],
} as const;

/** What an account stores: inboxes, messages and raw bytes. */
export const storageUsageSchema = {
  type: 'object',
  properties: { inboxes: integer, messages: integer, bytes: integer },
  required: ['inboxes', 'messages', 'bytes'],
} as const;

const planSchema = { type: 'string', enum: ['free', 'developer', 'startup', 'growth', 'enterprise'] } as const;

/** An account as the admin API shows it (DESIGN §2); `api_key` only in the answers that create or rotate it. */
export const adminAccountSchema = {
  type: 'object',
  properties: { id: string, name: nullableString, plan: planSchema, created_at: string, api_key: string },
  required: ['id', 'name', 'plan', 'created_at'],
} as const;

/** The account (DESIGN §3): GET /v1/account's `data`. */
export const accountSchema = {
  type: 'object',
  properties: {
    id: string,
    plan: planSchema,
    limits: planLimitsSchema,
    ops_this_minute: integer,
    requests_this_minute: integer,
    credits_used: integer,
    credits_left: integer,
    usage: storageUsageSchema,
    sessions_open: integer,
  },
  required: ['id', 'plan', 'limits', 'ops_this_minute', 'requests_this_minute', 'credits_used', 'credits_left', 'usage', 'sessions_open'],
} as const;

/** A custom domain (SEED.md "Custom domain"). */
export const customDomainSchema = {
  type: 'object',
  properties: { domain: string, verified: boolean, mx_record: string, txt_record: string, added_at: string },
  required: ['domain', 'verified', 'mx_record', 'txt_record', 'added_at'],
} as const;

/** A DNS record to publish for a custom domain (SEED.md "DNS record"): priority for MX only, ttl only in the add answer. */
export const dnsRecordSchema = {
  type: 'object',
  properties: {
    type: { type: 'string', enum: ['MX', 'TXT'] },
    hostname: { type: 'string', const: '@' },
    value: string,
    priority: { type: 'string', const: '10' },
    ttl: { type: 'string', const: 'Auto' },
  },
  required: ['type', 'hostname', 'value'],
} as const;

export type AuthVerdict = FromSchema<typeof authVerdictSchema>;
export type Inbox = FromSchema<typeof inboxSchema>;
export type MessageSummary = FromSchema<typeof messageSummarySchema>;
export type FullMessage = FromSchema<typeof fullMessageSchema>;
export type LatestMessage = FromSchema<typeof latestMessageSchema>;
export type NewMessageEvent = FromSchema<typeof newMessageEventSchema>;
export type Account = FromSchema<typeof accountSchema>;
export type AdminAccount = FromSchema<typeof adminAccountSchema>;
export type FoundCode = FromSchema<typeof foundCodeSchema>;
export type Webhook = FromSchema<typeof webhookSchema>;
export type ScopedKey = FromSchema<typeof scopedKeySchema>;
export type WebhookDelivery = FromSchema<typeof webhookDeliverySchema>;
export type PlanLimits = FromSchema<typeof planLimitsSchema>;
export type StorageUsage = FromSchema<typeof storageUsageSchema>;
export type CustomDomain = FromSchema<typeof customDomainSchema>;
export type DnsRecord = FromSchema<typeof dnsRecordSchema>;

/** Every public shape by name, for the schema test and anyone who publishes them. */
export const SHAPES = {
  inbox: inboxSchema,
  message_summary: messageSummarySchema,
  full_message: fullMessageSchema,
  latest_message: latestMessageSchema,
  new_message_event: newMessageEventSchema,
  found_code: foundCodeSchema,
  webhook: webhookSchema,
  webhook_delivery: webhookDeliverySchema,
  scoped_key: scopedKeySchema,
  account: accountSchema,
  admin_account: adminAccountSchema,
  custom_domain: customDomainSchema,
  dns_record: dnsRecordSchema,
} as const;
