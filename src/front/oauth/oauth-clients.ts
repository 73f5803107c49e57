// Who a client_id names, for /authorize and /token. Four kinds of client reach Mailcue's OAuth:
// SEED.md's, whose client_id is the account's API key (or, issue 36, one of its scoped keys: the
// tokens then carry that key's scope); a Client ID Metadata Document URL; a client registered by
// RFC 7591 (registration.ts); and a CI job with a scoped key's id and secret (client_credentials).
import type { Meter } from '../../contract/commands.js';
import { MailcueError, fail } from '../../errors/registry.js';
import { parseCredential } from '../../security/credentials.js';
import type { Deps } from '../../services/deps.js';
import { admitToken } from '../auth.js';
import { isMetadataUrl, metadataUrl, type ClientMetadata, type ClientMetadataFetcher } from './client-metadata.js';
import { isRegisteredClientId, redirectShapeAllowed, registeredClient } from './registration.js';

/** SEED.md's client: the API key (or a scoped key) is the client_id and names the account. */
export interface KeyClient {
  kind: 'key';
  clientId: string;
  accountId: string;
  /** The scoped key it is, if it is one. */
  keyId: string | null;
}

/** A client that is not a credential: the user names the account on the consent page. */
export interface AppClient {
  kind: 'app';
  clientId: string;
  metadata: ClientMetadata;
}

export type OAuthClient = KeyClient | AppClient;

/** Whether a client_id is an API key or a scoped key (SEED.md's flow). */
export function isKeyClientId(clientId: string): boolean {
  const kind = parseCredential(clientId)?.kind;
  return kind === 'api_key' || kind === 'scoped_key';
}

/**
 * The account of a key client_id, admitted (metered as `meter`): `unknown_client` for a key that
 * is not valid, a rate limit as itself.
 */
export async function keyClient(deps: Deps, clientId: string, meter: Meter): Promise<KeyClient> {
  try {
    const admission = await admitToken(deps, clientId, meter);
    return { kind: 'key', clientId, accountId: admission.account.id, keyId: admission.scope?.key_id ?? null };
  } catch (err) {
    if (err instanceof MailcueError && err.code === 'rate_limited') throw err;
    fail('unknown_client', 'client_id must be a valid API key, a Client ID Metadata Document URL or a registered client');
  }
}

/** Resolves any client_id; fails `unknown_client` (or `client_metadata_unavailable`). */
export async function resolveClient(deps: Deps, fetcher: ClientMetadataFetcher, clientId: string | null, meter: Meter): Promise<OAuthClient> {
  if (!clientId) fail('unknown_client', 'client_id is required');
  if (isKeyClientId(clientId)) return keyClient(deps, clientId, meter);
  if (isMetadataUrl(clientId)) return { kind: 'app', clientId, metadata: await fetcher.get(clientId) };
  if (isRegisteredClientId(clientId)) return { kind: 'app', clientId, metadata: registeredClient(clientId) };
  fail('unknown_client', 'client_id must be a valid API key, a Client ID Metadata Document URL or a registered client');
}

/** Whether a client_id could name an app client, checked without fetching (the token endpoint). */
export function wellFormedAppClient(clientId: string): boolean {
  try {
    if (isMetadataUrl(clientId)) metadataUrl(clientId);
    else if (isRegisteredClientId(clientId)) registeredClient(clientId);
    else return false;
    return true;
  } catch {
    return false;
  }
}

function loopback(u: URL): boolean {
  return u.protocol === 'http:' && (u.hostname === '127.0.0.1' || u.hostname === 'localhost' || u.hostname === '[::1]');
}

/**
 * The redirect URI a request may use: for a key client any https or loopback http URI (DESIGN §4);
 * for an app client one it registered, exactly, except that a loopback one may differ in port
 * (RFC 8252 §7.3); without one, the only one it registered. Fails `redirect_not_allowed`.
 */
export function allowedRedirect(client: OAuthClient, requested: string | null): { url: URL; raw: string | null } {
  if (client.kind === 'key') {
    const url = requested ? redirectShapeAllowed(requested) : null;
    if (!url) fail('redirect_not_allowed', 'redirect_uri must be an https URL or an http URL on localhost');
    return { url, raw: requested };
  }
  const registered = client.metadata.redirect_uris;
  if (requested === null) {
    if (registered.length !== 1) fail('redirect_not_allowed', 'redirect_uri is required: the client registered several');
    const url = redirectShapeAllowed(registered[0]!);
    if (!url) fail('redirect_not_allowed', 'The client registered no usable redirect_uri');
    return { url, raw: null };
  }
  const url = redirectShapeAllowed(requested);
  if (url && registered.some((r) => r === requested || sameLoopbackTarget(r, url))) return { url, raw: requested };
  fail('redirect_not_allowed', 'redirect_uri is not one the client registered');
}

function sameLoopbackTarget(registered: string, requested: URL): boolean {
  try {
    const r = new URL(registered);
    return loopback(r) && loopback(requested) && r.hostname === requested.hostname && r.pathname === requested.pathname && r.search === requested.search;
  } catch {
    return false;
  }
}
