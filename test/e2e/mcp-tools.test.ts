// End to end: the agent-tool server driven by the official MCP SDK client over both transports,
// and by raw HTTP for the error table of SEED.md.
import test from 'ava';
import { rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { sendMail } from '../helpers/mail.js';
import { connectMcp, rawInitialize, rawMcp, type TransportKind } from '../helpers/mcp.js';
import { startService, type Service } from '../helpers/service.js';
import { assertShape } from '../helpers/shapes.js';
import { parked } from '../helpers/wait.js';

type Json = Record<string, any>;
let svc: Service;
let key: string;
let freeKey: string;
let plans: string | undefined;

test.before(async () => {
  // Lift the per-minute and session caps here; test/e2e/plans.test.ts covers them at their defaults.
  plans = path.join(os.tmpdir(), `mailcue-plans-${process.pid}.json`);
  writeFileSync(plans, JSON.stringify({ growth: { opsPerMinute: 100000, concurrentSessions: 1000, restPerMinute: 100000 } }));
  svc = await startService({ env: { MAILCUE_PLANS_FILE: plans } });
  key = (await svc.createAccount('growth')).api_key;
  freeKey = (await svc.createAccount('free')).api_key;
});
test.after.always(async () => {
  await svc?.stop();
  if (plans) rmSync(plans, { force: true });
});

async function inbox(): Promise<string> {
  const res = await svc.api(key, 'POST', '/v1/inboxes', {});
  return ((await res.json()) as Json).data.address;
}

const structured = (r: unknown) => (r as { structuredContent: Json }).structuredContent;

for (const kind of ['streamable-http', 'sse'] as TransportKind[]) {
  test(`mcp ${kind} - initialize, SEED's eleven tools and issue 36's two with schemas, every tool runs`, async (t) => {
    const client = await connectMcp(kind, svc.baseUrl, key);
    try {
      t.deepEqual(client.getServerVersion()?.name, 'mailcue');
      const { tools } = await client.listTools();
      t.deepEqual(tools.map((x) => x.name).sort(), [
        'add_custom_domain', 'create_and_wait_for_otp', 'create_inbox', 'delete_custom_domain', 'delete_email', 'extract_otp', 'get_latest_email',
        'get_messages', 'list_custom_domains', 'list_inboxes', 'verify_custom_domain', 'wait_for_email', 'watch_email',
      ]);
      const watch = tools.find((x) => x.name === 'watch_email')!;
      t.deepEqual(watch.inputSchema.required, ['inbox']);
      t.like(watch.inputSchema.properties as Json, { timeout: { minimum: 10, maximum: 60, default: 30 } });
      for (const tool of tools) t.truthy(tool.outputSchema, tool.name);

      const address = await inbox();
      await sendMail(svc.smtpPort, { to: address, subject: 'Your code', text: 'Your verification code is 551234.' });
      const latestCall = await client.callTool({ name: 'get_latest_email', arguments: { inbox: address } });
      const latest = structured(latestCall);
      // The shard builds this one as JSON text; the text content and the structured one are the same.
      t.deepEqual(JSON.parse((latestCall.content as { text: string }[])[0]!.text), latest);
      t.deepEqual(Object.keys(latest), ['inbox', 'message']);
      t.is(latest.inbox, address);
      t.deepEqual(Object.keys(latest.message), [
        'id', 'from', 'to', 'subject', 'date', 'otp', 'verification_link', 'has_attachment', 'extraction', 'auth', 'authentication', 'safe_text', 'warnings',
      ]);
      t.is(latest.message.otp, '551234');
      assertShape(t, 'latest_message', latest.message, 'get_latest_email');
      t.regex(latest.message.extraction.otp_reason, /code/);
      t.is(typeof latest.message.extraction.link_reason, 'string');
      const otp = structured(await client.callTool({ name: 'extract_otp', arguments: { inbox: address } }));
      t.is(otp.otp, '551234');
      t.is(otp.message_id, latest.message.id);
      assertShape(t, 'found_code', otp, 'extract_otp');
      const msgs = structured(await client.callTool({ name: 'get_messages', arguments: { inbox: address, limit: 5 } }));
      t.is(msgs.count, 1);
      assertShape(t, 'message_summary', msgs.messages[0], 'get_messages');
      const listed = structured(await client.callTool({ name: 'list_inboxes', arguments: {} }));
      t.true(listed.inboxes.some((i: Json) => i.address === address));
      for (const i of listed.inboxes) assertShape(t, 'inbox', i, 'list_inboxes');
      const del = structured(await client.callTool({ name: 'delete_email', arguments: { inbox: address, message_id: latest.message.id } }));
      t.true(del.deleted);
      const empty = structured(await client.callTool({ name: 'get_latest_email', arguments: { inbox: address } }));
      t.is(empty.message, null);
      const domains = structured(await client.callTool({ name: 'list_custom_domains', arguments: {} }));
      t.is(domains.count, domains.domains.length);
      t.false(domains.domains.some((d: Json) => d.domain === `${kind}.example.com`));
      const added = structured(await client.callTool({ name: 'add_custom_domain', arguments: { domain: `${kind}.example.com` } }));
      t.regex(added.txt_record, /^mailcue-verification=[0-9a-f]{32}$/);
      const removed = structured(await client.callTool({ name: 'delete_custom_domain', arguments: { domain: `${kind}.example.com` } }));
      t.deepEqual(removed.inboxes_removed, []);

      const resources = await client.listResources();
      t.true(resources.resources.some((r) => r.uri === `mailcue://inbox/${address}`));
      const read = await client.readResource({ uri: `mailcue://inbox/${address}` });
      t.is(JSON.parse((read.contents[0] as { text: string }).text).inbox, address);

      const foreign = await client.callTool({ name: 'get_messages', arguments: { inbox: 'nobody-here@mailcue.test' } });
      t.true(foreign.isError);
      t.regex((foreign.content as Json[])[0]!.text, /not found/);
    } finally {
      await client.close();
    }
  });

  test(`mcp ${kind} - create_and_wait_for_otp returns the code sent to the address from the progress notification`, async (t) => {
    const client = await connectMcp(kind, svc.baseUrl, key);
    try {
      let sent: Promise<unknown> | undefined;
      const result = await client.callTool({ name: 'create_and_wait_for_otp', arguments: { timeout: 30 } }, undefined, {
        onprogress: (p) => {
          sent ??= sendMail(svc.smtpPort, { to: p.message!, subject: 'Sign in', text: 'Your one-time code is 908172. It expires in 10 minutes.' });
        },
      });
      await sent;
      const out = structured(result);
      t.is(out.otp, '908172');
      t.is(out.timed_out, false);
      t.regex(out.message_id, /^msg_/);
      const { timed_out: _timedOut, cursor: _cursor, ...found } = out;
      assertShape(t, 'found_code', found, 'create_and_wait_for_otp');

      let sentLink: Promise<unknown> | undefined;
      const linkResult = structured(await client.callTool({ name: 'create_and_wait_for_otp', arguments: { timeout: 30 } }, undefined, {
        onprogress: (p) => {
          sentLink ??= sendMail(svc.smtpPort, {
            to: p.message!, subject: 'Confirm your email',
            html: '<p>Welcome!</p><p><a href="https://app.example.com/verify?token=abc123">Confirm your email</a></p>',
          });
        },
      }));
      await sentLink;
      t.is(linkResult.verification_link, 'https://app.example.com/verify?token=abc123');
    } finally {
      await client.close();
    }
  });
}

test('mcp - create_and_wait_for_otp and watch_email time out with timed_out, not an error', async (t) => {
  const client = await connectMcp('streamable-http', svc.baseUrl, key);
  try {
    const out = structured(await client.callTool({ name: 'create_and_wait_for_otp', arguments: { timeout: 10 } }));
    t.is(out.timed_out, true);
    t.is(out.otp, null);
    t.regex(out.inbox, /@mailcue\.test$/);
    const watched = structured(await client.callTool({ name: 'watch_email', arguments: { inbox: out.inbox, timeout: 10 } }));
    t.like(watched, { timed_out: true, message: null });
    t.regex(watched.cursor, /^msg_[0-9a-z]{13}[0-9a-f]{6}$/, 'a timeout answers with a cursor to wait from next');
  } finally {
    await client.close();
  }
});

// Serial: the parked-waiters gauge then counts this test's long-poll alone.
test.serial('mcp - watch_email with and without since', async (t) => {
  const client = await connectMcp('sse', svc.baseUrl, key);
  try {
    const address = await inbox();
    const pending = client.callTool({ name: 'watch_email', arguments: { inbox: address, timeout: 20 } });
    await parked(svc);
    await sendMail(svc.smtpPort, { to: address, subject: 'one', text: 'hello' });
    const first = structured(await pending);
    t.is(first.message.subject, 'one');
    assertShape(t, 'message_summary', first.message, 'watch_email');
    await sendMail(svc.smtpPort, { to: address, subject: 'two', text: 'hello' });
    const next = structured(await client.callTool({ name: 'watch_email', arguments: { inbox: address, since: first.message.id } }));
    t.is(next.message.subject, 'two');
  } finally {
    await client.close();
  }
});

test.serial('mcp - 200 concurrent watch_email calls each return their own message; cancelled calls leave no waiter', async (t) => {
  const client = await connectMcp('streamable-http', svc.baseUrl, key);
  const gauge = () => svc.parkedWaiters();
  try {
    const addresses = await Promise.all(Array.from({ length: 200 }, () => inbox()));
    const calls = addresses.map((a) => client.callTool({ name: 'watch_email', arguments: { inbox: a, timeout: 60 } }, undefined, { timeout: 90_000 }));
    await parked(svc, 200);
    t.is(await gauge(), 200);
    const nodemailer = (await import('nodemailer')).default;
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: svc.smtpPort, pool: true, maxConnections: 5, ignoreTLS: true });
    await Promise.all(addresses.map((a) => transport.sendMail({ from: 's@example.com', to: a, subject: `for ${a}`, text: 'hi' })));
    transport.close();
    const results = await Promise.all(calls);
    results.forEach((r, i) => t.is(structured(r).message.subject, `for ${addresses[i]}`));

    const controllers = Array.from({ length: 5 }, () => new AbortController());
    const cancelled = await Promise.all(Array.from({ length: 5 }, () => inbox()));
    const pending = cancelled.map((a, i) =>
      client.callTool({ name: 'watch_email', arguments: { inbox: a, timeout: 60 } }, undefined, { signal: controllers[i]!.signal }).catch(() => null),
    );
    await parked(svc, 5);
    t.is(await gauge(), 5);
    controllers.forEach((c) => c.abort());
    await Promise.all(pending);
    await parked(svc, 0, { exactly: true });
    t.is(await gauge(), 0);
  } finally {
    await client.close();
  }
});

test('mcp errors - SEED.md error table over raw HTTP', async (t) => {
  const session = await rawInitialize(svc.baseUrl, key);
  const auth = { authorization: `Bearer ${key}`, 'mcp-session-id': session };
  const call = (params: Json, headers = auth) => rawMcp(svc.baseUrl, { jsonrpc: '2.0', id: 7, method: 'tools/call', params }, headers);

  const unknown = await call({ name: 'no_such_tool', arguments: {} });
  t.is(unknown.status, 404);
  t.like(await unknown.json(), { jsonrpc: '2.0', id: 7, error: { code: -32601, message: 'Method not found' } });

  const missing = await call({ name: 'get_latest_email', arguments: {} });
  t.is(missing.status, 400);
  const missingBody = (await missing.json()) as Json;
  t.is(missingBody.error.code, -32602);
  t.regex(missingBody.error.data, /inbox/);

  const range = await call({ name: 'watch_email', arguments: { inbox: 'a@mailcue.test', timeout: 5 } });
  t.is(range.status, 400);
  t.regex(((await range.json()) as Json).error.data, /timeout/);

  const badKey = await call({ name: 'list_inboxes', arguments: {} }, { ...auth, authorization: 'Bearer mc_0000000000000000_000000000000000000000000000000000000000000000000' });
  t.is(badKey.status, 401);
  t.regex(badKey.headers.get('www-authenticate')!, /^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"$/);
  t.like(await badKey.json(), { error: { code: -32002, data: 'Authentication failed' } });

  const freeSession = await rawInitialize(svc.baseUrl, freeKey);
  const plan = await call({ name: 'list_inboxes', arguments: {} }, { authorization: `Bearer ${freeKey}`, 'mcp-session-id': freeSession });
  t.is(plan.status, 403);
  t.is(plan.headers.get('www-authenticate'), null);
  t.like(await plan.json(), { error: { code: -32001, data: 'Plan upgrade required' } });

  for (const body of ['{not json', '[{"jsonrpc":"2.0","id":1,"method":"ping"}]', '{"jsonrpc":"1.0","id":1,"method":"ping"}', '{"jsonrpc":"2.0","id":1}']) {
    const res = await rawMcp(svc.baseUrl, body, auth);
    t.is(res.status, 400, body);
    const code = ((await res.json()) as Json).error.code;
    t.true(code === -32600 || code === -32700, body);
  }
  const huge = await rawMcp(svc.baseUrl, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(5 * 1024 * 1024) } }), auth);
  t.is(huge.status, 413);

  const method = await rawMcp(svc.baseUrl, { jsonrpc: '2.0', id: 0, method: 'no/such' }, auth);
  t.is(method.status, 404);
  t.is(((await method.json()) as Json).error.code, -32601);

  const noSession = await rawMcp(svc.baseUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${key}` });
  t.is(noSession.status, 400);
  const goneSession = await rawMcp(svc.baseUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...auth, 'mcp-session-id': 'nope' });
  t.is(goneSession.status, 404);

  const note = await rawMcp(svc.baseUrl, { jsonrpc: '2.0', method: 'notifications/initialized' }, auth);
  t.is(note.status, 202);
  t.is(await note.text(), '');
  const zero = await rawMcp(svc.baseUrl, { jsonrpc: '2.0', id: 0, method: 'ping' }, auth);
  t.deepEqual(await zero.json(), { jsonrpc: '2.0', id: 0, result: {} });

  const probe = await fetch(`${svc.baseUrl}/sse`, { method: 'POST' });
  t.is(probe.status, 405);
  t.is(probe.headers.get('allow'), 'GET');

  const del = await fetch(`${svc.baseUrl}/mcp`, { method: 'DELETE', headers: auth });
  t.is(del.status, 200);
  t.is((await rawMcp(svc.baseUrl, { jsonrpc: '2.0', id: 1, method: 'ping' }, auth)).status, 404);
});

test('mcp - a long-poll answers as JSON unless the client asks for an event stream', async (t) => {
  const address = await inbox();
  await sendMail(svc.smtpPort, { to: address, subject: 'here', text: 'hello' });
  const session = await rawInitialize(svc.baseUrl, key);
  const body = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'watch_email', arguments: { inbox: address, since: 'msg_0000000000000000000' } } };
  const plain = await fetch(`${svc.baseUrl}/mcp`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'mcp-session-id': session, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  t.regex(plain.headers.get('content-type')!, /^application\/json/);
  t.is(((await plain.json()) as Json).result.structuredContent.message.subject, 'here');
  const streamed = await rawMcp(svc.baseUrl, body, { authorization: `Bearer ${key}`, 'mcp-session-id': session });
  t.is(streamed.headers.get('content-type'), 'text/event-stream');
  t.regex(await streamed.text(), /event: message\ndata: \{"jsonrpc":"2\.0","id":3,"result"/);
});

test('mcp errors - a forged key naming a real account reads nothing, though reads start beside admission', async (t) => {
  const victim = await svc.createAccount('growth');
  const address = ((await (await svc.api(victim.api_key, 'POST', '/v1/inboxes', {})).json()) as Json).data.address;
  await sendMail(svc.smtpPort, { to: address, subject: 'secret 909090', text: 'code 909090' });
  const session = await rawInitialize(svc.baseUrl, victim.api_key);
  const forged = `mc_${victim.id.slice(4)}_${'0'.repeat(48)}`;
  for (const name of ['get_latest_email', 'get_messages', 'extract_otp']) {
    const res = await rawMcp(svc.baseUrl, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: { inbox: address } } }, {
      authorization: `Bearer ${forged}`, 'mcp-session-id': session,
    });
    t.is(res.status, 401, name);
    t.false((await res.text()).includes('909090'), name);
  }
  const rest = await svc.api(forged, 'GET', `/v1/inboxes/${address}/messages`);
  t.is(rest.status, 401);
  t.false((await rest.text()).includes('909090'));
});

test('mcp errors - the SDK client sees the same errors', async (t) => {
  const client = await connectMcp('sse', svc.baseUrl, key);
  try {
    const unknown = await t.throwsAsync(client.callTool({ name: 'nope', arguments: {} }));
    t.regex(unknown!.message, /-32601/);
    const missing = await t.throwsAsync(client.callTool({ name: 'extract_otp', arguments: {} }));
    t.regex(missing!.message, /-32602/);
  } finally {
    await client.close();
  }
  const free = await connectMcp('sse', svc.baseUrl, freeKey);
  try {
    const blocked = await t.throwsAsync(free.callTool({ name: 'list_inboxes', arguments: {} }));
    t.regex(blocked!.message, /-32001/);
  } finally {
    await free.close();
  }
  await t.throwsAsync(connectMcp('streamable-http', svc.baseUrl, 'mc_0000000000000000_000000000000000000000000000000000000000000000000'));
});

test('mcp - initialize negotiates the protocol version; GET /mcp describes the server and the plan block', async (t) => {
  for (const [asked, answered] of [['2024-11-05', '2024-11-05'], ['2025-06-18', '2025-06-18'], ['2025-11-25', '2025-11-25'], ['1999-01-01', '2025-11-25']]) {
    const res = await rawMcp(svc.baseUrl, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: asked, capabilities: {}, clientInfo: { name: 'x', version: '1' } } }, { authorization: `Bearer ${key}` });
    const body = (await res.json()) as Json;
    t.is(body.result.protocolVersion, answered);
    t.deepEqual(body.result.serverInfo.name, 'mailcue');
    t.truthy(body.result.capabilities.tools);
  }
  const info = (await (await fetch(`${svc.baseUrl}/mcp?access_token=${freeKey}`)).json()) as Json;
  t.is(info.name, 'mailcue');
  t.is(info.tool_execution, false);
  t.is(info.error, 'MCP is not available on the Free plan');
  t.is(info.upgrade, 'Growth required');
});

test('mcp - a long-poll answers before the connection cap; the legacy stream closes at the cap', async (t) => {
  // A 10 s cap leaves the long-poll a 1 s margin to answer before its stream is cut; an answer
  // that came after the cap would never arrive, and the SDK call would time out instead.
  const capped = await startService({ env: { MAILCUE_AGENT_CONNECTION_MAX_MS: '10000' } });
  try {
    const k = (await capped.createAccount('growth')).api_key;
    const client = await connectMcp('streamable-http', capped.baseUrl, k);
    const out = structured(await client.callTool({ name: 'create_and_wait_for_otp', arguments: { timeout: 60 } }));
    t.is(out.timed_out, true);
    await client.close();
    const res = await fetch(`${capped.baseUrl}/sse`, { headers: { authorization: `Bearer ${k}`, accept: 'text/event-stream' } });
    t.is(res.status, 200);
    const text = await res.text(); // resolves only when the server closes the stream
    t.regex(text, /^event: endpoint\ndata: \/messages\?sessionId=[0-9a-f-]+\n\n/);
  } finally {
    await capped.stop();
  }
});

test('mcp - a tool\'s text carries no raw control character from the mail (DESIGN §7 "Output stays inert"); the data is intact', async (t) => {
  const client = await connectMcp('streamable-http', svc.baseUrl, key);
  try {
    const address = await inbox();
    const subject = 'Code \u009b31m red \u001b]52;c;ZXZpbA==\u0007 done';
    await sendMail(svc.smtpPort, { to: address, subject, text: 'Your verification code is 551234.' });
    for (const name of ['get_latest_email', 'get_messages']) {
      const call = await client.callTool({ name, arguments: { inbox: address } });
      const text = (call.content as { text: string }[])[0]!.text;
      t.false(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/.test(text), `${name}: ${JSON.stringify(text.match(/[\x00-\x1f\x7f-\x9f]/))}`);
      t.true(JSON.stringify(JSON.parse(text)).includes('\u009b31m red'), `${name}: the text decodes to the same data`);
    }
    const read = await client.readResource({ uri: `mailcue://inbox/${address}` });
    t.false(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/.test((read.contents[0] as { text: string }).text), 'resources/read');
  } finally {
    await client.close();
  }
});
