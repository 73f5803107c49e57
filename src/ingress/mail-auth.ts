// Sender authentication at ingress (issues 19, 33): the front's side of it. The check itself runs in
// the pool (src/mail/sender-auth.ts), queued fairly by account; here are the verdict cache for
// unsigned mail and the wait at the SMTP answer. The answer waits at most MAILCUE_AUTH_INLINE_MS;
// a check still running then finishes after the 250 and updates the stored messages.
import type { Config } from '../config/config.js';
import { pendingAuthentication, type Authentication } from '../contract/authentication.js';
import type { SenderCheckInput, SenderCheckResult } from '../mail/sender-auth.js';
import type { Logger } from '../obs/logger.js';


export interface SmtpEnvelope {
  remoteAddress: string;
  hostNameAppearsAs: string;
  envelope: { mailFrom: { address: string } | false };
}

/** Stores the finished record on a message delivered while its check was still running. */
export type AuthUpdate = (addresses: string[], id: string, authentication: Authentication) => Promise<unknown>;

/** Runs one check where it belongs (the pool), queued fairly under the account's key. */
export type SenderChecker = (input: SenderCheckInput, account: string) => Promise<SenderCheckResult>;

/** A DKIM signature or an ARC set: the only headers that make the body part of the check. */
const BODY_SIGNING_HEADER = /^(?:dkim-signature|arc-[a-z-]+)[ \t]*:/im;

/**
 * A header section larger than this is not read on the ingress loop (decoding 6 MB and matching
 * it took 10-22 ms there, a stall for every tenant's mail): its message goes to the check whole,
 * where the header lines mailauth reads are bounded (signature-limits.ts), and is not keyed.
 */
const MAX_READ_HEADER_BYTES = 128 * 1024;

/**
 * The header section of a message that no DKIM signature or ARC set signs, as bytes and as text
 * (decoded once: both the check and the verdict key read it), or null. SPF and DMARC read only
 * headers, so for such a message that is all mailauth needs (a 100 KB mail: 400 → 100 µs; a small
 * one: 84 → 72 µs), and its verdict follows from the envelope, the From field and DNS. A message
 * without a blank line has no header section to tell apart, and one over MAX_READ_HEADER_BYTES is
 * not read here: null.
 */
function unsignedHeaders(raw: Buffer): { bytes: Buffer; text: string } | null {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0 || end > MAX_READ_HEADER_BYTES) return null;
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
  /**
   * Verdicts of unsigned messages by verdictKey, each kept while every DNS answer it was made from
   * is still cached: a message with the same key until then would get the same verdict from the
   * same answers, so it is not worked out again (a burst of codes from one sender).
   */
  private readonly verdicts = new Map<string, { until: number; authentication: Authentication }>();

  constructor(private readonly config: Config, private readonly log: Logger, private readonly update: AuthUpdate, private readonly check: SenderChecker) {}

  begin(raw: Buffer, session: SmtpEnvelope, account = ''): AuthCheck {
    const now = Date.now();
    const answerBy = now + this.config.authInlineMs;
    const ip = session.remoteAddress.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
    const helo = session.hostNameAppearsAs;
    const sender = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
    const headers = unsignedHeaders(raw);
    const key = headers ? verdictKey(headers.text, ip, helo, sender) : null;
    const known = key === null ? undefined : this.verdicts.get(key);
    if (known && known.until > now) return new AuthCheck(Promise.resolve({ ...known.authentication }), answerBy, this.update, this.log);
    const input: SenderCheckInput = {
      raw: headers?.bytes ?? raw, ip, helo, sender, mta: this.config.mxHost, dnsServers: this.config.dnsServers, budgetMs: this.config.authTimeoutMs,
    };
    const run = this.check(input, account)
      .then(({ authentication, reuseUntil }) => {
        if (key !== null && reuseUntil > Date.now()) this.remember(key, reuseUntil, authentication);
        return authentication;
      })
      .catch((err: unknown) => {
        this.log.warn({ err }, 'sender authentication failed');
        return { ...pendingAuthentication(), pending: false };
      });
    return new AuthCheck(run, answerBy, this.update, this.log);
  }

  private remember(key: string, until: number, authentication: Authentication): void {
    this.verdicts.delete(key);
    this.verdicts.set(key, { until, authentication: { ...authentication } });
    if (this.verdicts.size > VERDICTS_MAX) this.verdicts.delete(this.verdicts.keys().next().value!);
  }
}
