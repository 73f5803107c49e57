// SMTP ingress (the only importer of smtp-server). Recipients are checked at RCPT against the
// shards; DATA is read within the limits of smtp-limits.ts; the message is parsed in the pool and
// delivered once to each shard that owns some of its recipients, with its ingest digest so that a
// retry is not stored twice (ingest-digest.ts); 250 is answered only after every shard has
// committed it to LMDB.
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from 'smtp-server';
import type { Hash } from 'node:crypto';
import type { Socket } from 'node:net';
import { errorSpec, type ErrorCode } from '../errors/registry.js';
import type { Metrics } from '../obs/metrics.js';
import type { Deps } from '../services/deps.js';
import { normalizeAddress } from '../services/validate.js';
import type { ParsedMessage, ParsedWithParts } from '../contract/model.js';
import type { DeliverResult } from '../contract/results.js';
import { unverified } from '../contract/authentication.js';
import { ingestHasher } from './ingest-digest.js';
import { MailAuthenticator } from './mail-auth.js';
import { ConnectionsPerIp, InflightBudget, readBounded } from './smtp-limits.js';
import { clientKey } from '../security/client-key.js';
import { StorageQuota } from './storage-quota.js';

type SmtpError = Error & { responseCode?: number };

/** The SMTP reply of an error code, from the registry; codes without one answer as temporary. */
function smtpError(code: ErrorCode, text: string): SmtpError {
  const [reply, enhanced] = errorSpec(code).smtp ?? errorSpec('unavailable').smtp!;
  const err: SmtpError = new Error(`${enhanced} ${text}`);
  err.responseCode = reply;
  return err;
}

const TRY_LATER = 'Temporary failure, try again later';
/** A mail at most this large whose parse fails is parsed once more before it is kept unparsed. */
const RETRY_PARSE_MAX_BYTES = 256 * 1024;

/**
 * Recipients the shards confirmed recently. A mail burst to the same inbox skips the RCPT round
 * trip; an inbox deleted within the window is still refused, at the end of DATA (550) instead.
 */
interface Recipient {
  until: number;
  owner: string;
  /** Messages the inbox held when its shard answered, plus those this front delivered since; null: unknown. */
  messages: number | null;
}

class RecentRecipients {
  private readonly seen = new Map<string, Recipient>();

  constructor(private readonly ttlMs: number, private readonly max: number) {}

  /** A recently confirmed inbox, or null. */
  get(address: string): Recipient | null {
    const entry = this.seen.get(address);
    if (entry === undefined) return null;
    if (entry.until > Date.now()) return entry;
    this.seen.delete(address);
    return null;
  }

  /** This front delivered a message to the inbox. */
  delivered(address: string): void {
    const entry = this.seen.get(address);
    if (entry && entry.messages !== null) entry.messages++;
  }

  add(address: string, owner: string, messages: number | null): void {
    this.seen.delete(address);
    this.seen.set(address, { until: Date.now() + this.ttlMs, owner, messages });
    if (this.seen.size > this.max) this.seen.delete(this.seen.keys().next().value!);
  }

  forget(address: string): void {
    this.seen.delete(address);
  }
}

const RECIPIENT_CACHE_MS = 5_000;
const RECIPIENT_CACHE_SIZE = 100_000;

type Envelope = SMTPServerSession['envelope'];

/**
 * Every recipient the client named in a transaction, refused ones too (an unknown inbox, a shard
 * that was down): the ingest digest covers the envelope the sender sent, so its retry after a 451
 * is the same message even when a recipient is refused this time. Keyed by the envelope object,
 * which smtp-server replaces at every MAIL, RSET and end of DATA; at most twice the recipient limit.
 */
class NamedRecipients {
  private readonly named = new WeakMap<Envelope, Set<string>>();

  constructor(private readonly max: number) {}

  add(envelope: Envelope, address: string): void {
    let set = this.named.get(envelope);
    if (!set) this.named.set(envelope, (set = new Set()));
    if (set.size < this.max) set.add(address.toLowerCase());
  }

  of(envelope: Envelope): Iterable<string> {
    return [...(this.named.get(envelope) ?? []), ...envelope.rcptTo.map((r) => r.address)];
  }
}

/** The owner of each recipient accepted at RCPT, per envelope (storage limits at the end of DATA). */
class RecipientOwners {
  private readonly owners = new WeakMap<Envelope, Map<string, string>>();

  set(envelope: Envelope, address: string, owner: string): void {
    let map = this.owners.get(envelope);
    if (!map) this.owners.set(envelope, (map = new Map()));
    map.set(address, owner);
  }

  of(envelope: Envelope, address: string): string | undefined {
    return this.owners.get(envelope)?.get(address);
  }

  /**
   * The account a transaction's work is queued under in the shared pools (issue 33): the owner of
   * its first accepted recipient, so a tenant's flood of mail waits behind itself.
   */
  first(envelope: Envelope): string | undefined {
    const map = this.owners.get(envelope);
    return map ? map.values().next().value : undefined;
  }
}

/** The size the sender declared with MAIL FROM (RFC 1870 SIZE=), or 0. */
function declaredSize(session: SMTPServerSession): number {
  const from = session.envelope.mailFrom as (SMTPServerAddress & { args?: Record<string, string> }) | false;
  const size = from ? Number(from.args?.SIZE) : NaN;
  return Number.isSafeInteger(size) && size > 0 ? size : 0;
}

/**
 * The ingest digest of the transaction, hashed as DATA arrives; an envelope address with a line
 * break (no SMTP command line carries one) is an error that fails the message (451) once DATA is read.
 */
function hasherOf(envelope: Envelope, named: NamedRecipients): Hash | Error {
  try {
    return ingestHasher(envelope.mailFrom ? envelope.mailFrom.address : '', named.of(envelope));
  } catch (err) {
    return err as Error;
  }
}

const FULL_TEXT: Record<'inbox' | 'account', string> = {
  inbox: 'Mailbox full: the inbox holds as many messages as its plan allows, try again later',
  account: 'Mailbox full: the account stores as many bytes as its plan allows, try again later',
};

export interface SmtpIngress {
  readonly port: number;
  close(): Promise<void>;
}

/** Recipients grouped by the shard that owns them: one delivery (one stored copy) per shard (per slot in an etcd cluster). */
function byShard(deps: IngressDeps, recipients: string[]): string[][] {
  const groups = new Map<number | string, string[]>();
  for (const address of recipients) {
    const shard = deps.cluster.deliveryGroup(address);
    const group = groups.get(shard);
    if (group) group.push(address);
    else groups.set(shard, [address]);
  }
  return [...groups.values()];
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

/**
 * A pipelining client (RFC 2920) sends MAIL, RCPT and DATA in one packet, and smtp-server writes
 * each reply on its own: three sends per mail, each a syscall that also wakes the client. Replies
 * written in one turn of the event loop leave together instead, at the end of that turn.
 */
function coalesceReplies(socket: Socket): void {
  const write = socket.write;
  let corked = false;
  const uncork = () => {
    corked = false;
    socket.uncork();
  };
  socket.write = function (this: Socket, ...args: Parameters<Socket['write']>) {
    if (!corked) {
      corked = true;
      socket.cork();
      setImmediate(uncork);
    }
    return write.apply(this, args);
  } as Socket['write'];
}

/**
 * The recipients that can take a message of `size` bytes now, those whose inbox or account is
 * full, and each taker's message limit for the shard's own check where the message commits.
 */
async function withinLimits(quota: StorageQuota, owners: RecipientOwners, envelope: Envelope, size: number) {
  const recipients: string[] = [];
  const full: string[] = [];
  const maxMessages: Record<string, number> = {};
  /** Bytes this message adds to each account so far: several of its inboxes count it each. */
  const adding = new Map<string, number>();
  for (const address of new Set(envelope.rcptTo.map((r) => r.address.toLowerCase()))) {
    const owner = owners.of(envelope, address);
    if (owner === undefined) {
      recipients.push(address);
      continue;
    }
    const bytes = (adding.get(owner) ?? 0) + size;
    if (await quota.check(owner, null, bytes)) {
      full.push(address);
      continue;
    }
    adding.set(owner, bytes);
    recipients.push(address);
    const max = quota.maxMessages(owner);
    if (max !== undefined) maxMessages[address] = max;
  }
  return { recipients, full, maxMessages };
}

/** What the ingress uses of a front's dependencies: it runs on its own thread (ingress-thread.ts). */
export type IngressDeps = Pick<Deps, 'config' | 'cluster' | 'pool' | 'log'>;

export async function startSmtpIngress(deps: IngressDeps, metrics: Metrics): Promise<SmtpIngress> {
  const { config, cluster, pool, log } = deps;
  const recent = new RecentRecipients(RECIPIENT_CACHE_MS, RECIPIENT_CACHE_SIZE);
  const budget = new InflightBudget(config.smtpMaxInflightBytes, config.smtpMaxInflightBytesPerIp, (inUse) => metrics.smtpInflightBytes.set(inUse));
  const perIp = new ConnectionsPerIp(config.smtpMaxConnectionsPerIp);
  const named = new NamedRecipients(2 * config.smtpMaxRecipients);
  const authenticator = new MailAuthenticator(
    config, log,
    (addresses, id, authentication) => cluster.call({ type: 'message.set_auth', addresses, id, authentication }),
    (input, account) => pool.checkSender(input, account),
  );
  const owners = new RecipientOwners();
  const quota = new StorageQuota(config, cluster);
  const server = new SMTPServer({
    name: config.mxHost,
    banner: 'Mailcue ESMTP',
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: config.maxMessageBytes,
    logger: false,
    maxClients: config.smtpMaxConnections,
    // smtp-server asks the system resolver for every client's PTR name by default: an outside
    // request per connection, slow when that resolver is (issue 11, item 9). Nothing here uses it.
    disableReverseLookup: true,
    // On shutdown, connections still open after this are closed (the default waits 30 s).
    closeTimeout: 5_000,
    onConnect(session, callback) {
      if (perIp.admit(session.id, session.remoteAddress)) return callback();
      metrics.smtpRejected.inc({ reason: 'too_many_connections' });
      callback(smtpError('too_many_connections', 'Too many connections from your address, try again later'));
    },
    onClose(session) {
      perIp.release(session.id, session.remoteAddress);
    },
    async onRcptTo(address, session, callback) {
      if (session.envelope.rcptTo.length >= config.smtpMaxRecipients) {
        metrics.smtpRejected.inc({ reason: 'too_many_recipients' });
        return callback(smtpError('too_many_recipients', `Too many recipients (at most ${config.smtpMaxRecipients} per message)`));
      }
      named.add(session.envelope, address.address);
      const parsed = normalizeAddress(address.address);
      if (!parsed) {
        metrics.smtpRejected.inc({ reason: 'bad_recipient' });
        return callback(smtpError('invalid_address', 'Recipient address rejected: malformed'));
      }
      try {
        let known = recent.get(parsed.address);
        // An inbox this front saw reach its limit is asked again: its owner may have deleted mail since.
        if (known && known.messages !== null && known.messages >= ((await quota.figure(known.owner)).plan.maxMessagesPerInbox)) known = null;
        let owner = known?.owner ?? null;
        let messages = known?.messages ?? null;
        if (owner === null) {
          // A shard of an earlier version answers the owner alone.
          const found = await cluster.call({ type: 'inbox.accepts', address: parsed.address, quota: true });
          if (!found) {
            metrics.smtpRejected.inc({ reason: 'unknown_recipient' });
            return callback(smtpError('inbox_not_found', 'Recipient address rejected: no such inbox'));
          }
          owner = typeof found === 'string' ? found : found.account_id;
          messages = typeof found === 'string' ? null : found.messages;
        }
        const full = await quota.check(owner, messages, declaredSize(session));
        if (full) {
          metrics.smtpRejected.inc({ reason: 'mailbox_full' });
          return callback(smtpError('mailbox_full', FULL_TEXT[full]));
        }
        if (!known) recent.add(parsed.address, owner, messages);
        owners.set(session.envelope, parsed.address, owner);
        callback();
      } catch (err) {
        log.warn({ err }, 'RCPT check failed');
        callback(smtpError('unavailable', TRY_LATER));
      }
    },
    onData(stream, session, callback) {
      let held = 0;
      const client = clientKey(session.remoteAddress);
      // The bytes stay counted until delivery and sender authentication are both done with them.
      let authDone: Promise<unknown> = Promise.resolve();
      const { envelope } = session;
      void (async () => {
        const hash = hasherOf(envelope, named);
        const read = await readBounded(stream, config.maxMessageBytes, budget, client, hash instanceof Error ? undefined : (chunk) => hash.update(chunk));
        if (read.kind === 'too_large') {
          metrics.smtpRejected.inc({ reason: 'too_large' });
          return callback(smtpError('payload_too_large', `Message exceeds the ${config.maxMessageBytes} byte limit`));
        }
        if (read.kind === 'busy') {
          metrics.smtpRejected.inc({ reason: 'busy' });
          return callback(smtpError('ingress_busy', 'Too much mail in flight, try again later'));
        }
        held = read.held;
        const { raw } = read;
        if (hash instanceof Error) throw hash;
        const digest = hash.digest('hex');
        const account = owners.first(envelope) ?? `ip:${client}`;
        const auth = authenticator.begin(raw, session, account);
        authDone = auth.final;
        let message: ParsedMessage;
        let parts: Uint8Array[] | undefined;
        try {
          // A small mail over its bound was starved of CPU, not hostile: it gets a second try.
          message = await pool.parse(raw, account).catch((err: unknown) => {
            if (raw.length > RETRY_PARSE_MAX_BYTES) throw err;
            return pool.parse(raw, account);
          });
          // The attachments' bytes travel beside the record, not in it (the shard stores them apart).
          parts = (message as ParsedWithParts).parts;
          if (parts) delete (message as ParsedWithParts).parts;
        } catch (err) {
          log.warn({ err }, 'parse failed; storing the message unparsed');
          message = unparsed(raw, session);
        }
        message.authentication = await auth.atAnswer();
        const { recipients, full, maxMessages } = await withinLimits(quota, owners, envelope, raw.byteLength);
        const results = await Promise.all(
          byShard(deps, recipients).map((addresses) => cluster.call({ type: 'inbox.deliver', addresses, message, raw, digest, maxMessages, ...(parts ? { parts } : {}) }, { timeoutMs: 30_000 })),
        );
        // An inbox deleted since RCPT is skipped; any other failure fails the whole message (451).
        // An inbox that already held the message (a retry) took it, as it did the first time.
        let delivered = 0;
        let accepted = 0;
        for (const r of results) {
          delivered += r.delivered.length;
          accepted += r.delivered.length + r.duplicates.length;
          for (const address of r.gone) recent.forget(address);
          for (const address of r.delivered) {
            quota.add(owners.of(envelope, address) ?? '', raw.byteLength);
            recent.delivered(address);
          }
          full.push(...(r.full ?? []));
        }
        metrics.messagesReceived.inc(delivered);
        if (delivered > 0) auth.afterAnswer(results, message.authentication);
        // A recipient that filled up since RCPT: the sender retries, its RCPT then answers 452, and
        // the recipients that took the message now hold it already (idempotent ingest).
        for (const address of full) recent.forget(address);
        if (full.length > 0) {
          metrics.smtpRejected.inc({ reason: 'mailbox_full' });
          return callback(smtpError('mailbox_full', 'Mailbox full: a recipient is at its plan\'s storage limit, try again later'));
        }
        // Inboxes deleted since RCPT: refused only when none of the recipients could take it.
        if (accepted === 0) return callback(smtpError('inbox_not_found', 'Recipient inbox was deleted'));
        callback(null, 'Message committed');
      })()
        .catch((err: unknown) => {
          log.error({ err }, 'delivery failed');
          callback(smtpError('unavailable', TRY_LATER));
        })
        .finally(() => void authDone.finally(() => budget.release(held, client)));
    },
  });
  server.on('error', (err) => log.warn({ err }, 'smtp error'));
  server.server.on('connection', coalesceReplies);
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
