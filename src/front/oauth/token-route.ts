// POST /token (RFC 6749 §3.2): the authorization_code grant (PKCE, RFC 7636) for every kind of
// client, refresh_token (rotating, never past the grant's end), and client_credentials for CI jobs
// and daemons (MCP extension io.modelcontextprotocol/oauth-client-credentials): a scoped key's id
// and secret, by HTTP Basic or in the form. Tokens are random, stored on the account's shard as
// hashes, and carry the scope of the key that granted them. Errors: RFC 6749 §5.2 JSON, each code
// and status from the error registry.
import type { IssuedTokens } from '../../contract/results.js';
import { MailcueError, fail, oauthErrorName } from '../../errors/registry.js';
import { isKeyId, newCredential, parseCredential } from '../../security/credentials.js';
import type { Deps } from '../../services/deps.js';
import { nestsDeeperThan } from '../http/json-depth.js';
import type { Exchange } from '../http/exchange.js';
import { knownResources } from './metadata-routes.js';
import { isKeyClientId, keyClient, wellFormedAppClient } from './oauth-clients.js';

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const NO_STORE: [string, string][] = [['Cache-Control', 'no-store'], ['Pragma', 'no-cache']];

/** An OAuth endpoint's error: RFC 6749 §5.2 JSON with the status the registry gives its code. */
export function sendOAuthError(ex: Exchange, thrown: unknown, basicAuth = false): void {
  if (!(thrown instanceof MailcueError)) throw thrown;
  if (ex.closed) return;
  const headers: [string, string][] = [...NO_STORE];
  const retry = thrown.details?.retry_after_s;
  if (thrown.code === 'rate_limited') headers.push(['Retry-After', String(typeof retry === 'number' ? retry : 60)]);
  // RFC 6749 §5.2: a client that authenticated with Basic is told how to authenticate.
  if (thrown.code === 'invalid_client' && basicAuth) headers.push(['WWW-Authenticate', 'Basic realm="mailcue"']);
  ex.sendJson(thrown.spec.http, { error: oauthErrorName(thrown.code), error_description: thrown.message }, headers);
}

/** A form body (or, as some clients send, JSON) as parameters; nothing for anything else. */
export async function formBody(ex: Exchange): Promise<URLSearchParams> {
  const json = (ex.header('content-type') ?? '').includes('application/json');
  const raw = (await ex.body()).toString('utf8');
  if (json) {
    if (nestsDeeperThan(raw)) return new URLSearchParams();
    try {
      return new URLSearchParams(Object.entries(JSON.parse(raw) as Record<string, unknown>).map(([k, v]): [string, string] => [k, String(v)]));
    } catch {
      return new URLSearchParams();
    }
  }
  return new URLSearchParams(raw);
}

interface ClientAuth {
  clientId: string | null;
  secret: string | null;
  basic: boolean;
}

/** The client's id and secret from HTTP Basic (RFC 6749 §2.3.1) or the form. */
function clientAuth(basicHeader: string | undefined, form: URLSearchParams): ClientAuth {
  const basic = /^Basic\s+(\S+)$/i.exec(basicHeader ?? '');
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const part = (s: string) => {
      try {
        return decodeURIComponent(s.replace(/\+/g, ' '));
      } catch {
        return null; // not a client id we could have issued: answered as invalid_client
      }
    };
    return { clientId: part(colon < 0 ? decoded : decoded.slice(0, colon)), secret: colon < 0 ? null : part(decoded.slice(colon + 1)), basic: true };
  }
  return { clientId: form.get('client_id'), secret: form.get('client_secret'), basic: false };
}

function checkResource(deps: Deps, form: URLSearchParams): void {
  const resource = form.get('resource');
  if (resource !== null && !knownResources(deps.config).has(resource)) fail('invalid_target', 'unknown resource');
}

function answer(ex: Exchange, accessToken: string, refreshToken: string | null, issued: IssuedTokens): void {
  ex.sendJson(200, {
    access_token: accessToken, token_type: 'Bearer', expires_in: issued.expires_in, ...(refreshToken ? { refresh_token: refreshToken } : {}), scope: issued.scope,
  }, NO_STORE);
}

async function authorizationCode(deps: Deps, ex: Exchange, form: URLSearchParams, auth: ClientAuth): Promise<void> {
  const code = parseCredential(form.get('code') ?? '');
  const verifier = form.get('code_verifier');
  const clientId = auth.clientId;
  let accountId: string;
  let appClient: string | null = null;
  if (clientId && isKeyClientId(clientId)) {
    try {
      accountId = (await keyClient(deps, clientId, { kind: 'none' })).accountId;
    } catch {
      fail('invalid_client', 'client_id must be a valid API key');
    }
    if (!code || code.kind !== 'auth_code' || code.accountId !== accountId) fail('invalid_grant', 'The authorization code is invalid');
  } else {
    // A metadata-document or registered client: the code names the account; the shard checks the client.
    if (!clientId || !wellFormedAppClient(clientId)) fail('invalid_client', 'client_id must be a valid API key or the client the code was issued to');
    if (!code || code.kind !== 'auth_code') fail('invalid_grant', 'The authorization code is invalid');
    accountId = code.accountId;
    appClient = clientId;
  }
  if (!verifier || !VERIFIER.test(verifier)) fail('invalid_request', 'code_verifier is required (RFC 7636)');
  checkResource(deps, form);
  const a = newCredential('access_token', accountId);
  const r = newCredential('refresh_token', accountId);
  const issued = await deps.cluster.call({
    type: 'oauth.redeem_code', accountId, codeHash: code.hash, codeVerifier: verifier, redirectUri: form.get('redirect_uri'),
    accessHash: parseCredential(a)!.hash, refreshHash: parseCredential(r)!.hash, clientId: appClient,
  });
  answer(ex, a, r, issued);
}

async function refreshToken(deps: Deps, ex: Exchange, form: URLSearchParams, auth: ClientAuth): Promise<void> {
  const old = parseCredential(form.get('refresh_token') ?? '');
  if (!old || old.kind !== 'refresh_token') fail('invalid_grant', 'The refresh token is invalid');
  if (auth.clientId && isKeyClientId(auth.clientId)) {
    const account = await keyClient(deps, auth.clientId, { kind: 'none' }).then((c) => c.accountId, () => null);
    if (account !== old.accountId) fail('invalid_client', 'client_id must be the API key the token was issued to');
  }
  checkResource(deps, form);
  const a = newCredential('access_token', old.accountId);
  const r = newCredential('refresh_token', old.accountId);
  const issued = await deps.cluster.call({
    type: 'oauth.refresh', accountId: old.accountId, refreshHash: old.hash, accessHash: parseCredential(a)!.hash, newRefreshHash: parseCredential(r)!.hash,
  });
  answer(ex, a, r, issued);
}

/** A scoped key's id (client_id) and secret (client_secret) buy an access token with its scope. */
async function clientCredentials(deps: Deps, ex: Exchange, form: URLSearchParams, auth: ClientAuth): Promise<void> {
  const secret = parseCredential(auth.secret ?? '');
  if (!isKeyId(auth.clientId) || !secret || secret.kind !== 'scoped_key') {
    fail('invalid_client', 'client_credentials needs a scoped key: its id as client_id and its secret as client_secret (POST /v1/keys)');
  }
  checkResource(deps, form);
  const a = newCredential('access_token', secret.accountId);
  const issued = await deps.cluster.call({
    type: 'oauth.client_credentials', accountId: secret.accountId, keyId: auth.clientId, secretHash: secret.hash, accessHash: parseCredential(a)!.hash,
  });
  answer(ex, a, null, issued);
}

export async function tokenRoute(deps: Deps, ex: Exchange): Promise<void> {
  const basicHeader = ex.header('authorization');
  let auth: ClientAuth = { clientId: null, secret: null, basic: false };
  try {
    const form = await formBody(ex);
    auth = clientAuth(basicHeader, form);
    const grant = form.get('grant_type');
    switch (grant) {
      case 'authorization_code':
        return await authorizationCode(deps, ex, form, auth);
      case 'refresh_token':
        return await refreshToken(deps, ex, form, auth);
      case 'client_credentials':
        return await clientCredentials(deps, ex, form, auth);
      case null:
        fail('invalid_request', 'grant_type is required');
      default:
        fail('unsupported_grant_type', `grant_type ${grant} is not supported`);
    }
  } catch (err) {
    // A code, token or account the shard does not know is a grant that is not valid.
    const known = err instanceof MailcueError && err.code === 'not_found'
      ? new MailcueError(auth.secret ? 'invalid_client' : 'invalid_grant', err.message)
      : err;
    sendOAuthError(ex, known, auth.basic);
  }
}
