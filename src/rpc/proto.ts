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
  /** On the first part of a command sent in parts: the whole command's length. */
  total?: number;
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

/**
 * Parts of at most CHUNK_BYTES whose concatenation is that of `segments`: views of them, and a
 * copy only for a part that spans two segments.
 */
export function partsOf(segments: readonly Uint8Array[]): Uint8Array[] {
  const parts: Uint8Array[] = [];
  let pieces: Uint8Array[] = [];
  let bytes = 0;
  const cut = () => {
    parts.push(pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, bytes));
    pieces = [];
    bytes = 0;
  };
  for (const segment of segments) {
    for (let at = 0; at < segment.length;) {
      const take = Math.min(CHUNK_BYTES - bytes, segment.length - at);
      pieces.push(segment.subarray(at, at + take));
      bytes += take;
      at += take;
      if (bytes === CHUNK_BYTES) cut();
    }
  }
  if (bytes > 0 || parts.length === 0) cut();
  return parts;
}

/**
 * Pushes a body's parts one per turn of the event loop, the first with the body's length: a 10 MB
 * body costs the sender's loop ten short stretches instead of one long one, and other requests go
 * between them (issue 33). Stops as soon as `wanted()` is false (the stream broke, the request was
 * cancelled).
 */
export function pushParts(parts: readonly Uint8Array[], push: (part: Uint8Array, more: boolean, total: number) => void, wanted: () => boolean): void {
  const total = parts.reduce((n, part) => n + part.length, 0);
  let i = 0;
  const next = () => {
    if (!wanted()) return;
    const more = i < parts.length - 1;
    push(parts[i]!, more, i === 0 ? total : 0);
    i++;
    if (more) setImmediate(next);
  };
  next();
}

/** The largest announced total a receiver sets a buffer aside for; a larger body is joined at the end. */
const MAX_PLACED_BYTES = 64 * 1024 * 1024;

/** One body arriving in parts: copied into place as they come when its length was announced. */
class Joining {
  private readonly whole: Buffer | null;
  private at = 0;
  private readonly list: Uint8Array[] = [];

  constructor(first: Uint8Array, total: number) {
    this.whole = total > first.length && total <= MAX_PLACED_BYTES ? Buffer.allocUnsafeSlow(total) : null;
    this.add(first);
  }

  add(part: Uint8Array): void {
    if (this.whole && this.list.length === 0 && this.at + part.length <= this.whole.length) {
      this.whole.set(part, this.at);
      this.at += part.length;
    } else {
      // Not the announced length after all: the rest is joined at the end.
      if (this.whole && this.list.length === 0) this.list.push(this.whole.subarray(0, this.at));
      this.list.push(part);
    }
  }

  finish(): Uint8Array {
    if (this.whole && this.list.length === 0 && this.at === this.whole.length) return this.whole;
    return Buffer.concat(this.list.length > 0 ? this.list : [this.whole!.subarray(0, this.at)]);
  }
}

/** Joins the parts of chunked bodies by request id. */
export class Assembler {
  private readonly parts = new Map<number, Joining>();

  /** The whole body once its last part is in; null while parts are still coming. */
  add(id: number, part: Uint8Array, more: boolean, total = 0): Uint8Array | null {
    const have = this.parts.get(id);
    if (more) {
      if (have) have.add(part);
      else this.parts.set(id, new Joining(part, total));
      return null;
    }
    if (!have) return part;
    this.parts.delete(id);
    have.add(part);
    return have.finish();
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
  /** On the first part of a result sent in parts: the whole result's length. */
  total?: number;
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
/** A msgpack length header: `short` below `shortBelow`, else a type byte and a 16- or 32-bit length. */
function lengthHeader(n: number, shortBelow: number, short: () => Uint8Array, type16: number, type32: number): Uint8Array {
  if (n < shortBelow) return short();
  const wide = n >= 0x10000;
  const header = Buffer.allocUnsafe(wide ? 5 : 3);
  header[0] = wide ? type32 : type16;
  if (wide) header.writeUInt32BE(n, 1);
  else header.writeUInt16BE(n, 1);
  return header;
}

/** msgpack's header of a byte string of `n` bytes (bin 8/16/32), as msgpackr writes it. */
const binHeader = (n: number) => lengthHeader(n, 0x100, () => Uint8Array.of(0xc4, n), 0xc5, 0xc6);
/** msgpack's header of an array of `n` items (fixarray, array 16/32), as msgpackr writes it. */
const arrayHeader = (n: number) => lengthHeader(n, 16, () => Uint8Array.of(0x90 | n), 0xdc, 0xdd);

/** The bytes of a field packSegments leaves out of the packing (a byte array or a list of them); -1 for any other value. */
function byteFieldLength(value: unknown): number {
  if (value instanceof Uint8Array) return value.length;
  if (!Array.isArray(value)) return -1;
  let n = 0;
  for (const item of value) {
    if (!(item instanceof Uint8Array)) return -1;
    n += item.length;
  }
  return n;
}

/**
 * msgpack of `value` as segments, its byte fields `keys` (a mail's raw source, its attachments'
 * bytes) last and not copied: the rest is packed with each field empty, and each field's bytes
 * follow as themselves behind their headers. The receiver unpacks them as any body (the same
 * value); the sender's loop does not copy a 10 MB mail into a packing buffer (issue 33).
 */
export function packSegments(value: object, keys: readonly string[]): Uint8Array[] {
  const record = value as Record<string, unknown>;
  const fields: string[] = [];
  let large = 0;
  for (const k of keys) {
    const n = byteFieldLength(record[k]);
    if (n < 0) continue;
    fields.push(k);
    large += n;
  }
  // Every delivery comes here: the usual small one is packed whole.
  if (large < CHUNK_BYTES) return [packBody(value)];
  const rest: Record<string, unknown> = {};
  for (const k in record) if (!fields.includes(k)) rest[k] = record[k];
  // The rest's map header counts the fields that follow it; each is packed as null there, cut off below.
  const head = packBody({ ...rest, ...Object.fromEntries(fields.map((k) => [k, null])) });
  let cut = 0;
  const segments: Uint8Array[] = [];
  for (const k of fields) {
    const key = packBody(k).slice();
    cut += key.length + 1;
    segments.push(key);
    const field = record[k] as Uint8Array | Uint8Array[];
    if (field instanceof Uint8Array) segments.push(binHeader(field.length), field);
    else {
      segments.push(arrayHeader(field.length));
      for (const bytes of field) segments.push(binHeader(bytes.length), bytes);
    }
  }
  return [head.subarray(0, head.length - cut), ...segments];
}

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
