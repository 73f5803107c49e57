// Admission of a request: read the bearer credential, route the check to the account's shard, and
// meter it there (REST rate limit, or tool ops and credits). One hop, one place that decides.
import type { Admission } from '../contract/results.js';
import type { Meter } from '../contract/commands.js';
import { fail } from '../errors/registry.js';
import { parseCredential, type ParsedCredential } from '../security/credentials.js';
import type { Caller, Deps } from '../services/deps.js';
import type { Exchange } from './http/exchange.js';

/**
 * Parsed credentials by their bearer string, so a busy client's key is hashed once, not on every
 * request. Only well-formed credentials are kept (the shard still checks each one every time).
 */
const parsedCredentials = new Map<string, ParsedCredential>();
const PARSED_CREDENTIALS_MAX = 10_000;

function parseCached(token: string): ParsedCredential | null {
  const hit = parsedCredentials.get(token);
  if (hit) return hit;
  const parsed = parseCredential(token);
  if (!parsed) return null;
  if (parsedCredentials.size >= PARSED_CREDENTIALS_MAX) parsedCredentials.delete(parsedCredentials.keys().next().value!);
  parsedCredentials.set(token, parsed);
  return parsed;
}

/** The account a well-formed API key or access token names (not yet checked). */
export function accountNamedBy(token: string | null): string | null {
  const credential = token ? parseCached(token) : null;
  return credential && (credential.kind === 'api_key' || credential.kind === 'access_token') ? credential.accountId : null;
}

export function bearerToken(ex: Exchange, allowQuery = false): string | null {
  const header = ex.header('authorization');
  if (header) {
    const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    return m ? m[1]! : null;
  }
  if (allowQuery) return ex.query.get('access_token');
  return null;
}

/**
 * Admits a bearer credential. An agent-tool session that was authenticated when it opened may
 * stand in for a missing credential (legacy SSE clients POST to /messages without one).
 */
export async function admitToken(deps: Deps, token: string | null, meter: Meter, session?: { id: string; accountId: string } | null): Promise<Admission> {
  if (!token && session) {
    return deps.cluster.call<Admission>({
      type: 'account.admit', accountId: session.accountId, credentialHash: '', credential: 'session', meter, session: session.id,
    });
  }
  const credential = token ? parseCached(token) : null;
  if (!credential || (credential.kind !== 'api_key' && credential.kind !== 'access_token')) {
    fail('unauthorized', token ? 'The API key is invalid' : 'Missing API key: send Authorization: Bearer <API_KEY>');
  }
  return deps.cluster.call<Admission>({
    type: 'account.admit', accountId: credential.accountId, credentialHash: credential.hash, credential: credential.kind, meter,
    ...(session && session.accountId === credential.accountId ? { session: session.id } : {}),
  });
}

/** REST admission: sets the RateLimit-* headers that every REST answer carries. */
export async function admitRest(deps: Deps, ex: Exchange): Promise<Admission> {
  const admission = await admitToken(deps, bearerToken(ex), { kind: 'rest' });
  ex.rateLimit = { limit: admission.rate.limit, remaining: admission.rate.remaining, reset: admission.rate.reset_s };
  return admission;
}

/**
 * A read with no side effect runs beside its admission, so the caller waits one shard round trip
 * instead of two. The read is keyed by the account the credential names and checks ownership on
 * its shard; its result is used only once admission has passed, and admission's error always wins.
 */
export async function admitRestAndRead<T>(deps: Deps, ex: Exchange, read: (caller: Caller) => Promise<T>): Promise<T> {
  const accountId = accountNamedBy(bearerToken(ex));
  const [admission, result] = await Promise.allSettled([
    admitRest(deps, ex),
    // Without a well-formed credential there is nothing to read as; admission refuses it anyway.
    accountId ? Promise.resolve({ accountId }).then(read) : Promise.reject(new Error('no account')),
  ]);
  if (admission.status === 'rejected') throw admission.reason;
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}
