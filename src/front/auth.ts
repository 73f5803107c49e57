// Admission of a request: read the bearer credential, route the check to the account's shard, and
// meter it there (REST rate limit, or tool ops and credits). One hop, one place that decides; the
// front remembers which credentials passed, to let their reads start beside the check, and spends
// the admission leases the shard grants a busy credential (src/security/admission-leases.ts).
import type { Admission } from '../contract/results.js';
import type { Meter } from '../contract/commands.js';
import { fail, MailcueError } from '../errors/registry.js';
import { isBearerKind, parseCredential, type BearerKind, type ParsedCredential } from '../security/credentials.js';
import { callerOf } from '../services/scope.js';
import type { Caller, Deps } from '../services/deps.js';
import { ADMITTED_MAX, type AdmittedEntry } from '../security/admitted-credentials.js';
import type { ReturnedLease } from '../security/admission-leases.js';
import type { Exchange } from './http/exchange.js';

/**
 * Parsed credentials by their bearer string, so a busy client's key is hashed once, not on every
 * request. Only credentials that passed admission are kept: forged ones cannot churn it.
 */
const parsedCredentials = new Map<string, ParsedCredential>();
/** As many as the admitted cache holds. */
const PARSED_CREDENTIALS_MAX = ADMITTED_MAX;

function parse(token: string): ParsedCredential | null {
  return parsedCredentials.get(token) ?? parseCredential(token);
}

function keepParsed(token: string, parsed: ParsedCredential): void {
  if (parsedCredentials.has(token)) return;
  if (parsedCredentials.size >= PARSED_CREDENTIALS_MAX) parsedCredentials.delete(parsedCredentials.keys().next().value!);
  parsedCredentials.set(token, parsed);
}

/**
 * The account of a credential this front saw admitted within the last 60 s (DESIGN §7), or
 * undefined. Only such a credential may start a read beside its admission; any other waits for
 * admission first, so a forged or unknown key costs one admission check and nothing else.
 */
export function recentlyAdmitted(deps: Deps, token: string | null): AdmittedEntry | undefined {
  const parsed = token ? parsedCredentials.get(token) : undefined;
  return parsed ? deps.admitted.lookup(parsed.hash) : undefined;
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
 * Admits a bearer credential. A session id is never one (DESIGN §7): every agent-tool request
 * carries its own; `session`, when it is the caller's, is only marked active.
 */
export async function admitToken(deps: Deps, token: string | null, meter: Meter, session?: { id: string; accountId: string } | null): Promise<Admission> {
  const credential = token ? parse(token) : null;
  if (!credential || !isBearerKind(credential.kind)) {
    fail('unauthorized', token ? 'The API key is invalid' : 'Missing API key: send Authorization: Bearer <API_KEY>');
  }
  const ownSession = session && session.accountId === credential.accountId ? session.id : undefined;
  const { hash, accountId } = credential;
  const kind: BearerKind = credential.kind;
  // A busy credential still in the admitted cache spends this front's lease: no round trip.
  return deps.leases.admit(hash, meter, ownSession, () => deps.admitted.lookup(hash) !== undefined, async (extra) => {
    const admission = await deps.cluster.call({
      type: 'account.admit', accountId, credentialHash: hash, credential: kind, meter,
      ...(ownSession ? { session: ownSession } : {}),
      ...extra,
    });
    keepParsed(token!, credential);
    deps.admitted.remember(hash, admission.account.id, admission.account.plan, admission.generation, admission.scope);
    return admission;
  });
}

/**
 * Gives leases back to their accounts' shards. Best effort: a lease that cannot go back (its
 * shard unreachable) stays counted there until its window ends, and its credits until the month's.
 */
export async function returnLeases(deps: Deps, leases: ReturnedLease[]): Promise<void> {
  await Promise.all(leases.map(({ accountId, returned }) =>
    deps.cluster.call({ type: 'account.lease_return', accountId, returned }).catch((err) => deps.log.debug({ err, accountId }, 'lease not returned'))));
}

/** How often a long-poll's admission is tried again while its account's shard fails over. */
const WAIT_ADMIT_RETRY_MS = 250;

/**
 * A long-poll's admission, on REST and MCP alike (DESIGN.md §8: a long-poll across a failover sees
 * a delay, never an error). While the account's slot has no live primary (its shard died, its
 * follower is not promoted yet) admission answers `unavailable`; a long-poll tries again within
 * the time it was going to wait anyway, and parks for what is left (`spentMs` went here). Only
 * `unavailable` is retried: a bad key or a rate limit is answered at once.
 */
export async function admitWaiting<T>(admit: () => Promise<T>, budgetMs: number, aborted: () => boolean = () => false): Promise<{ value: T; spentMs: number }> {
  const started = Date.now();
  for (;;) {
    try {
      return { value: await admit(), spentMs: Date.now() - started };
    } catch (err) {
      if (!(err instanceof MailcueError) || err.code !== 'unavailable' || aborted() || Date.now() - started + WAIT_ADMIT_RETRY_MS >= budgetMs) throw err;
      await new Promise((r) => setTimeout(r, WAIT_ADMIT_RETRY_MS));
    }
  }
}

/** REST admission: sets the RateLimit-* headers that every REST answer carries. */
export async function admitRest(deps: Deps, ex: Exchange): Promise<Admission> {
  const admission = await admitToken(deps, bearerToken(ex), { kind: 'rest' });
  ex.setRateLimit(admission.rate.limit, admission.rate.remaining, admission.rate.reset_s);
  return admission;
}

/**
 * A read with no side effect, for the admitted caller. For a credential admitted here within the
 * last minute it runs beside its admission, so the caller waits one shard round trip instead of
 * two; its result is used only once admission has passed, and admission's error always wins. Any
 * other credential is admitted first: the shard reads nothing for it until then.
 */
export async function admitRestAndRead<T>(deps: Deps, ex: Exchange, read: (caller: Caller) => Promise<T>): Promise<T> {
  const known = recentlyAdmitted(deps, bearerToken(ex));
  if (!known) {
    const admission = await admitRest(deps, ex);
    return read(callerOf(admission));
  }
  const early: Caller = known.scope ? { accountId: known.accountId, scope: known.scope } : { accountId: known.accountId };
  const [admission, result] = await Promise.allSettled([admitRest(deps, ex), Promise.resolve(early).then(read)]);
  if (admission.status === 'rejected') throw admission.reason;
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}
