// End to end (issue 36): agents that never miss a mail, driven by the official SDK clients v1 and
// v2 as hosts use them. A stream dropped mid-wait is resumed with Last-Event-ID and delivers the
// answer that settled while the client was away; a wait re-issued with the last cursor neither
// misses nor repeats a mail; waits report progress; every tool carries annotations; an unknown
// resource is -32002. Progress is turned to 1 s here for speed (test/unit/wait-progress.test.ts
// holds the 10 s bound at the real settings).
import test from 'ava';
import { rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sendMail } from '../helpers/mail.js';
import { connectSdk, StreamCutter, type ProgressSeen, type Sdk } from '../helpers/mcp-clients.js';
import { startService, type Service } from '../helpers/service.js';
import { parked, until } from '../helpers/wait.js';

type Json = Record<string, any>;
let svc: Service;
let key: string;
let plans: string;

test.before(async () => {
  plans = path.join(os.tmpdir(), `mailcue-plans-resume-${process.pid}.json`);
  writeFileSync(plans, JSON.stringify({ growth: { opsPerMinute: 100000, concurrentSessions: 1000, restPerMinute: 100000 } }));
  svc = await startService({ env: { MAILCUE_PLANS_FILE: plans, MAILCUE_MCP_PROGRESS_MS: '1000' } });
  key = (await svc.createAccount('growth')).api_key;
});
test.after.always(async () => {
  await svc?.stop();
  rmSync(plans, { force: true });
});

async function inbox(): Promise<string> {
  const res = await svc.api(key, 'POST', '/v1/inboxes', {});
  return ((await res.json()) as Json).data.address;
}

const out = (r: Json) => r.structuredContent as Json;
const EVENT_ID = /^[0-9a-f]{16}:\d+$/;

for (const sdk of ['v1', 'v2'] as Sdk[]) {
  test.serial(`mcp resume ${sdk} - a stream dropped mid-wait is resumed with Last-Event-ID and answers with the mail that came while away`, async (t) => {
    const cutter = new StreamCutter();
    const client = await connectSdk(sdk, svc.baseUrl, key, cutter);
    try {
      const address = await inbox();
      const before = await svc.parkedWaiters();
      const call = client.callTool('wait_for_email', { inbox: address, timeout: 40 });
      await cutter.primed();
      await parked(svc, before + 1);
      cutter.hold();
      cutter.cut();
      await until(() => cutter.reconnections.length > 0, 'the SDK to reconnect with Last-Event-ID');
      // The mail arrives and the wait settles while the client is away.
      await sendMail(svc.smtpPort, { to: address, subject: 'while away', text: 'Your code is 402913' });
      await parked(svc, before, { exactly: true });
      cutter.release();
      const result = out(await call);
      t.is(result.timed_out, false);
      t.is(result.message.subject, 'while away');
      t.is(result.message.otp, '402913');
      t.is(result.cursor, result.message.id);
      t.regex(cutter.reconnections[0]!, EVENT_ID);
    } finally {
      await client.close();
    }
  });

  test(`mcp resume ${sdk} - a wait re-issued with the last cursor neither misses nor repeats mail that came while disconnected`, async (t) => {
    const address = await inbox();
    let client = await connectSdk(sdk, svc.baseUrl, key);
    // An empty inbox: "now" is a position (a message id), not a magic value.
    const empty = out(await client.callTool('wait_for_email', { inbox: address, since: 'now', timeout: 10 }));
    t.is(empty.timed_out, true);
    t.regex(empty.cursor, /^msg_[0-9a-z]{13}[0-9a-f]{6}$/);
    await sendMail(svc.smtpPort, { to: address, subject: 'first', text: 'one' });
    const first = out(await client.callTool('wait_for_email', { inbox: address, since: empty.cursor, timeout: 20 }));
    t.is(first.message.subject, 'first');
    t.is(first.cursor, first.message.id);
    await client.close();
    // Disconnected: two mails arrive.
    await sendMail(svc.smtpPort, { to: address, subject: 'second', text: 'two' });
    await sendMail(svc.smtpPort, { to: address, subject: 'third', text: 'three' });
    client = await connectSdk(sdk, svc.baseUrl, key);
    try {
      const second = out(await client.callTool('wait_for_email', { inbox: address, since: first.cursor, timeout: 20 }));
      t.is(second.message.subject, 'second');
      const third = out(await client.callTool('watch_email', { inbox: address, since: second.cursor, timeout: 20 }));
      t.is(third.message.subject, 'third');
      const none = out(await client.callTool('wait_for_email', { inbox: address, since: third.cursor, timeout: 10 }));
      t.like(none, { timed_out: true, message: null, cursor: third.cursor });

      // create_and_wait_for_otp resumes on the inbox it created: no second inbox.
      const created = out(await client.callTool('create_and_wait_for_otp', { timeout: 10 }));
      t.is(created.timed_out, true);
      const count = (await (await svc.api(key, 'GET', '/v1/inboxes')).json()) as Json;
      await sendMail(svc.smtpPort, { to: created.inbox, subject: 'no code', text: 'Welcome aboard' });
      await sendMail(svc.smtpPort, { to: created.inbox, subject: 'code', text: 'Your verification code is 771903' });
      const resumed = out(await client.callTool('create_and_wait_for_otp', { inbox: created.inbox, since: created.cursor, timeout: 20 }));
      t.like(resumed, { inbox: created.inbox, otp: '771903', timed_out: false });
      t.is(((await (await svc.api(key, 'GET', '/v1/inboxes')).json()) as Json).count, count.count);
    } finally {
      await client.close();
    }
  });

  test(`mcp resume ${sdk} - a wait with a progressToken reports progress until it answers, which keeps a short client timeout alive`, async (t) => {
    const client = await connectSdk(sdk, svc.baseUrl, key);
    try {
      const address = await inbox();
      const seen: ProgressSeen[] = [];
      const started = Date.now();
      // The client gives up after 4 s without a message; progress resets that watchdog.
      const result = out(await client.callTool('wait_for_email', { inbox: address, timeout: 12 }, {
        onprogress: (p) => seen.push(p), timeoutMs: 4_000, resetTimeoutOnProgress: true,
      }));
      t.is(result.timed_out, true);
      t.true(seen.length >= 8, `${seen.length} notifications in 12 s`);
      let last = { at: started, progress: -1 };
      for (const p of seen) {
        t.true(p.at - last.at <= 10_000, 'at most 10 s between two');
        t.true(p.progress > last.progress, 'progress increases');
        t.regex(p.message ?? '', new RegExp(`Waiting for an email at ${address.replace('.', '\\.')}`));
        last = p;
      }
    } finally {
      await client.close();
    }
  });

  test(`mcp resume ${sdk} - every tool has honest annotations; an unknown resource is -32002`, async (t) => {
    const client = await connectSdk(sdk, svc.baseUrl, key);
    try {
      const tools = await client.listTools();
      t.is(tools.length, 13);
      for (const tool of tools) {
        t.is(typeof tool.annotations?.title, 'string', tool.name);
        for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) t.is(typeof tool.annotations[hint], 'boolean', `${tool.name} ${hint}`);
      }
      const hints = Object.fromEntries(tools.map((x) => [x.name, x.annotations]));
      for (const name of ['get_latest_email', 'extract_otp', 'get_messages', 'list_inboxes', 'list_custom_domains', 'watch_email', 'wait_for_email']) t.true(hints[name].readOnlyHint, name);
      for (const name of ['delete_email', 'delete_custom_domain']) t.like(hints[name], { readOnlyHint: false, destructiveHint: true }, name);
      for (const name of ['create_inbox', 'create_and_wait_for_otp', 'add_custom_domain', 'verify_custom_domain']) t.like(hints[name], { readOnlyHint: false, destructiveHint: false }, name);

      const created = out(await client.callTool('create_inbox', {}));
      t.regex(created.address, /@mailcue\.test$/);
      t.regex(created.cursor, /^msg_/);
      t.is(created.retention, null, 'the plan\'s retention');
      const kept = out(await client.callTool('create_inbox', { retention: 3600 }));
      t.is(kept.retention, 3600, 'an inbox keeps mail a shorter time of its own (DESIGN §7)');
      const tooLong = await t.throwsAsync(client.callTool('create_inbox', { retention: 31 * 86_400 }));
      // SEED.md: invalid arguments answer HTTP 400 with -32602; the SDKs report the HTTP status.
      t.regex(tooLong!.message, /-32602.*retention must be at most/s, 'longer than the plan\'s retention');
      const error = await t.throwsAsync(client.readResource('mailcue://inbox/nobody-here@mailcue.test'));
      t.is((error as unknown as { code: number }).code, -32002);
      const malformed = await t.throwsAsync(client.readResource('mailcue://nothing'));
      t.is((malformed as unknown as { code: number }).code, -32002);
    } finally {
      await client.close();
    }
  });
}
