// What bounds the SMTP ingress while it reads (DESIGN §7): DATA is read chunk by chunk against the
// message size limit and a front-wide budget of bytes held at once, and connections are counted
// per client IP. Past a limit the rest of DATA is drained unbuffered, so memory never follows the
// sender's size.
import type { SMTPServerDataStream } from 'smtp-server';
import { clientKey } from '../security/client-key.js';

/**
 * The bytes of DATA the whole front holds at once (buffered, being delivered or authenticated),
 * and the share of one client (an IPv4 address or IPv6 /64, see clientKey): one client cannot
 * take the whole front's budget (issue 33).
 */
export class InflightBudget {
  private used = 0;
  private readonly byClient = new Map<string, number>();

  constructor(
    readonly maxBytes: number,
    readonly maxBytesPerClient = maxBytes,
    /** Told the bytes in use after every change (the `mailcue_smtp_inflight_bytes` gauge). */
    private readonly changed: (inUse: number) => void = () => undefined,
  ) {}

  take(bytes: number, client = ''): boolean {
    const mine = this.byClient.get(client) ?? 0;
    if (this.used + bytes > this.maxBytes || mine + bytes > this.maxBytesPerClient) return false;
    this.used += bytes;
    this.byClient.set(client, mine + bytes);
    this.changed(this.used);
    return true;
  }

  release(bytes: number, client = ''): void {
    if (bytes === 0) return;
    this.used -= bytes;
    const left = (this.byClient.get(client) ?? bytes) - bytes;
    if (left <= 0) this.byClient.delete(client);
    else this.byClient.set(client, left);
    this.changed(this.used);
  }

  /** Bytes one client holds. */
  heldBy(client: string): number {
    return this.byClient.get(client) ?? 0;
  }

  get inUse(): number {
    return this.used;
  }
}

/** How a DATA read ended: the whole message, or which bound it crossed (the rest was discarded). */
export type DataRead =
  | { kind: 'ok'; raw: Buffer; held: number }
  | { kind: 'too_large' }
  | { kind: 'busy' };

/** A message at least this large is read into shared memory (joined). */
const SHARED_RAW_BYTES = 64 * 1024;

/** Bytes copied per turn of the ingress loop when a large message is joined. */
const JOIN_BYTES_PER_TURN = 1024 * 1024;

/**
 * The chunks of a message as one buffer. A large one lives in a SharedArrayBuffer: the parse and
 * sender-check threads it is handed to then read these bytes instead of a copy that the front's
 * loop would make for each hand-off (a 10 MB mail: two copies of 10 MB each, issue 33). It is
 * copied about 1 MiB per turn of the loop: the other mails' turns go between (a 10 MB mail in one
 * go held the ingress loop 10-40 ms here).
 */
function joined(chunks: Buffer[], length: number): Promise<Buffer> {
  if (length < SHARED_RAW_BYTES) return Promise.resolve(Buffer.concat(chunks, length));
  const raw = Buffer.from(new SharedArrayBuffer(length));
  let at = 0;
  let next = 0;
  return new Promise((resolve) => {
    const copy = () => {
      for (const until = at + JOIN_BYTES_PER_TURN; next < chunks.length && at < until; next++) at += chunks[next]!.copy(raw, at);
      if (next < chunks.length) setImmediate(copy);
      else resolve(raw);
    };
    copy();
  });
}

/**
 * Reads DATA, holding at most `maxBytes` of it and only while the budget allows. The caller
 * releases `held` bytes of the budget once the message is delivered.
 */
export function readBounded(stream: SMTPServerDataStream, maxBytes: number, budget: InflightBudget, client = '', onChunk?: (chunk: Buffer) => void): Promise<DataRead> {
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] | null = [];
    let held = 0;
    let outcome: 'too_large' | 'busy' | null = null;
    const drop = (why: 'too_large' | 'busy') => {
      outcome = why;
      chunks = null;
      budget.release(held, client);
      held = 0;
    };
    stream.on('data', (chunk: Buffer) => {
      if (chunks === null) return;
      if (held + chunk.length > maxBytes) return drop('too_large');
      if (!budget.take(chunk.length, client)) return drop('busy');
      held += chunk.length;
      chunks.push(chunk);
      onChunk?.(chunk);
    });
    stream.on('end', () => {
      // smtp-server counts the unstuffed bytes too; either count past the limit refuses.
      if (outcome === null && stream.sizeExceeded) drop('too_large');
      if (outcome !== null || chunks === null) return resolve({ kind: outcome ?? 'too_large' });
      const kept = held;
      void joined(chunks, kept).then((raw) => resolve({ kind: 'ok', raw, held: kept }));
    });
    stream.on('error', (err) => {
      if (chunks !== null) budget.release(held, client);
      chunks = null;
      reject(err);
    });
  });
}

/** Open connections per client IP; a refused connection is never counted. */
export class ConnectionsPerIp {
  private readonly open = new Map<string, number>();
  private readonly counted = new Set<string>();

  constructor(private readonly max: number) {}

  /** Counts the session in; false when its client (IPv4 address, IPv6 /64) already has `max` connections open. */
  admit(sessionId: string, address: string): boolean {
    const ip = clientKey(address);
    const n = this.open.get(ip) ?? 0;
    if (n >= this.max) return false;
    this.open.set(ip, n + 1);
    this.counted.add(sessionId);
    return true;
  }

  release(sessionId: string, address: string): void {
    if (!this.counted.delete(sessionId)) return;
    const ip = clientKey(address);
    const n = (this.open.get(ip) ?? 1) - 1;
    if (n <= 0) this.open.delete(ip);
    else this.open.set(ip, n);
  }
}
