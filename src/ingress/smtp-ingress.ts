// SMTP ingress (the only importer of smtp-server). Recipients are checked at RCPT against the
// shards; the message is parsed in the pool and delivered to each recipient's shard; 250 is
// answered only after every shard has committed it to LMDB.
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { MailcueError } from '../errors/registry.js';
import type { Metrics } from '../obs/metrics.js';
import type { Deps } from '../services/deps.js';
import { normalizeAddress } from '../services/validate.js';
import type { ParsedMessage } from '../actors/model.js';

type SmtpError = Error & { responseCode?: number };

function smtpError(code: number, message: string): SmtpError {
  const err: SmtpError = new Error(message);
  err.responseCode = code;
  return err;
}

export interface SmtpIngress {
  readonly port: number;
  close(): Promise<void>;
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
  };
}

export async function startSmtpIngress(deps: Deps, metrics: Metrics): Promise<SmtpIngress> {
  const { config, cluster, pool, log } = deps;
  const server = new SMTPServer({
    name: config.mxHost,
    banner: 'Mailcue ESMTP',
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: config.maxMessageBytes,
    logger: false,
    maxClients: 10_000,
    async onRcptTo(address, _session, callback) {
      const parsed = normalizeAddress(address.address);
      if (!parsed) {
        metrics.smtpRejected.inc({ reason: 'bad_recipient' });
        return callback(smtpError(550, '5.1.1 Recipient address rejected: malformed'));
      }
      try {
        const owner = await cluster.call<string | null>({ type: 'inbox.accepts', address: parsed.address });
        if (!owner) {
          metrics.smtpRejected.inc({ reason: 'unknown_recipient' });
          return callback(smtpError(550, '5.1.1 Recipient address rejected: no such inbox'));
        }
        callback();
      } catch (err) {
        log.warn({ err }, 'RCPT check failed');
        callback(smtpError(451, '4.3.0 Temporary failure, try again later'));
      }
    },
    onData(stream, session, callback) {
      void (async () => {
        const raw = await readAll(stream);
        if (stream.sizeExceeded) {
          metrics.smtpRejected.inc({ reason: 'too_large' });
          return callback(smtpError(552, `5.3.4 Message exceeds the ${config.maxMessageBytes} byte limit`));
        }
        let message: ParsedMessage;
        try {
          message = await pool.parse(raw);
        } catch (err) {
          log.warn({ err }, 'parse failed; storing the message unparsed');
          message = unparsed(raw, session);
        }
        const recipients = [...new Set(session.envelope.rcptTo.map((r) => r.address.toLowerCase()))];
        await Promise.all(recipients.map((address) => cluster.call({ type: 'inbox.deliver', address, message, raw }, { timeoutMs: 30_000 })));
        metrics.messagesReceived.inc(recipients.length);
        callback(null, 'Message committed');
      })().catch((err: unknown) => {
        if (err instanceof MailcueError && err.code === 'inbox_not_found') {
          return callback(smtpError(550, '5.1.1 Recipient inbox was deleted'));
        }
        log.error({ err }, 'delivery failed');
        callback(smtpError(451, '4.3.0 Temporary failure, try again later'));
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
