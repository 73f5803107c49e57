// Sender authentication at ingress (issue 19), the only importer of mailauth: SPF for the connecting
// IP and MAIL FROM (or HELO), every DKIM signature, DMARC policy and alignment, ARC where present.
// DNS goes through MAILCUE_DNS_SERVERS with short timeouts, and a lookup that fails or comes too
// late is a temperror, never an exception. The SMTP answer waits at most MAILCUE_AUTH_INLINE_MS;
// a check still running then finishes after the 250 and updates the stored messages.
import { authenticate } from 'mailauth';
import type { Resolver } from 'node:dns/promises';
import type { Config } from '../config/config.js';
import { pendingAuthentication, unverified, verdictOf, type Authentication } from '../contract/authentication.js';
import type { Logger } from '../obs/logger.js';
import { makeResolver } from '../webhooks/resolver.js';

export interface SmtpEnvelope {
  remoteAddress: string;
  hostNameAppearsAs: string;
  envelope: { mailFrom: { address: string } | false };
}

/** Stores the finished record on a message delivered while its check was still running. */
export type AuthUpdate = (addresses: string[], id: string, authentication: Authentication) => Promise<unknown>;

/** One query waits this long, tried twice: a dead resolver costs about 3 s, not 30. */
const QUERY_TIMING = { timeout: 1_000, tries: 2 };
/** Answers (and "no such record") are cached this long: mail from one sender repeats its lookups. */
const CACHE_MS = 30_000;
const CACHE_MAX = 10_000;
const CACHED_ERRORS = new Set(['ENOTFOUND', 'ENODATA']);

function dnsError(code: string): Error {
  return Object.assign(new Error(`DNS ${code}`), { code });
}

/** A lookup in the cache: its answer, and whether that has arrived. */
interface Lookup {
  until: number;
  answer: Promise<unknown>;
  settled: boolean;
}

/**
 * mailauth's resolver signature over one shared Resolver and a small cache of answers (and of "no
 * such record"). A lookup in flight is shared, so a burst of mail from one sender asks once.
 */
class DnsLookups {
  private readonly cache = new Map<string, Lookup>();

  constructor(private readonly resolver: Resolver) {}

  private lookup(name: string, rrtype: string): Lookup {
    const key = `${rrtype} ${name.toLowerCase()}`;
    const hit = this.cache.get(key);
    if (hit && hit.until > Date.now()) return hit;
    const answer = this.resolver.resolve(name, rrtype as 'TXT').catch((err: NodeJS.ErrnoException) => {
      const code = err.code ?? 'ESERVFAIL';
      // A failure is not remembered: the next message asks again.
      if (!CACHED_ERRORS.has(code) && this.cache.get(key)?.answer === answer) this.cache.delete(key);
      throw dnsError(code);
    });
    const lookup: Lookup = { until: Date.now() + CACHE_MS, answer, settled: false };
    // Nobody may be listening when it fails (every caller past its deadline): no unhandled rejection.
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
   * A resolver for one message: past the deadline every lookup fails at once (a temperror). An
   * answer already in the cache is handed over as it is, without a timer to race it. `reuse`
   * learns how long the answers it handed over stay cached, and whether any was a failure that is
   * not (a verdict made from them is only as good as they are).
   */
  until(deadline: number, reuse: Reuse): (name: string, rrtype: string) => Promise<unknown> {
    const spoiled = (err: NodeJS.ErrnoException) => {
      if (!CACHED_ERRORS.has(err.code ?? '')) reuse.ok = false;
      throw err;
    };
    return (name, rrtype) => {
      const left = deadline - Date.now();
      if (left <= 0) {
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

/** What a check's DNS answers allow: until when its verdict may be reused, if at all. */
interface Reuse {
  until: number;
  ok: boolean;
}

type MailauthResult = Awaited<ReturnType<typeof authenticate>>;

/** A DKIM signature or an ARC set: the only headers that make the body part of the check. */
const BODY_SIGNING_HEADER = /^(?:dkim-signature|arc-[a-z-]+)[ \t]*:/im;

/**
 * The header section of a message that no DKIM signature or ARC set signs, as bytes and as text
 * (decoded once: both the check and the verdict key read it), or null. SPF and DMARC read only
 * headers, so for such a message that is all mailauth needs (a 100 KB mail: 400 → 100 µs; a small
 * one: 84 → 72 µs), and its verdict follows from the envelope, the From field and DNS. A message
 * without a blank line has no header section to tell apart: null.
 */
function unsignedHeaders(raw: Buffer): { bytes: Buffer; text: string } | null {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const text = raw.toString('latin1', 0, end);
  return BODY_SIGNING_HEADER.test(text) ? null : { bytes: raw.subarray(0, end + 4), text };
}

/** What mailauth needs to read: the header section alone when nothing signs the body, else the whole message. */
export function authInput(raw: Buffer): Buffer {
  return unsignedHeaders(raw)?.bytes ?? raw;
}

/** Every From field of a header section as written, folded lines included. */
const FROM_FIELD = /^from[ \t]*:.*(?:\r\n[ \t].*)*/gim;

/**
 * What an unsigned message's verdict depends on besides DNS: the client's address, its HELO name,
 * the MAIL FROM address (SPF macros may name its local part) and the From fields (DMARC).
 */
export function verdictKey(headerText: string, ip: string, helo: string, sender: string): string {
  return `${ip}\n${helo}\n${sender}\n${headerText.match(FROM_FIELD)?.join('\n') ?? ''}`;
}

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
  return result;
}

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
  return Object.assign(parts, { summary: verdictOf(parts), pending: false });
}

/** One message's check, started when DATA ends and running beside parsing. */
export class AuthCheck {
  /** Always resolves: a failure of the check itself is a temperror record. */
  readonly final: Promise<Authentication>;
  private result: Authentication | null = null;

  constructor(run: Promise<Authentication>, private readonly answerBy: number, private readonly update: AuthUpdate, private readonly log: Logger) {
    this.final = run.then((a) => (this.result = a));
  }

  /** The record to store with the message: the finished one, or a pending one past the budget. */
  async atAnswer(): Promise<Authentication> {
    const left = this.answerBy - Date.now();
    if (!this.result && left > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.final, new Promise<void>((resolve) => (timer = setTimeout(resolve, left)))]);
      clearTimeout(timer);
    }
    return this.result ?? pendingAuthentication();
  }

  /**
   * After the 250: a message stored with a pending record gets the finished one. Waits on an
   * inbox with require_auth hold such a message until then (the shard re-offers it on update).
   */
  afterAnswer(stored: { id: string; delivered: string[] }[], storedWith: Authentication): void {
    if (!storedWith.pending) return;
    void this.final.then((a) =>
      Promise.all(stored.filter((s) => s.delivered.length > 0).map(({ id, delivered }) => this.update(delivered, id, a).catch((err: unknown) => {
        // A shard that stopped meanwhile: the message keeps its pending (temperror) record.
        this.log.warn({ err, id }, 'could not store the sender authentication result');
      }))),
    );
  }
}

const VERDICTS_MAX = 10_000;

export class MailAuthenticator {
  private readonly dns: DnsLookups;
  /**
   * Verdicts of unsigned messages by verdictKey, each kept while every DNS answer it was made from
   * is still cached: a message with the same key until then would get the same verdict from the
   * same answers, so it is not worked out again (a burst of codes from one sender: ~60 µs of the
   * front's event loop per mail).
   */
  private readonly verdicts = new Map<string, { until: number; authentication: Authentication }>();

  constructor(private readonly config: Config, private readonly log: Logger, private readonly update: AuthUpdate) {
    this.dns = new DnsLookups(makeResolver(config.dnsServers, QUERY_TIMING));
  }

  begin(raw: Buffer, session: SmtpEnvelope): AuthCheck {
    const now = Date.now();
    const answerBy = now + this.config.authInlineMs;
    const ip = session.remoteAddress.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
    const helo = session.hostNameAppearsAs;
    const sender = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
    const headers = unsignedHeaders(raw);
    const key = headers ? verdictKey(headers.text, ip, helo, sender) : null;
    const known = key === null ? undefined : this.verdicts.get(key);
    if (known && known.until > now) return new AuthCheck(Promise.resolve({ ...known.authentication }), answerBy, this.update, this.log);
    const reuse: Reuse = { until: now + CACHE_MS, ok: true };
    const run = authenticate(headers?.bytes ?? raw, { ip, helo, sender, mta: this.config.mxHost, resolver: this.dns.until(now + this.config.authTimeoutMs, reuse), disableBimi: true } as Parameters<typeof authenticate>[1])
      .then(toAuthentication)
      .then((authentication) => {
        if (key !== null && reuse.ok) this.remember(key, reuse.until, authentication);
        return authentication;
      })
      .catch((err: unknown) => {
        this.log.warn({ err }, 'sender authentication failed');
        return { ...unverified(), spf: 'temperror', dmarc: 'temperror', summary: 'temperror' as const };
      });
    return new AuthCheck(run, answerBy, this.update, this.log);
  }

  private remember(key: string, until: number, authentication: Authentication): void {
    this.verdicts.delete(key);
    this.verdicts.set(key, { until, authentication: { ...authentication } });
    if (this.verdicts.size > VERDICTS_MAX) this.verdicts.delete(this.verdicts.keys().next().value!);
  }
}
