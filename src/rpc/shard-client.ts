// The front tier's channel to one shard: a few long-lived Mailbox streams carrying many requests as
// envelopes, answered by id; a body larger than one chunk goes in parts (proto.ts). Pending
// requests live in one table. A stream that breaks is replaced: the reads that were on it are sent
// again once on the new stream, the rest fail alone as `unavailable` (DESIGN §7).
import type { Command } from '../contract/commands.js';
import { PARKING, RESENDABLE, type CommandOf, type CommandType, type ResultOf } from '../contract/command-table.js';
import { MailcueError, isErrorCode, type ErrorDetails } from '../errors/registry.js';
import type { CancelSignal } from '../util/cancel.js';
import { positionAt } from '../util/ids.js';
import { promised, type Sink } from '../util/sink.js';
import { channelCredentials, channelOptions, type TlsMaterial } from './tls.js';
import { Assembler, CHANNEL_OPTIONS, CHUNK_BYTES, Coalescer, codec, grpc, packBody, packSegments, partsOf, pushParts, HealthService, ShardService, type Envelope, type EnvelopeBatch, type Reply, type ReplyBatch } from './proto.js';

export interface CallOptions {
  /** Aborting sends a cancel envelope; the shard frees whatever the request parked. */
  signal?: CancelSignal;
  /** Defaults to DEFAULT_CALL_TIMEOUT_MS; long-polls pass their own wait plus a margin. */
  timeoutMs?: number;
  /** The slot and epoch the command was routed by (cluster mode); the shard fences on them. */
  slot?: number;
  epoch?: number;
}

interface Pending {
  sink: Sink;
  stream: Stream;
  deadline: number;
  command: CommandType;
  started: number;
  /**
   * A read, kept to send it again if its stream breaks; null otherwise. The command, not its
   * packed bytes: those are a view into msgpackr's shared buffer and would pin it. Not its resent
   * form either (againAs, made from `started` when needed): a parked long-poll would hold that
   * copy, ~200 B, for a stream break.
   */
  resend: Command | null;
  /** Fencing of the command (cluster mode), sent again with it. */
  slot: number;
  epoch: number;
}

interface Stream {
  call: grpc.ClientDuplexStream<EnvelopeBatch, ReplyBatch>;
  out: Coalescer<Envelope>;
  alive: boolean;
}

export const DEFAULT_CALL_TIMEOUT_MS = 15_000;
const EMPTY = new Uint8Array(0);
/** How long the front waits for the next part of a result that has started arriving. */
const PART_GRACE_MS = 10_000;
const STREAMS_PER_SHARD = 2;
const SWEEP_INTERVAL_MS = 250;

export type LatencyObserver = (command: string, seconds: number, ok: boolean) => void;

/**
 * The abort listener of one call, made outside `call()` so that a parked long-poll's closure keeps
 * only the client and the id, not the command it was sent with.
 */
function cancelOnAbort(client: ShardClient, id: number): () => void {
  return () => client.cancel(id);
}

export class ShardClient {
  private readonly client: grpc.Client;
  private readonly health: grpc.Client;
  private readonly streams: (Stream | null)[] = new Array(STREAMS_PER_SHARD).fill(null);
  private readonly pending = new Map<number, Pending>();
  /** Results arriving in parts, by request id. */
  private readonly replyParts = new Assembler();
  /** Commands whose parts are still being sent, each with the token of its sending (see send). */
  private readonly sending = new Map<number, object>();
  private nextId = 1;
  private turn = 0;
  private readonly sweeper: NodeJS.Timeout;

  constructor(readonly shardId: number | string, readonly target: string, private readonly observe?: LatencyObserver, tls: TlsMaterial | null = null) {
    const options = { ...CHANNEL_OPTIONS, ...channelOptions(tls) };
    this.client = new ShardService(target, channelCredentials(tls), options);
    this.health = new HealthService(target, channelCredentials(tls), options);
    this.sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  waitForReady(timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.client.waitForReady(Date.now() + timeoutMs, (err) => (err ? reject(err) : resolve()));
    });
  }

  /** gRPC health check; resolves true when the shard reports SERVING. */
  check(timeoutMs = 2000): Promise<boolean> {
    return new Promise((resolve) => {
      (this.health as unknown as { Check: Function }).Check({ service: '' }, { deadline: Date.now() + timeoutMs }, (err: Error | null, res: { status: string }) =>
        resolve(!err && res.status === 'SERVING'),
      );
    });
  }

  private stream(): Stream {
    const slot = this.turn++ % STREAMS_PER_SHARD;
    const existing = this.streams[slot];
    if (existing?.alive) return existing;
    const call = (this.client as unknown as { Mailbox(): grpc.ClientDuplexStream<EnvelopeBatch, ReplyBatch> }).Mailbox();
    const stream: Stream = {
      call,
      alive: true,
      out: new Coalescer<Envelope>((envelopes) => {
        if (stream.alive) call.write({ envelopes });
      }),
    };
    call.on('data', (batch: ReplyBatch) => {
      for (const reply of batch.replies) this.settle(reply);
    });
    const broken = (err?: Error) => {
      if (!stream.alive) return;
      stream.alive = false;
      if (this.streams[slot] === stream) this.streams[slot] = null;
      this.recover(stream, err);
    };
    call.on('error', broken);
    call.on('end', () => broken());
    this.streams[slot] = stream;
    return stream;
  }

  /** A stream broke: its reads go again, once, on a live stream; everything else on it fails. */
  private recover(dead: Stream, err?: Error): void {
    let replacement: Stream | null = null;
    for (const [id, p] of this.pending) {
      if (p.stream !== dead) continue;
      this.replyParts.drop(id);
      if (p.resend) {
        replacement ??= this.stream();
        p.stream = replacement;
        // The wall-clock millisecond of its first send, from the monotonic start (the deadline may
        // have moved since); rounded down, so the cursor stays below what came after it.
        const sentAt = Math.floor(Date.now() - (performance.now() - p.started));
        this.send(replacement, id, p.deadline, [packBody(againAs(p.resend, sentAt))], p.slot, p.epoch);
        p.resend = null;
        continue;
      }
      this.pending.delete(id);
      p.sink.reject(new MailcueError('unavailable', `Shard ${this.shardId} is unavailable${err ? `: ${err.message}` : ''}`));
    }
  }

  /**
   * Queues a packed command (its segments, packSegments): whole in the common case, in parts of
   * CHUNK_BYTES when larger, one part per turn of the loop (pushParts).
   */
  private send(stream: Stream, id: number, deadline: number, packed: Uint8Array[], slot: number, epoch: number): void {
    if (packed.length === 1 && packed[0]!.length <= CHUNK_BYTES) {
      stream.out.push({ id, deadline_ms: deadline, command: packed[0]!, cancel: false, slot, epoch }, packed[0]!.length);
      return;
    }
    // A token of this sending: a resend of the same id on another stream is another sending.
    const token = {};
    this.sending.set(id, token);
    const wanted = () => {
      // Cancelled (its cancel envelope went), or sent again on another stream after this one broke.
      if (this.sending.get(id) !== token) return false;
      if (stream.alive && this.pending.get(id)?.stream === stream) return true;
      this.sending.delete(id);
      // It settled meanwhile (its deadline passed): the shard drops the parts it has.
      if (stream.alive) stream.out.push({ id, deadline_ms: 0, command: EMPTY, cancel: true }, 0);
      return false;
    };
    pushParts(partsOf(packed), (part, more, total) => {
      stream.out.push({ id, deadline_ms: deadline, command: part, cancel: false, more, slot, epoch, ...(total > 0 ? { total } : {}) }, part.length);
      if (!more) this.sending.delete(id);
    }, wanted);
  }

  /** Sends a command to this shard; its result type comes from the command table. */
  call<K extends CommandType>(command: CommandOf<K>, options: CallOptions = {}): Promise<ResultOf<K>> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(new MailcueError('unavailable', 'Request cancelled'));
    return promised<ResultOf<K>>((sink) => {
      const id = this.submit(command, options, sink);
      if (signal) signal.addEventListener('abort', cancelOnAbort(this, id));
    });
  }

  /** Sends a command whose outcome goes to `sink` (options.signal is not watched); returns the id cancel() takes. */
  submit(command: Command, options: CallOptions, sink: Sink): number {
    const id = this.nextId++;
    const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS);
    const stream = this.stream();
    const type = command.type;
    const packed = command.type === 'inbox.deliver' ? packSegments(command, ['parts', 'raw']) : [packBody(command)];
    const slot = options.slot ?? 0;
    const epoch = options.epoch ?? 0;
    const resend = RESENDABLE.has(type) ? command : null;
    this.pending.set(id, { sink, stream, deadline, command: type, started: performance.now(), resend, slot, epoch });
    this.send(stream, id, deadline, packed, slot, epoch);
    return id;
  }

  /** Tells the shard to drop the request; the pending entry settles with the shard's answer. */
  cancel(id: number): void {
    const p = this.pending.get(id);
    if (!p?.stream.alive) return;
    p.stream.out.push({ id, deadline_ms: 0, command: EMPTY, cancel: true }, 0);
    // Cancelled before its last part was sent: the shard drops the parts it has and never runs
    // it, so no answer will come.
    if (this.sending.delete(id)) {
      this.pending.delete(id);
      p.sink.reject(new MailcueError('unavailable', 'Request cancelled'));
    }
  }

  private settle(reply: Reply): void {
    const p = this.pending.get(reply.id);
    if (!p) {
      // The request timed out or was failed while its result was on the way: drop any parts.
      if (this.replyParts.busy) this.replyParts.drop(reply.id);
      return;
    }
    if (reply.more || this.replyParts.busy) {
      const whole = this.replyParts.add(reply.id, reply.result, reply.more === true, reply.total);
      if (!whole) {
        // A result still arriving is an answer under way: its deadline moves with each part, so
        // a large body queued behind others on a busy stream is not cut off halfway.
        p.deadline = Math.max(p.deadline, Date.now() + PART_GRACE_MS);
        return;
      }
      reply.result = whole;
    }
    this.pending.delete(reply.id);
    const ok = !reply.error;
    this.observe?.(p.command, (performance.now() - p.started) / 1000, ok);
    if (ok) {
      p.sink.resolve(reply.result.length ? codec.unpack(reply.result) : undefined);
      return;
    }
    const { code, message, details } = reply.error!;
    const extra = details.length ? (codec.unpack(details) as ErrorDetails) : undefined;
    p.sink.reject(new MailcueError(isErrorCode(code) ? code : 'internal', message, extra));
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, p] of this.pending) {
      if (p.deadline > now) continue;
      this.pending.delete(id);
      this.replyParts.drop(id);
      this.cancel(id);
      p.sink.reject(new MailcueError('deadline_exceeded', `Shard ${this.shardId} did not answer ${p.command} in time`));
    }
  }

  /** Shutdown: asks the shard to answer every parked long-poll now (as timed out). */
  cancelWaits(): number {
    let n = 0;
    for (const [id, p] of this.pending) {
      if (!PARKING.has(p.command)) continue;
      this.cancel(id);
      n++;
    }
    return n;
  }

  get waitsInFlight(): number {
    let n = 0;
    for (const p of this.pending.values()) if (PARKING.has(p.command)) n++;
    return n;
  }

  get inFlight(): number {
    return this.pending.size;
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const s of this.streams) if (s?.alive) s.call.end();
    for (const p of this.pending.values()) p.sink.reject(new MailcueError('unavailable', 'Client closed'));
    this.pending.clear();
    this.client.close();
    this.health.close();
  }
}

/**
 * What a command is sent again as, after its stream broke: itself, except a long-poll that waited
 * from "now" (no `since`), which waits from a cursor below every message made since its first
 * send (`sentAt`), so the mail that arrived while the stream was down is not skipped.
 */
function againAs(command: Command, sentAt: number): Command {
  if (command.type !== 'message.wait' || command.since != null) return command;
  return { ...command, since: positionAt(sentAt) };
}
