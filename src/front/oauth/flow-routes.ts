// /authorize and /register: SEED.md's simplified flow (the API key is the client_id: an immediate
// redirect with the code), made safe (DESIGN §4), and issue 36's clients that are not keys (Client
// ID Metadata Documents, RFC 7591 registration), which get a consent page naming the client, the
// account and the scope. PKCE S256 is required; codes are single-use and live 60 s; every
// authorization response carries RFC 9207 `iss`. Errors come from the registry (src/errors/registry.ts).
import type { Meter } from '../../contract/commands.js';
import { describeScope } from '../../contract/keys.js';
import { MailcueError, errorSpec, fail, oauthErrorName } from '../../errors/registry.js';
import { newCredential, parseCredential } from '../../security/credentials.js';
import type { Deps } from '../../services/deps.js';
import { admitToken } from '../auth.js';
import type { Cors } from '../http/cors.js';
import type { Exchange } from '../http/exchange.js';
import type { Router } from '../http/router.js';
import type { ClientMetadataFetcher } from './client-metadata.js';
import { consentPage, PAGE_HEADERS, signInPage, type Carried, type ConsentClient } from './consent-page.js';
import { issuer, knownResources } from './metadata-routes.js';
import { allowedRedirect, resolveClient, type OAuthClient } from './oauth-clients.js';
import { formBody, sendOAuthError, tokenRoute } from './token-route.js';
import { clientKey } from '../../security/client-key.js';
import { PerIpWindow } from './per-ip-window.js';
import { register } from './registration.js';

const CHALLENGE = /^[A-Za-z0-9_-]{43,128}$/;
/** The parameters an authorization request carries through the consent page's form. */
const CARRIED = ['response_type', 'client_id', 'redirect_uri', 'state', 'code_challenge', 'code_challenge_method', 'resource', 'scope'] as const;
const FORM_MAX_BYTES = 64 * 1024;

/** Counts /authorize (and /register) calls per client IP: a PerIpWindow, or the first front thread's one (front-threads.ts). */
export interface AuthorizeWindow {
  take(ip: string): number | Promise<number>;
}

interface Checked {
  client: OAuthClient;
  redirect: URL;
  redirectRaw: string | null;
  challenge: string;
  resource: string | null;
}

/** Where the browser goes back to, with `params`, `state` and `iss` (RFC 9207). */
function backTo(deps: Deps, ex: Exchange, checked: Pick<Checked, 'redirect'>, q: URLSearchParams, params: Record<string, string>, status: 302 | 303): void {
  const target = new URL(checked.redirect.href);
  for (const [k, v] of Object.entries(params)) target.searchParams.set(k, v);
  const state = q.get('state');
  if (state !== null) target.searchParams.set('state', state);
  target.searchParams.set('iss', issuer(deps.config));
  ex.send(status, '', null, [['Location', target.href], ['Cache-Control', 'no-store']]);
}

/**
 * Checks an authorization request. A bad client or redirect throws (answered, never redirected);
 * anything else wrong is answered through the redirect (DESIGN §4) and yields null.
 */
async function check(deps: Deps, fetcher: ClientMetadataFetcher, ex: Exchange, q: URLSearchParams, meter: Meter, status: 302 | 303): Promise<Checked | null> {
  const client = await resolveClient(deps, fetcher, q.get('client_id'), meter);
  const { url: redirect, raw: redirectRaw } = allowedRedirect(client, q.get('redirect_uri'));
  const bad = (description: string) => {
    backTo(deps, ex, { redirect }, q, { error: oauthErrorName('invalid_request'), error_description: description }, status);
    return null;
  };
  const responseType = q.get('response_type');
  if (responseType !== null && responseType !== 'code') return bad('response_type must be code');
  const challenge = q.get('code_challenge');
  if (!challenge || !CHALLENGE.test(challenge)) return bad('code_challenge (PKCE) is required');
  if (q.get('code_challenge_method') !== 'S256') return bad('code_challenge_method must be S256');
  const resource = q.get('resource');
  if (resource !== null && !knownResources(deps.config).has(resource)) return bad('resource must name this server\'s /mcp or /sse');
  return { client, redirect, redirectRaw, challenge, resource };
}

async function issueCode(deps: Deps, c: Checked, accountId: string, keyId: string | null): Promise<string> {
  const code = newCredential('auth_code', accountId);
  await deps.cluster.call({
    type: 'oauth.issue_code', accountId, codeHash: parseCredential(code)!.hash, codeChallenge: c.challenge, redirectUri: c.redirectRaw, resource: c.resource,
    keyId, clientId: c.client.kind === 'app' ? c.client.clientId : null,
  });
  return code;
}

function consentClient(c: Checked): ConsentClient {
  return { name: c.client.kind === 'app' ? c.client.metadata.client_name : null, clientId: c.client.clientId, redirectUri: c.redirect.href };
}

function carried(q: URLSearchParams): Carried {
  return CARRIED.flatMap((k): Carried => (q.get(k) === null ? [] : [[k, q.get(k)!]]));
}

async function limited(deps: Deps, perIp: AuthorizeWindow, remote: string): Promise<void> {
  // An IPv6 client counts by its /64 (issue 33): rotating addresses within it is one client.
  const wait = await perIp.take(clientKey(remote));
  if (wait > 0) fail('rate_limited', `Too many authorization requests from this address (${deps.config.authorizePerIpPerMinute} per minute)`, { retry_after_s: wait });
}

/** GET /authorize: a key client gets its code at once (SEED.md); any other client the sign-in page. */
async function authorize(deps: Deps, fetcher: ClientMetadataFetcher, perIp: AuthorizeWindow, ex: Exchange): Promise<void> {
  const q = ex.query;
  const remote = ex.remoteAddress;
  // DESIGN §7: counted per client IP, and against the REST limit of the key it names.
  await limited(deps, perIp, remote);
  const c = await check(deps, fetcher, ex, q, { kind: 'rest' }, 302);
  if (!c) return;
  if (c.client.kind === 'key') {
    const code = await issueCode(deps, c, c.client.accountId, c.client.keyId);
    return backTo(deps, ex, c, q, { code }, 302);
  }
  ex.send(200, signInPage(consentClient(c), carried(q)), null, PAGE_HEADERS);
}

/** POST /authorize: the consent page's two steps, sign-in (an API key names the account) and the decision. */
async function decide(deps: Deps, fetcher: ClientMetadataFetcher, perIp: AuthorizeWindow, ex: Exchange): Promise<void> {
  const remote = ex.remoteAddress;
  const form = await formBody(ex);
  await limited(deps, perIp, remote);
  const c = await check(deps, fetcher, ex, form, { kind: 'none' }, 303);
  if (!c) return;
  if (c.client.kind !== 'app') fail('invalid_request', 'This client is signed in by its client_id: use GET /authorize');
  if (form.get('decision') === 'deny') {
    return backTo(deps, ex, c, form, { error: 'access_denied', error_description: 'The user denied access' }, 303);
  }
  const key = form.get('api_key') ?? '';
  const kind = parseCredential(key)?.kind;
  let admission;
  try {
    if (kind !== 'api_key' && kind !== 'scoped_key') fail('unauthorized', 'That is not an API key');
    admission = await admitToken(deps, key, { kind: 'rest' });
  } catch (err) {
    if (err instanceof MailcueError && err.code === 'rate_limited') throw err;
    return ex.send(errorSpec('unauthorized').http, signInPage(consentClient(c), carried(form), 'That key is not valid. Paste the API key of the account to connect.'), null, PAGE_HEADERS);
  }
  const account = admission.account;
  if (form.get('decision') === 'allow') {
    const code = await issueCode(deps, c, account.id, admission.scope?.key_id ?? null);
    return backTo(deps, ex, c, form, { code }, 303);
  }
  ex.send(200, consentPage(consentClient(c), { id: account.id, name: account.name, plan: deps.config.plans[account.plan].title, reach: describeScope(admission.scope) },
    [...carried(form), ['api_key', key]]), null, PAGE_HEADERS);
}

export function flowRoutes(router: Router, deps: Deps, cors: Cors, fetcher: ClientMetadataFetcher, perIp: AuthorizeWindow = new PerIpWindow(deps.config.authorizePerIpPerMinute)): void {
  // A foreign Origin is refused before anything else (DESIGN §5: 403 on every OAuth path, against
  // DNS rebinding); a request without one (a native client, a top-level navigation) goes on.
  const answered = (work: (ex: Exchange) => Promise<void>) => async (ex: Exchange) => {
    try {
      cors.check(ex);
      await work(ex);
    } catch (err) {
      sendOAuthError(ex, err);
    }
  };
  const token = answered((ex) => tokenRoute(deps, ex));
  router
    .add('get', '/authorize', answered((ex) => authorize(deps, fetcher, perIp, ex)))
    .add('post', '/authorize', answered((ex) => decide(deps, fetcher, perIp, ex)), FORM_MAX_BYTES)
    .add('post', '/token', (ex) => {
      cors.apply(ex);
      return token(ex);
    }, FORM_MAX_BYTES)
    .add('options', '/token', (ex) => cors.preflight(ex))
    // RFC 7591: open registration of public clients (registration.ts), counted per client IP.
    .add('post', '/register', (ex) => {
      cors.apply(ex);
      const remote = ex.remoteAddress;
      return answered(async () => {
        const body = await ex.jsonObject();
        await limited(deps, perIp, remote);
        ex.sendJson(201, register(body), [['Cache-Control', 'no-store']]);
      })(ex);
    }, FORM_MAX_BYTES)
    .add('options', '/register', (ex) => cors.preflight(ex));
}
