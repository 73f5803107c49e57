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

/** Messages carry whole raw emails (MAILCUE_MAX_MESSAGE_BYTES, 10 MiB by default) plus metadata. */
export const MAX_GRPC_MESSAGE_BYTES = 64 * 1024 * 1024;

export const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.max_receive_message_length': MAX_GRPC_MESSAGE_BYTES,
  'grpc.max_send_message_length': MAX_GRPC_MESSAGE_BYTES,
  // Client pings every 30 s; the server permits that, so it never answers ENHANCE_YOUR_CALM.
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.keepalive_permit_without_calls': 1,
  'grpc.http2.min_ping_interval_without_data_ms': 20_000,
};

export interface Envelope {
  id: number;
  deadline_ms: number;
  command: Uint8Array;
  cancel: boolean;
  /** Fencing (DESIGN.md §8): the slot and the epoch the sender routed by; epoch 0 is unfenced. */
  slot: number;
  epoch: number;
}

export interface EnvelopeBatch {
  envelopes: Envelope[];
}

export interface ReplyBatch {
  replies: Reply[];
}

/**
 * Collects what one event-loop turn writes to a stream and sends it as one message at the end of
 * the turn (setImmediate runs after the I/O callbacks of the turn that queued it).
 */
export class Coalescer<T> {
  private pending: T[] = [];
  private scheduled = false;

  constructor(private readonly flush: (items: T[]) => void) {}

  push(item: T): void {
    this.pending.push(item);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const items = this.pending;
      this.pending = [];
      if (items.length > 0) this.flush(items);
    });
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
}

/** Plain msgpack maps (no shared record structures), so any process can read any envelope. */
export const codec = new Packr({ useRecords: false });

export { grpc };
