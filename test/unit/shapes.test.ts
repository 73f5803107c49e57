import test from 'ava';
import { pendingAuthentication, unverified } from '../../src/contract/authentication.js';
import { toKeyView } from '../../src/contract/keys.js';
import { foundCode, toAccountView, toInboxView, toSummary, type AccountRecord, type InboxRecord, type MessageRecord } from '../../src/contract/model.js';
import { SHAPES, customDomainSchema, dnsRecordSchema, foundCodeSchema, inboxSchema, latestMessageSchema, messageSummarySchema } from '../../src/contract/shapes.js';
import { TOOLS } from '../../src/front/mcp/tools/registry.js';
import { fullMessageView, latestMessageView } from '../../src/mail/message-view.js';
import { dnsRecords } from '../../src/services/domains.js';
import { newMessageBody } from '../../src/webhooks/payload.js';
import { assertShape, shapeValidator } from '../helpers/shapes.js';

// The public shapes are declared once (src/contract/shapes.ts): what the builders answer is exactly
// those shapes, and every agent tool that answers one publishes that very schema as its outputSchema.
// The e2e tests check real REST, MCP and webhook answers with the same helper.

const message: MessageRecord = {
  id: 'msg_0000000000001abcdef',
  inbox: 'a@mailcue.test',
  from: 'Sender <s@example.com>',
  to: ['a@mailcue.test'],
  subject: 'Your code',
  date: '2026-11-28T18:00:00.000Z',
  text: 'Your code is 123456',
  html: '<p>Your code is 123456</p>',
  headers: { subject: 'Your code' },
  attachments: [{ filename: 'a.pdf', content_type: 'application/pdf', size: 3 }, { filename: null, content_type: 'text/plain', size: 1 }],
  otp: '123456',
  verification_link: null,
  extraction: { otp_reason: 'keyword "code" next to it', link_reason: 'no link' },
  read: false,
  size: 420,
  safe_text: 'Your code is 123456',
  warnings: [],
  authentication: { ...unverified(), dkim: [{ domain: 'example.com', selector: 's1', result: 'pass' }], dkim_unchecked: 2, author_problem: 'several From fields', summary: 'fail' },
};

/** A record as stored before extraction reasons, the safe view and sender authentication were kept. */
const older: MessageRecord = (() => {
  const { extraction: _e, safe_text: _s, warnings: _w, authentication: _a, ...rest } = message;
  return { ...rest, attachments: [] };
})();

const inbox: InboxRecord = {
  address: 'a@mailcue.test', domain: 'mailcue.test', account_id: 'acc_1', created_at: '2026-11-28T18:00:00.000Z',
  message_count: 1, unread_count: 1, require_auth: true, created_by: 'key_1', bytes: 420, retention: 3600, plan: 'growth',
};

test('shapes - every shape compiles as a strict JSON Schema', (t) => {
  for (const name of Object.keys(SHAPES) as (keyof typeof SHAPES)[]) t.truthy(shapeValidator(name), name);
});

test('shapes - the check is strict: an undeclared, missing or mistyped field fails', (t) => {
  const summary = toSummary(message);
  const validate = shapeValidator('message_summary');
  t.true(validate(summary));
  t.false(validate({ ...summary, size: 420 }), 'an undeclared field');
  const { read: _read, ...missing } = summary;
  t.false(validate(missing), 'a missing field');
  t.false(validate({ ...summary, otp: 123456 }), 'a mistyped field');
  t.false(validate({ ...summary, auth: 'maybe' }), 'a value outside the enum');
});

test('shapes - inbox view (REST, list_inboxes, create_inbox) is the inbox shape', (t) => {
  assertShape(t, 'inbox', toInboxView(inbox));
  assertShape(t, 'inbox', toInboxView({ ...inbox, require_auth: undefined, retention: undefined, created_by: undefined, bytes: undefined, plan: undefined }), 'an older inbox record');
});

test('shapes - message summary (lists, waits, get_messages, watch_email) is the summary shape', (t) => {
  assertShape(t, 'message_summary', toSummary(message));
  assertShape(t, 'message_summary', toSummary(older), 'an older record');
  assertShape(t, 'message_summary', toSummary({ ...message, authentication: pendingAuthentication() }), 'a message still being verified');
});

test('shapes - full message (GET …/messages/{id}) is the full-message shape, without internals', (t) => {
  const full = fullMessageView(message);
  assertShape(t, 'full_message', full);
  t.false('size' in full);
  assertShape(t, 'full_message', fullMessageView(older), 'an older record');
});

test('shapes - latest message (get_latest_email) is the latest-message shape, raw parts only on request', (t) => {
  assertShape(t, 'latest_message', latestMessageView(message, true));
  const plain = latestMessageView(message, false);
  assertShape(t, 'latest_message', plain);
  t.false('text' in plain || 'html' in plain);
  assertShape(t, 'latest_message', latestMessageView(older, false), 'an older record');
});

test('shapes - the new_message webhook body is the event shape', (t) => {
  assertShape(t, 'new_message_event', JSON.parse(newMessageBody(message)));
  assertShape(t, 'new_message_event', JSON.parse(newMessageBody(older)), 'an older record');
});

test('shapes - the account outside its shard (admin API, admission) is the admin-account shape, without secrets', (t) => {
  const record: AccountRecord = {
    id: 'acc_1', name: null, plan: 'growth', key_hash: 'h', key_sealed: new Uint8Array(1), created_at: '2026-11-28T18:00:00.000Z',
    credits_month: '2026-11', credits_used: 3, key_generation: 2, keys: [],
  };
  assertShape(t, 'admin_account', toAccountView(record));
  assertShape(t, 'admin_account', { ...toAccountView({ ...record, name: 'ci' }), api_key: 'mc_x' }, 'a created account with its key');
});

test('shapes - a found code (extract_otp, create_and_wait_for_otp) is the found-code shape, all null without one', (t) => {
  assertShape(t, 'found_code', foundCode(message.inbox, toSummary(message)));
  assertShape(t, 'found_code', foundCode(message.inbox, null), 'none found');
});

test('shapes - the DNS records of a custom domain are the dns-record shape, with and without ttl', (t) => {
  const domain = { domain: 'mail.example.com', verified: false, mx_record: 'mx.mailcue.test', txt_record: 'mailcue-verification=0123', added_at: '2026-11-28T18:00:00.000Z' };
  assertShape(t, 'custom_domain', domain);
  for (const withTtl of [true, false]) for (const r of dnsRecords(domain, withTtl)) assertShape(t, 'dns_record', r);
  t.false(shapeValidator('dns_record')({ type: 'MX', hostname: '@', value: 'mx', priority: 10 }), 'priority is the string "10"');
});

test('shapes - a scoped key as /v1/keys shows it is the scoped-key shape, without its hash', (t) => {
  const record = {
    id: 'key_0123456789abcdef', hash: 'h', name: null, inboxes: ['a@mailcue.test'], created_inboxes: true, read_only: false,
    expires_at: Date.parse('2026-12-01T00:00:00.000Z'), created_at: '2026-11-28T18:00:00.000Z', generation: 1,
  };
  assertShape(t, 'scoped_key', toKeyView(record));
  assertShape(t, 'scoped_key', toKeyView({ ...record, inboxes: null, expires_at: null }), 'a key for every inbox, never expiring');
});

/** Where each tool's outputSchema must hold a shared shape, by identity (not a copy). */
const TOOL_SHAPES: Record<string, (out: any) => [unknown, unknown][]> = {
  get_latest_email: (o) => [[o.properties.message.anyOf[0], latestMessageSchema]],
  get_messages: (o) => [[o.properties.messages.items, messageSummarySchema]],
  watch_email: (o) => [[o.properties.message.anyOf[0], messageSummarySchema]],
  wait_for_email: (o) => [[o.properties.message.anyOf[0], messageSummarySchema]],
  list_inboxes: (o) => [[o.properties.inboxes.items, inboxSchema]],
  extract_otp: (o) => [[o, foundCodeSchema]],
  create_and_wait_for_otp: (o) => Object.entries(foundCodeSchema.properties).map(([k, v]): [unknown, unknown] => [o.properties[k], v]),
  create_inbox: (o) => Object.entries(inboxSchema.properties).map(([k, v]): [unknown, unknown] => [o.properties[k], v]),
  list_custom_domains: (o) => [[o.properties.domains.items, customDomainSchema]],
  verify_custom_domain: (o) => [[o, customDomainSchema]],
  add_custom_domain: (o) => [...Object.entries(customDomainSchema.properties).map(([k, v]): [unknown, unknown] => [o.properties[k], v]), [o.properties.dns_records.items, dnsRecordSchema]],
};

test('shapes - every tool that answers a public shape publishes the shared schema as its outputSchema', (t) => {
  for (const [name, paths] of Object.entries(TOOL_SHAPES)) {
    const tool = TOOLS.find((x) => x.name === name);
    if (!tool) {
      t.fail(`no tool ${name}`);
      continue;
    }
    for (const [found, shared] of paths(tool.outputSchema)) t.is(found, shared, `${name}'s outputSchema restates a shared shape`);
  }
  const create = TOOLS.find((x) => x.name === 'create_inbox')!.outputSchema as { required: string[] };
  t.deepEqual(create.required.filter((k) => k !== 'cursor'), [...inboxSchema.required]);
});
