// Admission of a request: read the bearer credential, route the check to the account's shard, and
// meter it there (REST rate limit, or tool ops and credits). One hop, one place that decides.
import type { Admission } from '../actors/account-actor.js';
import type { Meter } from '../actors/commands.js';
import { fail } from '../errors/registry.js';
import { parseCredential } from '../security/credentials.js';
import type { Deps } from '../services/deps.js';
import type { Exchange } from './http/exchange.js';

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
  const credential = token ? parseCredential(token) : null;
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
