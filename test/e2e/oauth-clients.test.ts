// End to end: OAuth for clients that are not the account's key (issue 36). The official MCP SDK
// clients, v1 and v2, each sign in with a Client ID Metadata Document published on a real HTTPS server on
// loopback, and, where it has none, registers itself (RFC 7591); the user signs in and allows on
// the consent page (its forms submitted as a browser would); the authorization response carries
// RFC 9207 `iss`. Hostile documents, redirects and pages are refused or kept inert.
import test from 'ava';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { beginSignIn, connectSdk, SDK_AUTH, type Sdk } from '../helpers/mcp-clients.js';
import { startMetadataServer, type MetadataServer } from '../helpers/metadata-server.js';
import { authorizeUrl as authorizeAt, pkce } from '../helpers/oauth.js';
import { startService, type Service } from '../helpers/service.js';

type Json = Record<string, any>;
let svc: Service;
let docs: MetadataServer;
let owner: { id: string; api_key: string };
const CALLBACK = 'http://localhost:33418/callback';

test.before(async () => {
  docs = await startMetadataServer();
  // The test-only switch lets the service reach the loopback HTTPS server, as webhook tests do.
  svc = await startService({ env: { MAILCUE_WEBHOOK_ALLOW_PRIVATE: 'true', MAILCUE_WEBHOOK_CA_FILE: docs.caFile } });
  owner = await svc.createAccount('growth', 'Acme QA');
});
test.after.always(async () => {
  await svc?.stop();
  await docs?.close();
});

const unescape = (s: string) => s.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));

/** The hidden fields of the page's form, as a browser would submit them. */
function formOf(html: string): URLSearchParams {
  const form = new URLSearchParams();
  for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) form.append(unescape(m[1]!), unescape(m[2]!));
  return form;
}

const post = (form: URLSearchParams) =>
  fetch(`${svc.baseUrl}/authorize`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });

/** What a user does on the consent page: sign in with `key`, then Allow (or Deny). */
async function consent(authorizationUrl: URL, key: string, decision: 'allow' | 'deny' = 'allow'): Promise<{ location: URL; pages: string[] }> {
  const first = await fetch(authorizationUrl, { redirect: 'manual' });
  if (first.status !== 200) throw new Error(`authorize: ${first.status} ${await first.text()}`);
  const signIn = await first.text();
  const form = formOf(signIn);
  form.set('api_key', key);
  form.set('step', 'sign_in');
  const second = await post(form);
  const confirm = await second.text();
  if (second.status !== 200) throw new Error(`sign in: ${second.status} ${confirm}`);
  const decide = formOf(confirm);
  decide.set('decision', decision);
  const third = await post(decide);
  if (third.status !== 303) throw new Error(`decision: ${third.status} ${await third.text()}`);
  return { location: new URL(third.headers.get('location')!), pages: [signIn, confirm] };
}

/** An OAuthClientProvider as an agent host writes it, with a metadata-document URL or registering itself. */
function hostProvider(clientMetadataUrl?: string) {
  const state: { tokens?: Json; verifier?: string; authorizationUrl?: URL; client?: Json; discovery?: Json } = {};
  const provider: OAuthClientProvider = {
    get redirectUrl() { return CALLBACK; },
    clientMetadataUrl,
    get clientMetadata() { return { redirect_uris: [CALLBACK], client_name: 'Agent Host', token_endpoint_auth_method: 'none' }; },
    clientInformation: () => state.client as never,
    saveClientInformation: (info) => { state.client = info as Json; },
    tokens: () => state.tokens as never,
    saveTokens: (tokens) => { state.tokens = tokens as Json; },
    redirectToAuthorization: (url) => { state.authorizationUrl = url; },
    saveCodeVerifier: (v) => { state.verifier = v; },
    // v2 binds the callback to the authorization server it discovered (SEP-2352); v1 never calls these.
    saveDiscoveryState: (d: Json) => { state.discovery = d; },
    discoveryState: () => state.discovery as never,
    codeVerifier: () => state.verifier!,
    state: () => 'st-42',
  };
  return { provider, state };
}

async function signInWithSdk(t: import('ava').ExecutionContext, sdk: Sdk, provider: OAuthClientProvider, state: { authorizationUrl?: URL }, key: string) {
  const first = await beginSignIn(sdk, svc.baseUrl, provider);
  t.true(first.error instanceof SDK_AUTH[sdk].UnauthorizedError, `the SDK asks the user to sign in: ${String(first.error)}`);
  t.truthy(state.authorizationUrl);
  const { location, pages } = await consent(state.authorizationUrl!, key);
  t.is(location.origin + location.pathname, CALLBACK);
  t.is(location.searchParams.get('state'), 'st-42');
  t.is(location.searchParams.get('iss'), svc.baseUrl, 'RFC 9207 iss');
  await first.finishAuth(location.searchParams);
  const client = await connectSdk(sdk, svc.baseUrl, { authProvider: provider });
  return { client, pages };
}

for (const sdk of ['v1', 'v2'] as Sdk[]) {
  test(`oauth clients ${sdk} - the SDK signs in with a Client ID Metadata Document; the consent page names the client, the account and the scope`, async (t) => {
    const clientId = docs.publish(`/cimd/host-${sdk}.json`, { client_name: 'Agent Host', redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none' }, { 'cache-control': 'max-age=300' });
    const { provider, state } = hostProvider(clientId);
    const { client, pages } = await signInWithSdk(t, sdk, provider, state, owner.api_key);
    t.is(new URL(state.authorizationUrl!).searchParams.get('client_id'), clientId, 'the SDK used the document URL as client_id');
    t.regex(pages[0]!, /Agent Host/);
    t.regex(pages[1]!, /Agent Host/);
    t.regex(pages[1]!, new RegExp(`Acme QA \\(${owner.id}\\)`), 'the account');
    t.regex(pages[1]!, /mcp: use Mailcue/, 'the scope');
    t.regex(pages[1]!, /every inbox, read and write/);
    t.regex(String(state.tokens?.access_token), /^mca_/);
    t.falsy((await client.callTool('list_inboxes', {})).isError);
    await client.close();
    t.is(docs.hits.get(`/cimd/host-${sdk}.json`), 1, 'fetched once: max-age=300 let the later steps use the cache');
  });
}

test('oauth clients - a document is fetched again when its headers forbid caching', async (t) => {
  const clientId = docs.publish('/cimd/nostore.json', { redirect_uris: [CALLBACK] }, { 'cache-control': 'no-store' });
  const { challenge } = pkce();
  const url = authorizeUrl({ client_id: clientId, code_challenge: challenge });
  t.is((await fetch(url)).status, 200);
  t.is((await fetch(url)).status, 200);
  t.is(docs.hits.get('/cimd/nostore.json'), 2);
});

for (const sdk of ['v1', 'v2'] as Sdk[]) {
  test(`oauth clients ${sdk} - without a document the SDK registers itself (RFC 7591) and signs in; a scoped key signing in gives its scope`, async (t) => {
    const inbox = ((await (await svc.api(owner.api_key, 'POST', '/v1/inboxes', {})).json()) as Json).data.address as string;
    const other = ((await (await svc.api(owner.api_key, 'POST', '/v1/inboxes', {})).json()) as Json).data.address as string;
    const scoped = ((await (await svc.api(owner.api_key, 'POST', '/v1/keys', { inboxes: [inbox], read_only: true })).json()) as Json).data;
    const { provider, state } = hostProvider();
    const { client, pages } = await signInWithSdk(t, sdk, provider, state, scoped.key);
    t.regex(String(state.client?.client_id), /^mcd_/, 'registered through /register');
    t.regex(pages[1]!, new RegExp(`${inbox.replace('.', '\\.')}, read only`), 'the page says what the key reaches');
    t.falsy((await client.callTool('get_messages', { inbox })).isError);
    t.true((await client.callTool('get_messages', { inbox: other })).isError, 'the token has the key\'s scope');
    await client.close();
  });
}

const authorizeUrl = (params: Record<string, string>): URL => authorizeAt(svc.baseUrl, CALLBACK, params);

test('oauth clients - hostile documents, redirects and client names are refused or kept inert', async (t) => {
  const { challenge, verifier } = pkce();
  const refused = async (clientId: string, extra: Record<string, string> = {}) => {
    const res = await fetch(authorizeUrl({ client_id: clientId, code_challenge: challenge, ...extra }), { redirect: 'manual' });
    return { status: res.status, location: res.headers.get('location'), body: (await res.json()) as Json };
  };
  const good = docs.publish('/cimd/good.json', { redirect_uris: [CALLBACK] });
  t.like(await refused(good, { redirect_uri: 'https://evil.example.com/cb' }), { status: 400, location: null, body: { error: 'invalid_request' } }, 'unregistered redirect');
  docs.docs.set('/cimd/liar.json', { body: JSON.stringify({ client_id: 'https://other.example.com/c.json', redirect_uris: [CALLBACK] }) });
  t.like(await refused(`${docs.origin}/cimd/liar.json`), { status: 400, location: null, body: { error: 'invalid_client' } }, 'client_id mismatch');
  docs.publish('/cimd/huge.json', { redirect_uris: [CALLBACK], padding: 'x'.repeat(6000) });
  t.like(await refused(`${docs.origin}/cimd/huge.json`), { status: 400, body: { error: 'invalid_client' } }, 'over 5 KB');
  docs.publish('/cimd/secret.json', { redirect_uris: [CALLBACK], token_endpoint_auth_method: 'client_secret_basic' });
  t.like(await refused(`${docs.origin}/cimd/secret.json`), { status: 400, body: { error: 'invalid_client' } }, 'shared secret');
  t.like(await refused(`${docs.origin}/cimd/missing.json`), { status: 400, body: { error: 'invalid_client' } }, '404');
  t.like(await refused(`${docs.origin}/`), { status: 400, body: { error: 'invalid_client' } }, 'no path');
  t.like(await refused(`${docs.origin}/a/../cimd/good.json`), { status: 400, body: { error: 'invalid_client' } }, 'dot segments');
  docs.docs.set('/cimd/hang.json', { body: '', hang: true });
  const started = Date.now();
  t.like(await refused(`${docs.origin}/cimd/hang.json`), { status: 400, body: { error: 'invalid_client' } }, 'a hanging server');
  t.true(Date.now() - started < 8_000, 'the fetch is bounded in time');

  // The client's name is the attacker's text: escaped, no script runs, the page is not framable.
  const evil = docs.publish('/cimd/evil.json', { client_name: '<script>alert(1)</script><img src=x onerror=alert(2)>"\'', redirect_uris: [CALLBACK] });
  const page = await fetch(authorizeUrl({ client_id: evil, code_challenge: challenge }));
  const html = await page.text();
  t.false(html.includes('<script>alert'));
  t.false(html.includes('<img src=x'));
  t.true(html.includes('&#60;script&#62;alert(1)'));
  t.regex(page.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  t.is(page.headers.get('x-frame-options'), 'DENY');

  // A wrong key on the sign-in step shows the page again; Deny goes back with access_denied, state and iss.
  const form = formOf(html);
  form.set('api_key', 'mc_0000000000000000_000000000000000000000000000000000000000000000000');
  const wrong = await post(form);
  t.is(wrong.status, 401);
  t.regex(await wrong.text(), /not valid/);
  const { location } = await consent(authorizeUrl({ client_id: good, code_challenge: challenge }), owner.api_key, 'deny');
  t.is(location.searchParams.get('error'), 'access_denied');
  t.is(location.searchParams.get('state'), 'st');
  t.is(location.searchParams.get('iss'), svc.baseUrl);
  t.is(location.searchParams.get('code'), null);

  // A code issued to one client is no good to another, nor to the account's own key.
  const allowed = await consent(authorizeUrl({ client_id: good, code_challenge: challenge }), owner.api_key);
  const code = allowed.location.searchParams.get('code')!;
  const exchange = (clientId: string) => fetch(`${svc.baseUrl}/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: CALLBACK }),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as Json }));
  t.like(await exchange(evil), { status: 400, body: { error: 'invalid_grant' } });
  const again = await consent(authorizeUrl({ client_id: good, code_challenge: challenge }), owner.api_key);
  const code2 = again.location.searchParams.get('code')!;
  const viaKey = await fetch(`${svc.baseUrl}/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: code2, code_verifier: verifier, client_id: owner.api_key, redirect_uri: CALLBACK }),
  });
  t.is(viaKey.status, 400);
  // Registration refuses what it cannot honour.
  const reg = async (body: unknown) => {
    const res = await fetch(`${svc.baseUrl}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Json };
  };
  t.like(await reg({ redirect_uris: ['http://evil.example.com/cb'] }), { status: 400, body: { error: 'invalid_redirect_uri' } });
  t.like(await reg({ redirect_uris: [CALLBACK], grant_types: ['client_credentials'] }), { status: 400, body: { error: 'invalid_client_metadata' } });
  t.like(await reg({ redirect_uris: [CALLBACK] }), { status: 201, body: { token_endpoint_auth_method: 'none' } });
});

test('oauth clients - a metadata document at a private address is refused without the test-only switch', async (t) => {
  const strict = await startService({ env: { MAILCUE_WEBHOOK_CA_FILE: docs.caFile } });
  try {
    const clientId = docs.publish('/cimd/private.json', { redirect_uris: [CALLBACK] });
    const url = new URL(`${strict.baseUrl}/authorize`);
    url.search = new URLSearchParams({ client_id: clientId, redirect_uri: CALLBACK, response_type: 'code', code_challenge: pkce().challenge, code_challenge_method: 'S256' }).toString();
    const res = await fetch(url, { redirect: 'manual' });
    t.is(res.status, 400);
    const body = (await res.json()) as Json;
    t.is(body.error, 'invalid_client');
    t.regex(body.error_description, /not a public address/);
    t.is(docs.hits.get('/cimd/private.json') ?? 0, 0, 'nothing was sent there');
  } finally {
    await strict.stop();
  }
});
