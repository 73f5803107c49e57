// SMTP ingress (the only importer of smtp-server). Recipients are checked at RCPT against the
// shards; the message is parsed in the pool and delivered to each recipient's shard; 250 is
// answered only after every shard has committed it to LMDB.
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { errorSpec, MailcueError, type ErrorCode } from '../errors/registry.js';
import type { Metrics } from '../obs/metrics.js';
import type { Deps } from '../services/deps.js';
import { normalizeAddress } from '../services/validate.js';
import type { ParsedMessage } from '../contract/model.js';
import { unverified } from '../contract/authentication.js';
import { MailAuthenticator } from './mail-auth.js';

type SmtpError = Error & { responseCode?: number };

/** The SMTP reply of an error code, from the registry; codes without one answer as temporary. */
function smtpError(code: ErrorCode, text: string): SmtpError {
  const [reply, enhanced] = errorSpec(code).smtp ?? errorSpec('unavailable').smtp!;
  const err: SmtpError = new Error(`${enhanced} ${text}`);
  err.responseCode = reply;
  return err;
}

const TRY_LATER = 'Temporary failure, try again later';

/**
 * Recipients the shards confirmed recently. A mail burst to the same inbox skips the RCPT round
 * trip; an inbox deleted within the window is still refused, at the end of DATA (550) instead.
 */
class RecentRecipients {
  private readonly seen = new Map<string, number>();

  constructor(private readonly ttlMs: number, private readonly max: number) {}

  has(address: string): boolean {
    const until = this.seen.get(address);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.seen.delete(address);
    return false;
  }

  add(address: string): void {
    this.seen.delete(address);
    this.seen.set(address, Date.now() + this.ttlMs);
    if (this.seen.size > this.max) this.seen.delete(this.seen.keys().next().value!);
  }

  forget(address: string): void {
    this.seen.delete(address);
  }
}

const RECIPIENT_CACHE_MS = 5_000;
const RECIPIENT_CACHE_SIZE = 100_000;

export interface SmtpIngress {
  readonly port: number;
  close(): Promise<void>;
}

function inboxGone(result: PromiseSettledResult<unknown>): boolean {
  return result.status === 'rejected' && result.reason instanceof MailcueError && result.reason.code === 'inbox_not_found';
}

function readAll(stream: SMTPServerDataStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

/** When the pool cannot parse a message, it is still kept: raw source plus envelope facts. */
function unparsed(raw: Buffer, session: SMTPServerSession): ParsedMessage {
  const from = session.envelope.mailFrom ? (session.envelope.mailFrom as SMTPServerAddress).address.toLowerCase() : '';
  return {
    from, to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()), subject: '', text: null, html: null,
    headers: {}, attachments: [], otp: null, verification_link: null, size: raw.length,
    safe_text: '', warnings: ['the message could not be parsed; only its raw source is kept'], authentication: unverified(),
  };
}

export async function startSmtpIngress(deps: Deps, metrics: Metrics): Promise<SmtpIngress> {
  const { config, cluster, pool, log } = deps;
  const recent = new RecentRecipients(RECIPIENT_CACHE_MS, RECIPIENT_CACHE_SIZE);
  const authenticator = new MailAuthenticator(config, log, (address, id, authentication) => cluster.call({ type: 'message.set_auth', address, id, authentication }));
  const server = new SMTPServer({
    name: config.mxHost,
    banner: 'Mailcue ESMTP',
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: config.maxMessageBytes,
    logger: false,
    maxClients: 10_000,
    // On shutdown, connections still open after this are closed (the default waits 30 s).
    closeTimeout: 5_000,
    async onRcptTo(address, _session, callback) {
      const parsed = normalizeAddress(address.address);
      if (!parsed) {
        metrics.smtpRejected.inc({ reason: 'bad_recipient' });
        return callback(smtpError('invalid_address', 'Recipient address rejected: malformed'));
      }
      if (recent.has(parsed.address)) return callback();
      try {
        const owner = await cluster.call<string | null>({ type: 'inbox.accepts', address: parsed.address });
        if (!owner) {
          metrics.smtpRejected.inc({ reason: 'unknown_recipient' });
          return callback(smtpError('inbox_not_found', 'Recipient address rejected: no such inbox'));
        }
        recent.add(parsed.address);
        callback();
      } catch (err) {
        log.warn({ err }, 'RCPT check failed');
        callback(smtpError('unavailable', TRY_LATER));
      }
    },
    onData(stream, session, callback) {
      void (async () => {
        const raw = await readAll(stream);
        if (stream.sizeExceeded) {
          metrics.smtpRejected.inc({ reason: 'too_large' });
          return callback(smtpError('payload_too_large', `Message exceeds the ${config.maxMessageBytes} byte limit`));
        }
        const auth = authenticator.begin(raw, session);
        let message: ParsedMessage;
        try {
          message = await pool.parse(raw);
        } catch (err) {
          log.warn({ err }, 'parse failed; storing the message unparsed');
          message = unparsed(raw, session);
        }
        message.authentication = await auth.atAnswer();
        const recipients = [...new Set(session.envelope.rcptTo.map((r) => r.address.toLowerCase()))];
        const results = await Promise.allSettled(
          recipients.map((address) => cluster.call({ type: 'inbox.deliver', address, message, raw }, { timeoutMs: 30_000 })),
        );
        // An inbox deleted since RCPT is skipped; any other failure fails the whole message (451).
        const gone = recipients.filter((_, i) => inboxGone(results[i]!));
        for (const address of gone) recent.forget(address);
        const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected' && !inboxGone(r));
        if (failed) throw failed.reason;
        const delivered = recipients.length - gone.length;
        metrics.messagesReceived.inc(delivered);
        // Inboxes deleted since RCPT: refused only when none of the recipients could take it.
        if (delivered === 0) return callback(smtpError('inbox_not_found', 'Recipient inbox was deleted'));
        callback(null, 'Message committed');
        auth.afterAnswer(results.flatMap((r, i) => (r.status === 'fulfilled' ? [{ address: recipients[i]!, id: (r.value as { id: string }).id }] : [])), message.authentication);
      })().catch((err: unknown) => {
        log.error({ err }, 'delivery failed');
        callback(smtpError('unavailable', TRY_LATER));
      });
    },
  });
  server.on('error', (err) => log.warn({ err }, 'smtp error'));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.smtpPort, config.host, () => resolve());
  });
  const address = server.server.address();
  return {
    port: typeof address === 'object' && address ? address.port : config.smtpPort,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
