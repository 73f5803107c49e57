// SEED.md's simplified OAuth, made safe (DESIGN §4): the API key is the client_id, PKCE S256 is
// required, codes are single-use and live 60 s, tokens are random and stored only as hashes on
// the account's shard. Errors follow RFC 6749 §4.1.2.1 (redirected) and §5.2 (token endpoint).
import { MailcueError } from '../../errors/registry.js';
import { newCredential, parseCredential } from '../../security/credentials.js';
import type { Deps } from '../../services/deps.js';
import type { IssuedTokens } from '../../contract/results.js';
import type { Meter } from '../../contract/commands.js';
import { admitToken } from '../auth.js';
import { nestsDeeperThan } from '../http/json-depth.js';
import type { Exchange } from '../http/exchange.js';
import type { Router } from '../http/router.js';
import type { Cors } from '../http/cors.js';
import { issuer, knownResources } from './metadata-routes.js';
import { PerIpWindow } from './per-ip-window.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const CHALLENGE = /^[A-Za-z0-9_-]{43,128}$/;
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** https anywhere, or http on a loopback host (native and CLI clients, RFC 8252 §7.3). */
function redirectAllowed(value: string): URL | null {
  try {
    const u = new URL(value);
    if (u.hash) return null;
    if (u.protocol === 'https:') return u;
    if (u.protocol === 'http:' && LOOPBACK_HOSTS.has(u.hostname)) return u;
    return null;
  } catch {
    return null;
  }
}

function oauthError(ex: Exchange, status: number, error: string, description: string): void {
  ex.sendJson(status, { error, error_description: description }, [['Cache-Control', 'no-store'], ['Pragma', 'no-cache']]);
}

/** The account of a client_id that is a valid API key, or null; a rate-limited key throws. */
async function validClient(deps: Deps, clientId: string | null, meter: Meter = { kind: 'none' }): Promise<string | null> {
  if (!clientId || parseCredential(clientId)?.kind !== 'api_key') return null;
  try {
    return (await admitToken(deps, clientId, meter)).account.id;
  } catch (err) {
    if (err instanceof MailcueError && err.code === 'rate_limited') throw err;
    return null;
  }
}

function rateLimited(ex: Exchange, retryAfterS: number, description: string): void {
  ex.sendJson(429, { error: 'rate_limited', error_description: description }, [['Retry-After', String(retryAfterS)], ['Cache-Control', 'no-store']]);
}

/** DESIGN §7: /authorize counts per client IP, and against the REST limit of the key it names. */
async function authorize(deps: Deps, perIp: AuthorizeWindow, ex: Exchange): Promise<void> {
  const q = ex.query;
  const wait = await perIp.take(ex.remoteAddress);
  if (wait > 0) return rateLimited(ex, wait, `Too many authorization requests from this address (${deps.config.authorizePerIpPerMinute} per minute)`);
  const clientId = q.get('client_id');
  const redirectRaw = q.get('redirect_uri');
  let accountId: string | null;
  try {
    accountId = await validClient(deps, clientId, { kind: 'rest' });
  } catch (err) {
    const retry = (err as MailcueError).details?.retry_after_s;
    return rateLimited(ex, typeof retry === 'number' ? retry : 60, (err as Error).message);
  }
  if (!accountId) return oauthError(ex, 400, 'invalid_client', 'client_id must be a valid API key');
  const redirect = redirectRaw ? redirectAllowed(redirectRaw) : null;
  if (!redirect) return oauthError(ex, 400, 'invalid_request', 'redirect_uri must be an https URL or an http URL on localhost');

  // From here on, errors go back to the client through the redirect.
  const back = (params: Record<string, string>) => {
    const target = new URL(redirect.href);
    for (const [k, v] of Object.entries(params)) target.searchParams.set(k, v);
    const state = q.get('state');
    if (state !== null) target.searchParams.set('state', state);
    target.searchParams.set('iss', issuer(deps.config));
    ex.send(302, '', null, [['Location', target.href], ['Cache-Control', 'no-store']]);
  };
  const responseType = q.get('response_type');
  // DESIGN §4: every error after the client and redirect are known redirects as invalid_request.
  if (responseType !== null && responseType !== 'code') return back({ error: 'invalid_request', error_description: 'response_type must be code' });
  const challenge = q.get('code_challenge');
  if (!challenge || !CHALLENGE.test(challenge)) return back({ error: 'invalid_request', error_description: 'code_challenge (PKCE) is required' });
  if (q.get('code_challenge_method') !== 'S256') return back({ error: 'invalid_request', error_description: 'code_challenge_method must be S256' });
  const resource = q.get('resource');
  if (resource !== null && !knownResources(deps.config).has(resource)) return back({ error: 'invalid_request', error_description: 'resource must name this server\'s /mcp or /sse' });

  const code = newCredential('auth_code', accountId);
  await deps.cluster.call({
    type: 'oauth.issue_code', accountId, codeHash: parseCredential(code)!.hash, codeChallenge: challenge, redirectUri: redirectRaw, resource,
  });
  back({ code });
}

/** A token request is a short form; nothing legitimate comes near this. */
const TOKEN_FORM_MAX_BYTES = 64 * 1024;

async function formBody(ex: Exchange): Promise<URLSearchParams> {
  const raw = (await ex.body()).toString('utf8');
  if ((ex.header('content-type') ?? '').includes('application/json')) {
    if (nestsDeeperThan(raw)) return new URLSearchParams();
    try {
      return new URLSearchParams(Object.entries(JSON.parse(raw) as Record<string, unknown>).map(([k, v]): [string, string] => [k, String(v)]));
    } catch {
      return new URLSearchParams();
    }
  }
  return new URLSearchParams(raw);
}

/** client_id from the form, or from HTTP Basic credentials (RFC 6749 §2.3.1). */
function clientIdOf(ex: Exchange, form: URLSearchParams): string | null {
  const basic = /^Basic\s+(\S+)$/i.exec(ex.header('authorization') ?? '');
  if (basic) {
    const user = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':')[0] ?? '';
    try {
      return decodeURIComponent(user);
    } catch {
      return null; // not a client id we could have issued: answered as invalid_client
    }
  }
  return form.get('client_id');
}

async function token(deps: Deps, ex: Exchange): Promise<void> {
  const form = await formBody(ex);
  const grant = form.get('grant_type');
  const access = (accountId: string) => newCredential('access_token', accountId);
  const refresh = (accountId: string) => newCredential('refresh_token', accountId);
  const answer = (accessToken: string, refreshToken: string, issued: IssuedTokens) =>
    ex.sendJson(200, { access_token: accessToken, token_type: 'Bearer', expires_in: issued.expires_in, refresh_token: refreshToken, scope: issued.scope }, [
      ['Cache-Control', 'no-store'], ['Pragma', 'no-cache'],
    ]);
  try {
    if (grant === 'authorization_code') {
      const code = parseCredential(form.get('code') ?? '');
      const verifier = form.get('code_verifier');
      const clientAccount = await validClient(deps, clientIdOf(ex, form));
      if (!clientAccount) return oauthError(ex, 401, 'invalid_client', 'client_id must be a valid API key');
      if (!code || code.kind !== 'auth_code' || code.accountId !== clientAccount) return oauthError(ex, 400, 'invalid_grant', 'The authorization code is invalid');
      if (!verifier || !VERIFIER.test(verifier)) return oauthError(ex, 400, 'invalid_request', 'code_verifier is required (RFC 7636)');
      const resource = form.get('resource');
      if (resource !== null && !knownResources(deps.config).has(resource)) return oauthError(ex, 400, 'invalid_target', 'unknown resource');
      const a = access(clientAccount);
      const r = refresh(clientAccount);
      const issued = await deps.cluster.call({
        type: 'oauth.redeem_code', accountId: clientAccount, codeHash: code.hash, codeVerifier: verifier, redirectUri: form.get('redirect_uri'),
        accessHash: parseCredential(a)!.hash, refreshHash: parseCredential(r)!.hash,
      });
      return answer(a, r, issued);
    }
    if (grant === 'refresh_token') {
      const old = parseCredential(form.get('refresh_token') ?? '');
      if (!old || old.kind !== 'refresh_token') return oauthError(ex, 400, 'invalid_grant', 'The refresh token is invalid');
      const clientId = clientIdOf(ex, form);
      if (clientId && (await validClient(deps, clientId)) !== old.accountId) return oauthError(ex, 401, 'invalid_client', 'client_id must be the API key the token was issued to');
      const a = access(old.accountId);
      const r = refresh(old.accountId);
      const issued = await deps.cluster.call({
        type: 'oauth.refresh', accountId: old.accountId, refreshHash: old.hash, accessHash: parseCredential(a)!.hash, newRefreshHash: parseCredential(r)!.hash,
      });
      return answer(a, r, issued);
    }
    return oauthError(ex, 400, grant ? 'unsupported_grant_type' : 'invalid_request', grant ? `grant_type ${grant} is not supported` : 'grant_type is required');
  } catch (err) {
    if (err instanceof MailcueError && (err.code === 'invalid_grant' || err.code === 'not_found')) return oauthError(ex, 400, 'invalid_grant', err.message);
    throw err;
  }
}

/** Counts /authorize calls per client IP: a PerIpWindow, or the first front thread's one (front-threads.ts). */
export interface AuthorizeWindow {
  take(ip: string): number | Promise<number>;
}

export function flowRoutes(router: Router, deps: Deps, cors: Cors, perIp: AuthorizeWindow = new PerIpWindow(deps.config.authorizePerIpPerMinute)): void {
  router
    .add('get', '/authorize', (ex) => authorize(deps, perIp, ex))
    .add('post', '/token', (ex) => {
      cors.apply(ex);
      return token(deps, ex);
    }, TOKEN_FORM_MAX_BYTES)
    .add('options', '/token', (ex) => cors.preflight(ex));
}
