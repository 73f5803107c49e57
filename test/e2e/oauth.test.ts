// End to end: the OAuth flow driven by the official MCP SDK client's auth helpers, with the API key
// as client_id, then agent-tool sessions with the access token; and hostile token requests.
import test from 'ava';
import {
  discoverAuthorizationServerMetadata, discoverOAuthProtectedResourceMetadata, exchangeAuthorization, refreshAuthorization, startAuthorization,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { connectMcp, rawInitialize, rawMcp } from '../helpers/mcp.js';
import { authorizeUrl as authorizeAt, pkce } from '../helpers/oauth.js';
import { startService, type Service } from '../helpers/service.js';

type Json = Record<string, any>;
let svc: Service;
const CALLBACK = 'http://localhost:33418/callback';

test.before(async () => {
  svc = await startService({ env: { MAILCUE_OAUTH_CODE_TTL_MS: '1500' } });
});
test.after.always(async () => {
  await svc?.stop();
});

async function codeFrom(url: URL): Promise<{ code: string; state: string | null; location: URL }> {
  const res = await fetch(url, { redirect: 'manual' });
  if (res.status !== 302) throw new Error(`authorize: ${res.status} ${await res.text()}`);
  const location = new URL(res.headers.get('location')!);
  return { code: location.searchParams.get('code')!, state: location.searchParams.get('state'), location };
}

async function sdkFlow(apiKey: string, resourcePath: 'mcp' | 'sse') {
  const prm = await discoverOAuthProtectedResourceMetadata(new URL(`${svc.baseUrl}/${resourcePath}`));
  const as = prm.authorization_servers![0]!;
  const metadata = await discoverAuthorizationServerMetadata(as);
  const clientInformation = { client_id: apiKey };
  const { authorizationUrl, codeVerifier } = await startAuthorization(as, {
    metadata, clientInformation, redirectUrl: CALLBACK, scope: 'mcp', state: 's-1', resource: new URL(prm.resource),
  });
  const { code, state } = await codeFrom(authorizationUrl);
  const tokens = await exchangeAuthorization(as, {
    metadata, clientInformation, authorizationCode: code, codeVerifier, redirectUri: CALLBACK, resource: new URL(prm.resource),
  });
  return { prm, as, metadata, clientInformation, tokens, state };
}

test('oauth - metadata: RFC 8414 and the three RFC 9728 documents agree on the issuer', async (t) => {
  const as = (await (await fetch(`${svc.baseUrl}/.well-known/oauth-authorization-server`)).json()) as Json;
  t.is(as.issuer, svc.baseUrl);
  t.is(as.authorization_endpoint, `${svc.baseUrl}/authorize`);
  t.is(as.token_endpoint, `${svc.baseUrl}/token`);
  t.deepEqual(as.response_types_supported, ['code']);
  t.deepEqual(as.code_challenge_methods_supported, ['S256']);
  t.deepEqual(as.token_endpoint_auth_methods_supported, ['none', 'client_secret_basic', 'client_secret_post']);
  t.true(as.client_id_metadata_document_supported);
  t.true(as.authorization_response_iss_parameter_supported);
  t.is(as.registration_endpoint, `${svc.baseUrl}/register`);
  for (const [path, resource] of [['', svc.baseUrl], ['/mcp', `${svc.baseUrl}/mcp`], ['/sse', `${svc.baseUrl}/sse`]]) {
    const res = await fetch(`${svc.baseUrl}/.well-known/oauth-protected-resource${path}`);
    t.is(res.headers.get('access-control-allow-origin'), '*');
    const doc = (await res.json()) as Json;
    t.is(doc.resource, resource);
    t.is(doc.authorization_servers[0], as.issuer);
  }
  const challenge = await fetch(`${svc.baseUrl}/sse`, { headers: { accept: 'text/event-stream' } });
  t.is(challenge.status, 401);
  t.is(challenge.headers.get('www-authenticate'), `Bearer resource_metadata="${svc.baseUrl}/.well-known/oauth-protected-resource/sse"`);
});

test('oauth - the SDK helpers sign in with the API key as client_id; the token opens sessions over /sse and /mcp; refresh works', async (t) => {
  const { api_key } = await svc.createAccount('growth');
  const flow = await sdkFlow(api_key, 'sse');
  t.is(flow.state, 's-1');
  t.regex(flow.tokens.access_token, /^mca_/);
  t.is(flow.tokens.token_type, 'Bearer');
  t.is(flow.tokens.expires_in, 3600);
  t.is(flow.tokens.scope, 'mcp');
  for (const kind of ['sse', 'streamable-http'] as const) {
    const client = await connectMcp(kind, svc.baseUrl, flow.tokens.access_token);
    const r = await client.callTool({ name: 'list_inboxes', arguments: {} });
    t.falsy(r.isError, kind);
    await client.close();
  }
  const refreshed = await refreshAuthorization(flow.as, { metadata: flow.metadata, clientInformation: flow.clientInformation, refreshToken: flow.tokens.refresh_token! });
  t.not(refreshed.access_token, flow.tokens.access_token);
  const client = await connectMcp('streamable-http', svc.baseUrl, refreshed.access_token);
  await client.listTools();
  await client.close();
  // The used refresh token was rotated out.
  await t.throwsAsync(refreshAuthorization(flow.as, { metadata: flow.metadata, clientInformation: flow.clientInformation, refreshToken: flow.tokens.refresh_token! }));
  // The token answer carries no-store and no null fields.
  const raw = await fetch(`${svc.baseUrl}/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshed.refresh_token! }),
  });
  t.is(raw.headers.get('cache-control'), 'no-store');
  t.false(Object.values((await raw.json()) as Json).includes(null));
});

test('oauth - a Free key gets a token, but every tool call is -32001', async (t) => {
  const { api_key } = await svc.createAccount('free');
  const { tokens } = await sdkFlow(api_key, 'mcp');
  const session = await rawInitialize(svc.baseUrl, tokens.access_token);
  const res = await rawMcp(svc.baseUrl, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_inboxes', arguments: {} } }, {
    authorization: `Bearer ${tokens.access_token}`, 'mcp-session-id': session,
  });
  t.is(res.status, 403);
  t.like(await res.json(), { error: { code: -32001 } });
});


const authorizeUrl = (params: Record<string, string>): URL => authorizeAt(svc.baseUrl, CALLBACK, params);

async function token(params: Record<string, string>): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${svc.baseUrl}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params) });
  return { status: res.status, body: (await res.json()) as Json };
}

test('oauth - hostile requests are refused with the right error and no token', async (t) => {
  const { api_key } = await svc.createAccount('growth');
  const { verifier, challenge } = pkce();
  const issue = async () => (await codeFrom(authorizeUrl({ client_id: api_key, code_challenge: challenge }))).code;
  const exchange = (code: string, extra: Record<string, string> = {}) =>
    token({ grant_type: 'authorization_code', code, client_id: api_key, code_verifier: verifier, redirect_uri: CALLBACK, ...extra });

  const wrongVerifier = await exchange(await issue(), { code_verifier: pkce().verifier });
  t.is(wrongVerifier.status, 400);
  t.is(wrongVerifier.body.error, 'invalid_grant');
  t.falsy(wrongVerifier.body.access_token);

  const code = await issue();
  t.is((await exchange(code)).status, 200);
  const reused = await exchange(code);
  t.is(reused.body.error, 'invalid_grant');

  const stale = await issue();
  await new Promise((r) => setTimeout(r, 1800));
  t.is((await exchange(stale)).body.error, 'invalid_grant');

  const mismatched = await exchange(await issue(), { redirect_uri: 'http://localhost:33418/elsewhere' });
  t.is(mismatched.body.error, 'invalid_grant');

  const noVerifier = await token({ grant_type: 'authorization_code', code: await issue(), client_id: api_key, redirect_uri: CALLBACK });
  t.is(noVerifier.body.error, 'invalid_request');

  const plain = await fetch(authorizeUrl({ client_id: api_key, code_challenge: challenge, code_challenge_method: 'plain' }), { redirect: 'manual' });
  t.is(plain.status, 302);
  const plainLocation = new URL(plain.headers.get('location')!);
  t.is(plainLocation.searchParams.get('error'), 'invalid_request');
  t.is(plainLocation.searchParams.get('code'), null);
  t.is(plainLocation.searchParams.get('state'), 'st');

  const missingChallenge = await fetch(authorizeUrl({ client_id: api_key }), { redirect: 'manual' });
  t.is(new URL(missingChallenge.headers.get('location')!).searchParams.get('error'), 'invalid_request');

  const unknownClient = await fetch(authorizeUrl({ client_id: 'mc_0000000000000000_000000000000000000000000000000000000000000000000', code_challenge: challenge }), { redirect: 'manual' });
  t.is(unknownClient.status, 400);
  t.is(unknownClient.headers.get('location'), null);
  t.is(((await unknownClient.json()) as Json).error, 'invalid_client');

  const badRedirect = await fetch(authorizeUrl({ client_id: api_key, code_challenge: challenge, redirect_uri: 'http://evil.example.com/cb' }), { redirect: 'manual' });
  t.is(badRedirect.status, 400);
  t.is(badRedirect.headers.get('location'), null);

  const wrongClient = await exchange(await issue(), { client_id: (await svc.createAccount('growth')).api_key });
  t.true(['invalid_grant', 'invalid_client'].includes(wrongClient.body.error));

  const good = await exchange(await issue());
  const tampered = good.body.access_token.slice(0, -4) + (good.body.access_token.endsWith('0000') ? '1111' : '0000');
  const res = await rawMcp(svc.baseUrl, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }, { authorization: `Bearer ${tampered}` });
  t.is(res.status, 401);
  t.like(await res.json(), { error: { code: -32002 } });

  const grant = await token({ grant_type: 'password', username: 'a', password: 'b' });
  t.is(grant.body.error, 'unsupported_grant_type');
});

test('oauth - redirect_uri on 127.0.0.1 or https and an RFC 8707 resource are accepted; state is echoed', async (t) => {
  const { api_key } = await svc.createAccount('developer');
  const { challenge } = pkce();
  for (const redirect of ['http://127.0.0.1:4000/cb', 'https://claude.ai/api/mcp/auth_callback']) {
    for (const resource of [`${svc.baseUrl}/sse`, `${svc.baseUrl}/mcp`, `${svc.baseUrl}/`, svc.baseUrl]) {
      const { code, state, location } = await codeFrom(authorizeUrl({ client_id: api_key, code_challenge: challenge, redirect_uri: redirect, resource, scope: 'mcp offline_access whatever' }));
      t.truthy(code);
      t.is(state, 'st');
      t.is(location.origin + location.pathname, redirect);
    }
  }
});

/** An OAuthClientProvider as a connector would write it: the API key is the client id it was given. */
function connectorProvider(apiKey: string) {
  const state: { tokens?: Record<string, unknown>; verifier?: string; authorizationUrl?: URL } = {};
  const provider: OAuthClientProvider = {
    get redirectUrl() { return CALLBACK; },
    get clientMetadata() { return { redirect_uris: [CALLBACK], client_name: 'connector', token_endpoint_auth_method: 'none' }; },
    clientInformation: () => ({ client_id: apiKey }),
    tokens: () => state.tokens as never,
    saveTokens: (tokens) => { state.tokens = tokens as never; },
    redirectToAuthorization: (url) => { state.authorizationUrl = url; },
    saveCodeVerifier: (v) => { state.verifier = v; },
    codeVerifier: () => state.verifier!,
  };
  return { provider, state };
}

for (const kind of ['streamable-http', 'sse'] as const) {
  test(`oauth - the SDK transport's own auth flow (${kind}): 401, discovery, authorize, finishAuth, then tools`, async (t) => {
    const { api_key } = await svc.createAccount('growth');
    const { provider, state } = connectorProvider(api_key);
    const url = new URL(`${svc.baseUrl}/${kind === 'sse' ? 'sse' : 'mcp'}`);
    const make = () => (kind === 'sse' ? new SSEClientTransport(url, { authProvider: provider }) : new StreamableHTTPClientTransport(url, { authProvider: provider }));
    const first = make();
    await t.throwsAsync(new Client({ name: 'c', version: '1' }).connect(first), { instanceOf: UnauthorizedError });
    t.truthy(state.authorizationUrl);
    const { code } = await codeFrom(state.authorizationUrl!);
    await first.finishAuth(code);
    t.regex(String(state.tokens?.access_token), /^mca_/);
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(make());
    const r = await client.callTool({ name: 'list_inboxes', arguments: {} });
    t.falsy(r.isError);
    await client.close();
  });
}
