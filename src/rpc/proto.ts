// The only importer of @grpc/grpc-js and @grpc/proto-loader (with the other rpc/ modules): loads
// proto/ once and holds the channel options both sides agree on.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { fileURLToPath } from 'node:url';
import { Packr } from 'msgpackr';

const PROTO_ROOT = fileURLToPath(new URL('../../proto/', import.meta.url));

const definition = protoLoader.loadSync(['mailcue/v1/shard.proto', 'grpc/health/v1/health.proto'], {
  includeDirs: [PROTO_ROOT],
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
});

interface LoadedPackage {
  mailcue: { v1: { Shard: grpc.ServiceClientConstructor } };
  grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } };
}

export const loaded = grpc.loadPackageDefinition(definition) as unknown as LoadedPackage;
export const ShardService = loaded.mailcue.v1.Shard;
export const HealthService = loaded.grpc.health.v1.Health;

/**
 * No stream message may be larger than this (DESIGN §7): grpc-js fails a stream, and every request
 * on it, when one message passes its limit, so the limit is set to what the framing guarantees.
 */
export const MAX_GRPC_MESSAGE_BYTES = 4 * 1024 * 1024;
/** A command or result larger than this travels as several parts of one id. */
export const CHUNK_BYTES = 1024 * 1024;
/** A coalesced batch is sent as soon as it reaches this; one part more still fits the limit. */
const BATCH_BYTES = 2 * 1024 * 1024;
/** Framing of one envelope or reply besides its body: ids, deadline, tags, an error's text. */
export const ENVELOPE_OVERHEAD_BYTES = 64;

export const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.max_receive_message_length': MAX_GRPC_MESSAGE_BYTES,
  'grpc.max_send_message_length': MAX_GRPC_MESSAGE_BYTES,
  // Client pings every 30 s; the server permits that, so it never answers ENHANCE_YOUR_CALM.
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.keepalive_permit_without_calls': 1,
  'grpc.http2.min_ping_interval_without_data_ms': 20_000,
  // Channels to one address share a subchannel (grpc-js's global pool): one left open to a shard
  // that died (the front's Notices stream) backs off up to 120 s by default, and a shard that came
  // back was refused "No connection established" to every new client until that backoff ran out.
  'grpc.max_reconnect_backoff_ms': 1000,
};

export interface Envelope {
  id: number;
  deadline_ms: number;
  command: Uint8Array;
  cancel: boolean;
  /** Set on every part of a chunked command but the last; absent on the common, whole one. */
  more?: boolean;
  /** Fencing (DESIGN.md §8): the slot and the epoch the sender routed by; epoch 0 is unfenced. */
  slot?: number;
  epoch?: number;
}

export interface EnvelopeBatch {
  envelopes: Envelope[];
}

export interface ReplyBatch {
  replies: Reply[];
}

/**
 * Collects what one event-loop turn writes to a stream and sends it as one message at the end of
 * the turn (setImmediate runs after the I/O callbacks of the turn that queued it). A batch that
 * reaches BATCH_BYTES is sent at once, so no message passes MAX_GRPC_MESSAGE_BYTES.
 */
export class Coalescer<T> {
  private pending: T[] = [];
  private bytes = 0;
  private scheduled = false;

  constructor(private readonly flush: (items: T[]) => void) {}

  /** `size` is the item's body length (its framing is counted here). */
  push(item: T, size: number): void {
    const bytes = size + ENVELOPE_OVERHEAD_BYTES;
    if (this.bytes + bytes > BATCH_BYTES && this.pending.length > 0) this.send();
    this.pending.push(item);
    this.bytes += bytes;
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.send();
    });
  }

  private send(): void {
    const items = this.pending;
    this.pending = [];
    this.bytes = 0;
    if (items.length > 0) this.flush(items);
  }
}

/** A body cut into parts of at most CHUNK_BYTES (views, no copies). */
export function chunksOf(body: Uint8Array): Uint8Array[] {
  const parts: Uint8Array[] = [];
  for (let at = 0; at < body.length; at += CHUNK_BYTES) parts.push(body.subarray(at, Math.min(at + CHUNK_BYTES, body.length)));
  return parts;
}

/** Joins the parts of chunked bodies by request id. */
export class Assembler {
  private readonly parts = new Map<number, Uint8Array[]>();

  /** The whole body once its last part is in; null while parts are still coming. */
  add(id: number, part: Uint8Array, more: boolean): Uint8Array | null {
    const have = this.parts.get(id);
    if (more) {
      if (have) have.push(part);
      else this.parts.set(id, [part]);
      return null;
    }
    if (!have) return part;
    this.parts.delete(id);
    have.push(part);
    return Buffer.concat(have);
  }

  /** True while some body is half received (the common path skips the table when false). */
  get busy(): boolean {
    return this.parts.size > 0;
  }

  drop(id: number): void {
    this.parts.delete(id);
  }
}

export interface Failure {
  code: string;
  message: string;
  details: Uint8Array;
}

export interface Reply {
  id: number;
  result: Uint8Array;
  error: Failure | null;
  /** Set on every part of a chunked result but the last. */
  more?: boolean;
}

/** Plain msgpack maps (no shared record structures), so any process can read any envelope. */
export const codec = new Packr({ useRecords: false });

/** A body at least this large is packed into a buffer of its own size (packBody). */
const LARGE_BODY_BYTES = 1024 * 1024;
/** The buffer msgpackr goes on with after a large body (it then grows as it would from the start). */
const SMALL_TARGET_BYTES = 64 * 1024;

/**
 * About how many bytes a command or result packs to, counting its bytes and strings four levels
 * deep (a delivery's raw source and parts, its parsed message's text and header fields).
 */
function roughBytes(value: unknown, depth = 4): number {
  if (typeof value === 'string') return value.length;
  if (value instanceof Uint8Array) return value.byteLength;
  if (depth === 0 || value === null || typeof value !== 'object') return 8;
  let n = 0;
  if (Array.isArray(value)) for (const v of value) n += roughBytes(v, depth - 1);
  else for (const k in value) n += k.length + roughBytes((value as Record<string, unknown>)[k], depth - 1);
  return n;
}

/**
 * msgpack of a command or result. msgpackr packs into one buffer it shares between calls and
 * grows fourfold when a value does not fit: a 10 MB mail was copied into a new 40 MB buffer that
 * every small envelope packed after it then kept alive (issue 33: copies and collections on the
 * front's loop beside a hostile sender). A large value gets a buffer of about its own size, and
 * the packing after it a small one again.
 */
export function packBody(value: unknown): Uint8Array {
  const rough = roughBytes(value);
  if (rough < LARGE_BODY_BYTES) return codec.pack(value);
  codec.useBuffer(Buffer.allocUnsafeSlow(Math.ceil(rough * 1.25) + SMALL_TARGET_BYTES));
  try {
    return codec.pack(value);
  } finally {
    codec.useBuffer(Buffer.allocUnsafeSlow(SMALL_TARGET_BYTES));
  }
}

export { grpc };
