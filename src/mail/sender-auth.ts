// Sender authentication itself (issues 19, 33), run in the piscina pool and never on an event loop
// that holds connections: SPF for the client and MAIL FROM (or HELO), DKIM, DMARC, ARC, through
// mailauth (imported here only). Bounded per message: at most MAX_SIGNATURE_CHECKS DKIM signatures
// and ARC sets are checked (mailauth hashes the body once per canonicalization, algorithm and l=,
// so 1,500 signatures differing in l= were 1,500 hashes of 9 MB), and the DNS queries are capped.
import { authenticate } from 'mailauth';
import type { Resolver } from 'node:dns/promises';
import { unverified, verdictOf, type Authentication } from '../contract/authentication.js';
import { makeResolver } from '../webhooks/resolver.js';
import { boundSignatures } from './signature-limits.js';

/** What the pool task needs: the bytes mailauth reads and the connection facts. */
export interface SenderCheckInput {
  raw: Uint8Array;
  ip: string;
  helo: string;
  sender: string;
  mta: string;
  dnsServers: readonly string[];
  /** Every lookup this long after the check starts fails at once (a temperror). */
  budgetMs: number;
}

export interface SenderCheckResult {
  authentication: Authentication;
  /** Until when the verdict may be reused for the same envelope and From fields; 0: not at all. */
  reuseUntil: number;
}

/** One query waits this long, tried twice: a dead resolver costs about 3 s, not 30. */
const QUERY_TIMING = { timeout: 1_000, tries: 2 };
const CACHE_MS = 30_000;
const CACHE_MAX = 10_000;
const CACHED_ERRORS = new Set(['ENOTFOUND', 'ENODATA']);
/** Per message: key and policy lookups (DKIM, ARC, DMARC), and SPF's (RFC 7208's 10 terms and what they expand to). */
export const MAX_KEY_QUERIES = 10;
/**
 * mailauth finds DMARC policy by RFC 9989's DNS Tree Walk: _dmarc at each label of the author
 * domain up to the top-level domain, at most 8 names per walk; relaxed alignment may walk another
 * identifier's domain. Two walks' worth: at 2, any author domain of three labels without a record
 * (mail.example.com) was a temperror, and so never a verdict that could be reused.
 */
export const MAX_DMARC_QUERIES = 16;
export const MAX_SPF_QUERIES = 20;

function dnsError(code: string): Error {
  return Object.assign(new Error(`DNS ${code}`), { code });
}

interface Lookup {
  until: number;
  answer: Promise<unknown>;
  settled: boolean;
}

interface Reuse {
  until: number;
  ok: boolean;
}

/** The bucket a query counts against. */
function bucketOf(name: string): 'key' | 'dmarc' | 'spf' {
  const n = name.toLowerCase();
  if (n.includes('._domainkey.')) return 'key';
  if (n.startsWith('_dmarc.')) return 'dmarc';
  return 'spf';
}

/**
 * mailauth's resolver over one Resolver per thread and a small cache of answers (and of "no such
 * record"); a lookup in flight is shared, so a burst of mail from one sender asks once.
 */
class DnsLookups {
  private readonly cache = new Map<string, Lookup>();
  private readonly resolver: Resolver;

  constructor(servers: readonly string[]) {
    this.resolver = makeResolver(servers, QUERY_TIMING);
  }

  private lookup(name: string, rrtype: string): Lookup {
    const key = `${rrtype} ${name.toLowerCase()}`;
    const hit = this.cache.get(key);
    if (hit && hit.until > Date.now()) return hit;
    const answer = this.resolver.resolve(name, rrtype as 'TXT').catch((err: NodeJS.ErrnoException) => {
      const code = err.code ?? 'ESERVFAIL';
      if (!CACHED_ERRORS.has(code) && this.cache.get(key)?.answer === answer) this.cache.delete(key);
      throw dnsError(code);
    });
    const lookup: Lookup = { until: Date.now() + CACHE_MS, answer, settled: false };
    const settle = () => {
      lookup.settled = true;
    };
    answer.then(settle, settle);
    this.cache.delete(key);
    this.cache.set(key, lookup);
    if (this.cache.size > CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
    return lookup;
  }

  /**
   * A resolver for one message: past the deadline, or past a per-message bucket, every lookup
   * fails at once. `reuse` learns how long the answers stay cached and whether any was a failure.
   */
  forMessage(deadline: number, reuse: Reuse): (name: string, rrtype: string) => Promise<unknown> {
    const spent = { key: 0, dmarc: 0, spf: 0 };
    const max = { key: MAX_KEY_QUERIES, dmarc: MAX_DMARC_QUERIES, spf: MAX_SPF_QUERIES };
    const spoiled = (err: NodeJS.ErrnoException) => {
      if (!CACHED_ERRORS.has(err.code ?? '')) reuse.ok = false;
      throw err;
    };
    return (name, rrtype) => {
      const left = deadline - Date.now();
      const bucket = bucketOf(name);
      if (left <= 0 || ++spent[bucket] > max[bucket]) {
        reuse.ok = false;
        return Promise.reject(dnsError('ETIMEOUT'));
      }
      const { answer, settled, until } = this.lookup(name, rrtype);
      reuse.until = Math.min(reuse.until, until);
      if (settled) return answer.catch(spoiled);
      let timer: NodeJS.Timeout;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(dnsError('ETIMEOUT')), left);
      });
      return Promise.race([answer, late]).catch(spoiled).finally(() => clearTimeout(timer));
    };
  }
}

/** One resolver (and cache) per pool thread and DNS server list. */
const lookups = new Map<string, DnsLookups>();
function lookupsFor(servers: readonly string[]): DnsLookups {
  const key = servers.join(',');
  let l = lookups.get(key);
  if (!l) lookups.set(key, (l = new DnsLookups(servers)));
  return l;
}

type MailauthResult = Awaited<ReturnType<typeof authenticate>>;

function sameSite(a: string, b: string): boolean {
  return a !== '' && (a === b || a.endsWith(`.${b}`) || b.endsWith(`.${a}`));
}

/**
 * A body that no longer matches its signature's body hash is a PERMFAIL (RFC 6376 §6.1.3), which
 * RFC 8601 reports as "fail"; mailauth's lenient mode says "neutral", so the mismatch is read here.
 */
function dkimResult(s: any): string {
  const result = String(s.status?.result ?? 'neutral');
  if (result === 'neutral' && s.bodyHash && s.bodyHashExpecting && s.bodyHash !== s.bodyHashExpecting) return 'fail';
  // A key that does not exist or cannot be used, or an expired signature: RFC 6376 §6.1.2 PERMFAIL,
  // reported as permerror (RFC 8601 §2.7.1). Lenient mailauth says neutral, which read as "unsigned".
  if (result === 'neutral' && UNVERIFIABLE.has(String(s.status?.comment ?? ''))) return 'permerror';
  return result;
}

const UNVERIFIABLE = new Set(['no key', 'unknown key version', 'unknown key type', 'invalid public key', 'inappropriate hash algorithm', 'key not for email', 'expired', 'invalid expiration']);

/** Our record from mailauth's answer. */
export function toAuthentication(r: MailauthResult): Authentication {
  // An unsigned message gets one placeholder entry without a signing domain: not a signature.
  const dkim = (r.dkim?.results ?? []).filter((s: any) => s.signingDomain).map((s: any) => ({
    domain: String(s.signingDomain),
    selector: String(s.selector ?? ''),
    result: dkimResult(s),
  }));
  const dmarc = r.dmarc ? (r.dmarc as any) : null;
  const spfResult = String((r.spf as any)?.status?.result ?? 'none');
  const fromDomain: string | null = dmarc?.status?.header?.from ?? (r.dkim as any)?.headerFrom?.[0]?.split('@').pop() ?? null;
  // Without a DMARC record mailauth computes no SPF alignment; then the MAIL FROM domain must be the
  // From domain or share it as a suffix (relaxed alignment without the Public Suffix List).
  const spfDomain = String((r.spf as any)?.domain ?? '').toLowerCase();
  const spfAligned = spfResult === 'pass' && (Boolean(dmarc?.alignment?.spf?.result) || (fromDomain !== null && sameSite(spfDomain, fromDomain.toLowerCase())));
  const dkimAligned = (r.dkim?.results ?? []).some((s: any) => s.status?.result === 'pass' && s.status?.aligned);
  const parts = {
    spf: spfResult,
    dkim,
    dmarc: dmarc ? String(dmarc.status?.result ?? 'none') : 'none',
    dmarc_policy: dmarc?.p ? String(dmarc.policy ?? dmarc.p) : null,
    arc: r.arc && (r.arc as any).i > 0 ? String((r.arc as any).status?.result ?? 'none') : null,
    aligned: dmarc?.status?.result === 'pass' || spfAligned || dkimAligned,
    from_domain: fromDomain ? fromDomain.toLowerCase() : null,
  };
  const authorProblem = authorsProblem((r.dkim as any)?.headerFrom, (r.dkim as any)?.fromFields);
  const summary = authorProblem ? 'fail' : verdictOf(parts);
  return Object.assign(parts, { summary, pending: false }, authorProblem ? { author_problem: authorProblem } : {});
}

const DOMAIN = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}\.?$/i;

/**
 * Why the authors of a message leave no single domain to judge (DESIGN §7 "Trust verdicts do not
 * fail open"): several From fields, several authors, none, or one whose domain does not parse.
 * DMARC cannot be evaluated then (RFC 7489 §6.6.1), and such a message is a fail, never a none.
 */
function authorsProblem(authors: unknown, fromFields: unknown): string | null {
  const list = Array.isArray(authors) ? (authors as string[]) : [];
  if (typeof fromFields === 'number' && fromFields > 1) return 'several From fields';
  if (list.length === 0) return 'no author address';
  if (list.length > 1) return 'several authors in From';
  const domain = list[0]!.slice(list[0]!.lastIndexOf('@') + 1);
  if (!list[0]!.includes('@') || domain.length > 253 || !DOMAIN.test(domain)) return 'the author domain does not parse';
  return null;
}

/** The check of one message, in a pool thread. Never throws: a failure is a temperror record. */
export async function checkSender(input: SenderCheckInput): Promise<SenderCheckResult> {
  const now = Date.now();
  const reuse: Reuse = { until: now + CACHE_MS, ok: true };
  const bounded = boundSignatures(Buffer.from(input.raw.buffer, input.raw.byteOffset, input.raw.byteLength));
  try {
    const r = await authenticate(bounded.raw, {
      ip: input.ip, helo: input.helo, sender: input.sender, mta: input.mta,
      resolver: lookupsFor(input.dnsServers).forMessage(now + input.budgetMs, reuse), disableBimi: true,
    } as Parameters<typeof authenticate>[1]);
    const authentication = toAuthentication(r);
    if (bounded.arcDropped) authentication.arc = 'fail';
    if (bounded.skipped > 0) authentication.dkim_unchecked = bounded.skipped;
    return { authentication, reuseUntil: reuse.ok ? reuse.until : 0 };
  } catch {
    return { authentication: { ...unverified(), spf: 'temperror', dmarc: 'temperror', summary: 'temperror' }, reuseUntil: 0 };
  }
}
