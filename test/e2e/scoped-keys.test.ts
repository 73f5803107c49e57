// End to end: scoped keys (issue 36) through REST, the official MCP SDK clients v1 and v2 (a key as
// their bearer, and the client-credentials grant through each SDK's ClientCredentialsProvider), and
// what a key outside its scope gets on each: REST 403 scope_denied, an MCP tool error.
import test from 'ava';
import { connectSdk, SDK_AUTH, type Sdk } from '../helpers/mcp-clients.js';
import { startService, type Service } from '../helpers/service.js';
import { assertShape } from '../helpers/shapes.js';

type Json = Record<string, any>;
let svc: Service;
let owner: { id: string; api_key: string };
let inboxA: string;
let inboxB: string;

test.before(async () => {
  svc = await startService();
  owner = await svc.createAccount('growth');
  inboxA = ((await (await svc.api(owner.api_key, 'POST', '/v1/inboxes', {})).json()) as Json).data.address;
  inboxB = ((await (await svc.api(owner.api_key, 'POST', '/v1/inboxes', {})).json()) as Json).data.address;
});
test.after.always(async () => {
  await svc?.stop();
});

async function createKey(body: Record<string, unknown>, key = owner.api_key): Promise<Json> {
  const res = await svc.api(key, 'POST', '/v1/keys', body);
  const json = (await res.json()) as Json;
  if (res.status !== 201) throw new Error(`create key: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

async function call(key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await svc.api(key, method, path, body);
  return { status: res.status, body: (await res.json()) as Json };
}

function textOf(result: Json): string {
  return (result.content as { text: string }[]).map((c) => c.text).join('\n');
}

test('keys - the secret is shown once; the list never shows it; a key works as a bearer on REST', async (t) => {
  const created = await createKey({ name: 'ci <job>', inboxes: [inboxA.toUpperCase()], read_only: true, expires_in: 3600 });
  t.regex(created.id, /^key_[0-9a-f]{16}$/);
  t.regex(created.key, /^mck_/);
  t.deepEqual(created.inboxes, [inboxA], 'addresses are normalised');
  t.like(created, { name: 'ci <job>', read_only: true, created_inboxes: false });
  t.true(Date.parse(created.expires_at) > Date.now());
  const list = await call(owner.api_key, 'GET', '/v1/keys');
  t.is(list.status, 200);
  const listed = list.body.data.find((k: Json) => k.id === created.id);
  t.truthy(listed);
  t.false(JSON.stringify(list.body).includes(created.key), 'no secret in the list');
  t.is(listed.key, undefined);
  assertShape(t, 'scoped_key', created, 'POST /v1/keys');
  assertShape(t, 'scoped_key', listed, 'GET /v1/keys');
  t.is((await call(created.key, 'GET', `/v1/inboxes/${inboxA}/messages`)).status, 200);
  // Bad input is a 400 naming the parameter, never a key.
  for (const [body, param] of [[{ inboxes: 'x' }, 'inboxes'], [{ inboxes: ['not an address'] }, 'inboxes'], [{ expires_in: 0 }, 'expires_in'],
    [{ expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'], [{ read_only: 'maybe' }, 'read_only'], [{ name: 'a\u001b[31m' }, 'name']] as const) {
    const res = await call(owner.api_key, 'POST', '/v1/keys', body);
    t.is(res.status, 400, JSON.stringify(body));
    t.like(res.body, { success: false, error: 'invalid_parameter', param });
  }
});

test('keys - a key limited to an inbox, or read-only, gets 403 scope_denied outside its scope on REST', async (t) => {
  const limited = (await createKey({ inboxes: [inboxA] })).key;
  t.is((await call(limited, 'GET', `/v1/inboxes/${inboxA}`)).status, 200);
  for (const [method, path, body] of [
    ['GET', `/v1/inboxes/${inboxB}`], ['GET', `/v1/inboxes/${inboxB}/messages`], ['DELETE', `/v1/inboxes/${inboxB}`],
    ['GET', `/v1/inboxes/${inboxB}/messages/wait?timeout=10`], ['POST', '/v1/inboxes', {}], ['POST', '/v1/custom-domains', { domain: 'x.example.com' }],
    ['GET', '/v1/keys'], ['POST', '/v1/keys', {}], ['POST', '/v1/webhooks', { inbox: inboxB, url: 'https://example.com/h' }], ['GET', '/v1/events'],
  ] as const) {
    const res = await call(limited, method, path, body);
    t.is(res.status, 403, `${method} ${path}`);
    t.like(res.body, { success: false, error: 'scope_denied' }, `${method} ${path}`);
  }
  const listed = await call(limited, 'GET', '/v1/inboxes');
  t.deepEqual(listed.body.data.map((i: Json) => i.address), [inboxA], 'the list shows the key\'s inboxes only');

  const readOnly = (await createKey({ read_only: true })).key;
  t.is((await call(readOnly, 'GET', `/v1/inboxes/${inboxB}`)).status, 200);
  for (const [method, path] of [['DELETE', `/v1/inboxes/${inboxB}`], ['POST', '/v1/inboxes'], ['PATCH', `/v1/inboxes/${inboxB}`]] as const) {
    const res = await call(readOnly, method, path, method === 'DELETE' ? undefined : { require_auth: true });
    t.like(res, { status: 403, body: { error: 'scope_denied' } }, `${method} ${path}`);
  }
  // Another account's inbox stays not found, for a scoped key too: nothing leaks.
  const stranger = await svc.createAccount('growth');
  const theirs = ((await (await svc.api(stranger.api_key, 'POST', '/v1/inboxes', {})).json()) as Json).data.address;
  t.like(await call(readOnly, 'GET', `/v1/inboxes/${theirs}`), { status: 404, body: { error: 'inbox_not_found' } });
});

test('keys - a key for the inboxes it creates uses those and no other', async (t) => {
  const creator = (await createKey({ created_inboxes: true })).key;
  const made = await call(creator, 'POST', '/v1/inboxes', {});
  t.is(made.status, 201);
  const mine = made.body.data.address as string;
  t.is((await call(creator, 'GET', `/v1/inboxes/${mine}/messages`)).status, 200);
  t.like(await call(creator, 'GET', `/v1/inboxes/${inboxA}/messages`), { status: 403, body: { error: 'scope_denied' } });
  t.deepEqual((await call(creator, 'GET', '/v1/inboxes')).body.data.map((i: Json) => i.address), [mine]);
  // Another key of the same account, also for its own inboxes, does not reach this one.
  const other = (await createKey({ created_inboxes: true })).key;
  t.like(await call(other, 'GET', `/v1/inboxes/${mine}`), { status: 403, body: { error: 'scope_denied' } });
  t.is((await call(creator, 'DELETE', `/v1/inboxes/${mine}`)).status, 200);
});

for (const sdk of ['v1', 'v2'] as Sdk[]) {
  test(`keys - over MCP (SDK ${sdk} client) a key outside its scope gets a tool error, inside it works`, async (t) => {
    const limited = (await createKey({ inboxes: [inboxA] })).key;
    const client = await connectSdk(sdk, svc.baseUrl, limited);
    const inside = await client.callTool('get_messages', { inbox: inboxA });
    t.falsy(inside.isError);
    const outside = await client.callTool('get_messages', { inbox: inboxB });
    t.true(outside.isError);
    t.regex(textOf(outside), /may not use the inbox/);
    const create = await client.callTool('create_and_wait_for_otp', { timeout: 10 });
    t.true(create.isError);
    t.regex(textOf(create), /may not create inboxes/);
    const domains = await client.callTool('add_custom_domain', { domain: 'agents.example.com' });
    t.true(domains.isError);
    const listed = await client.callTool('list_inboxes', {});
    t.deepEqual((listed.structuredContent as Json).inboxes.map((i: Json) => i.address), [inboxA]);
    await client.close();
  });

  test(`keys - client_credentials: the SDK ${sdk} ClientCredentialsProvider signs in with a key's id and secret; the token has the key's scope`, async (t) => {
    const key = await createKey({ inboxes: [inboxB], name: 'daemon' });
    const provider = new SDK_AUTH[sdk].ClientCredentialsProvider({ clientId: key.id, clientSecret: key.key, expectedIssuer: svc.baseUrl });
    const client = await connectSdk(sdk, svc.baseUrl, { authProvider: provider });
    const tokens = provider.tokens()!;
    t.regex(tokens.access_token, /^mca_/);
    t.is(tokens.refresh_token, undefined, 'no refresh token for client_credentials');
    t.falsy((await client.callTool('get_messages', { inbox: inboxB })).isError);
    const outside = await client.callTool('get_messages', { inbox: inboxA });
    t.true(outside.isError);
    await client.close();
    // The token is a REST bearer too, with the same scope.
    t.like(await call(tokens.access_token, 'GET', `/v1/inboxes/${inboxA}`), { status: 403, body: { error: 'scope_denied' } });

    const token = async (body: Record<string, string>, headers: Record<string, string> = {}) => {
      const res = await fetch(`${svc.baseUrl}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(body) });
      return { status: res.status, body: (await res.json()) as Json, auth: res.headers.get('www-authenticate') };
    };
    const posted = await token({ grant_type: 'client_credentials', client_id: key.id, client_secret: key.key });
    t.is(posted.status, 200, 'client_secret_post works too');
    t.like(posted.body, { token_type: 'Bearer', expires_in: 3600, scope: 'mcp' });
    const wrongSecret = await token({ grant_type: 'client_credentials', client_id: key.id, client_secret: (await createKey({})).key });
    t.like(wrongSecret, { status: 401, body: { error: 'invalid_client' } });
    const basicWrong = await token({ grant_type: 'client_credentials' }, { authorization: `Basic ${Buffer.from(`${key.id}:nope`).toString('base64')}` });
    t.like(basicWrong, { status: 401, body: { error: 'invalid_client' }, auth: 'Basic realm="mailcue"' });
    t.like(await token({ grant_type: 'client_credentials', client_id: owner.api_key, client_secret: owner.api_key }), { status: 401, body: { error: 'invalid_client' } });
  });
}

test('keys - an expired key is refused; a deleted key and its tokens at once; rotation replaces the secret', async (t) => {
  const short = await createKey({ expires_in: 4 });
  const used = await call(short.key, 'GET', '/v1/inboxes');
  // Under a heavy load the answer may come after the expiry itself; before it, the key works.
  if (Date.now() < Date.parse(short.expires_at) - 500) t.is(used.status, 200);
  await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(short.expires_at) + 100 - Date.now())));
  t.like(await call(short.key, 'GET', '/v1/inboxes'), { status: 401, body: { error: 'unauthorized' } });

  const key = await createKey({});
  const granted = await fetch(`${svc.baseUrl}/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: key.id, client_secret: key.key }),
  }).then((r) => r.json() as Promise<Json>);
  const rotated = await call(owner.api_key, 'POST', `/v1/keys/${key.id}/rotate`);
  t.is(rotated.status, 200);
  t.not(rotated.body.data.key, key.key);
  t.is(rotated.body.data.id, key.id);
  t.is((await call(key.key, 'GET', '/v1/inboxes')).status, 401, 'the old secret');
  t.is((await call(granted.access_token, 'GET', '/v1/inboxes')).status, 401, 'a token of the old secret');
  t.is((await call(rotated.body.data.key, 'GET', '/v1/inboxes')).status, 200, 'the new secret');
  t.like(await call(owner.api_key, 'DELETE', `/v1/keys/${key.id}`), { status: 200, body: { success: true } });
  t.is((await call(rotated.body.data.key, 'GET', '/v1/inboxes')).status, 401);
  t.like(await call(owner.api_key, 'DELETE', `/v1/keys/${key.id}`), { status: 404, body: { error: 'not_found' } });
});
