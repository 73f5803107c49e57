// OAuth 2.0 Dynamic Client Registration (RFC 7591), the fallback for clients without a Client ID
// Metadata Document. Registration is open (anyone may register, as RFC 7591 allows), so nothing is
// stored for it: the client_id carries the registered metadata itself (`mcd_` + base64url JSON).
// Whoever could forge such an id could as well have registered it, and no one can fill a shard's
// disk through an unauthenticated endpoint. Only public clients (token_endpoint_auth_method
// "none", PKCE) are registered; the consent page shows who is asking.
import { fail } from '../../errors/registry.js';
import type { ClientMetadata } from './client-metadata.js';

const PREFIX = 'mcd_';
const REDIRECTS_MAX = 5;
const REDIRECT_MAX_CHARS = 512;
const NAME_MAX_CHARS = 100;
/** Whatever a registration carries, its client_id stays a size a URL carries easily. */
export const REGISTERED_ID_MAX_CHARS = 4096;

interface Packed {
  r: string[];
  n?: string;
  u?: string;
}

export function isRegisteredClientId(clientId: string): boolean {
  return clientId.startsWith(PREFIX);
}

/** The redirect URIs a client may register: https, or http on a loopback host (RFC 8252 §7.3). */
export function redirectShapeAllowed(value: string): URL | null {
  try {
    const u = new URL(value);
    if (u.hash || value.includes('#')) return null;
    if (u.protocol === 'https:') return u;
    if (u.protocol === 'http:' && (u.hostname === 'localhost' || u.hostname === '127.0.0.1' || u.hostname === '[::1]')) return u;
    return null;
  } catch {
    return null;
  }
}

/** What a registration request asks for, checked (RFC 7591 §2, §3.2.2 errors). */
export function register(body: Record<string, unknown>, now = Date.now()): Record<string, unknown> {
  const uris = body.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > REDIRECTS_MAX) {
    fail('invalid_redirect_uri', `redirect_uris must list 1 to ${REDIRECTS_MAX} URIs`);
  }
  for (const u of uris) {
    if (typeof u !== 'string' || u.length > REDIRECT_MAX_CHARS || !redirectShapeAllowed(u)) {
      fail('invalid_redirect_uri', 'Each redirect URI must be an https URL, or an http URL on localhost, without a fragment');
    }
  }
  const grants = body.grant_types;
  if (grants !== undefined && (!Array.isArray(grants) || grants.some((g) => g !== 'authorization_code' && g !== 'refresh_token'))) {
    fail('invalid_client_metadata', 'Registered clients may use the authorization_code and refresh_token grants; a CI job uses a scoped key (client_credentials)');
  }
  const responseTypes = body.response_types;
  if (responseTypes !== undefined && (!Array.isArray(responseTypes) || responseTypes.some((r) => r !== 'code'))) {
    fail('invalid_client_metadata', 'response_types may only be ["code"]');
  }
  const name = typeof body.client_name === 'string' && body.client_name.trim() ? body.client_name.trim().slice(0, NAME_MAX_CHARS) : undefined;
  const uri = typeof body.client_uri === 'string' && /^https:\/\//.test(body.client_uri) && body.client_uri.length <= REDIRECT_MAX_CHARS ? body.client_uri : undefined;
  const packed: Packed = { r: uris as string[], ...(name ? { n: name } : {}), ...(uri ? { u: uri } : {}) };
  const clientId = PREFIX + Buffer.from(JSON.stringify(packed), 'utf8').toString('base64url');
  // A public client: RFC 7591 §3.2.1 lets the server answer other values than those asked for.
  return {
    client_id: clientId,
    client_id_issued_at: Math.floor(now / 1000),
    redirect_uris: packed.r,
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    ...(name ? { client_name: name } : {}),
    ...(uri ? { client_uri: uri } : {}),
  };
}

/** The metadata a registered client_id carries; fails `unknown_client` for one this server did not issue. */
export function registeredClient(clientId: string): ClientMetadata {
  if (clientId.length > REGISTERED_ID_MAX_CHARS) fail('unknown_client', 'Unknown client_id');
  let packed: Packed;
  try {
    packed = JSON.parse(Buffer.from(clientId.slice(PREFIX.length), 'base64url').toString('utf8')) as Packed;
  } catch {
    fail('unknown_client', 'Unknown client_id');
  }
  if (!packed || !Array.isArray(packed.r) || packed.r.length === 0 || packed.r.length > REDIRECTS_MAX
    || packed.r.some((u) => typeof u !== 'string' || u.length > REDIRECT_MAX_CHARS || !redirectShapeAllowed(u))) {
    fail('unknown_client', 'Unknown client_id');
  }
  return {
    client_id: clientId,
    client_name: typeof packed.n === 'string' ? packed.n.slice(0, NAME_MAX_CHARS) : null,
    client_uri: typeof packed.u === 'string' ? packed.u : null,
    redirect_uris: packed.r,
  };
}
