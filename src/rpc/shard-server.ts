// The shard's gRPC server: unpacks envelopes from the Mailbox streams, dispatches
// them to the actors, and writes replies. A command or result larger than one chunk travels in
// parts of the same id. A cancel envelope, or the stream going away, aborts the request, which
// frees any waiter it parked.
import type { Command } from '../contract/commands.js';
import { ANSWERED_LATER, type AccountNotice, type CommandDispatcher, type Durability, type RequestScope } from '../contract/results.js';
import type { Sink } from '../util/sink.js';
import { asMailcueError, MailcueError } from '../errors/registry.js';
import type { Logger } from '../obs/logger.js';
import { Cancellation } from '../util/cancel.js';
import { mayCall, peerRole, type PeerRole } from './roles.js';
import { serverCredentials, type TlsMaterial } from './tls.js';
import { Assembler, CHANNEL_OPTIONS, CHUNK_BYTES, Coalescer, partsOf, pushParts, codec, grpc, packBody, HealthService, ShardService, type Envelope, type EnvelopeBatch, type Reply, type ReplyBatch } from './proto.js';

const EMPTY = new Uint8Array(0);

function errorReply(id: number, err: unknown, log: Logger): Reply {
  if (!(err instanceof MailcueError)) log.error({ err }, 'actor failure');
  const e = asMailcueError(err);
  return { id, result: EMPTY, error: { code: e.code, message: e.message, details: e.details ? codec.pack(e.details) : EMPTY } };
}

/** Cluster fencing: may this shard run a command routed by (slot, epoch)? See src/cluster/slot-guard.ts. */
export interface Fence {
  admit(slot: number, epoch: number): null | MailcueError | Promise<void>;
  /** After the write's barrier: still the primary at the epoch, lease alive, in-sync set at its minimum. */
  confirm(slot: number, epoch: number, wrote: boolean): MailcueError | null;
  /** Before a delivery: refused while the slot's in-sync set is below its minimum. */
  writable(slot: number): MailcueError | null;
}

/** The slot and epoch a fenced command was admitted at: checked again before its answer. */
interface Admitted {
  readonly fence: Fence;
  readonly slot: number;
  readonly epoch: number;
}

const FENCE_ATTEMPTS = 3;

/** Runs `go` once the fence admits (slot, epoch); a slot changing owner waits, a stale epoch is refused `moved`. */
function fenced(fence: Fence, slot: number, epoch: number, cancel: Cancellation, attempt: number, go: () => void, refuse: (err: MailcueError) => void): void {
  const verdict = fence.admit(slot, epoch);
  if (verdict === null) go();
  else if (verdict instanceof MailcueError) refuse(verdict);
  else if (attempt >= FENCE_ATTEMPTS) refuse(new MailcueError('moved', `Slot ${slot} is changing owner`, { slot, retry_after_s: 1 }));
  else void verdict.then(() => {
    if (!cancel.aborted) fenced(fence, slot, epoch, cancel, attempt + 1, go, refuse);
  });
}

/**
 * One command being served: the scope its actor sees, and where its answer goes. A parked
 * long-poll's waiter holds this record and nothing else of the request (not its envelope or
 * command).
 */
class ServedRequest implements RequestScope, Sink {
  constructor(
    readonly id: number,
    readonly deadline: number,
    readonly signal: Cancellation,
    private readonly answer: (r: Reply) => void,
    private readonly log: Logger,
    private readonly durability: Durability | null,
    private readonly writesBefore: number,
    private readonly admitted: Admitted | null,
    /**
     * Its success acknowledges stored data even when it writes nothing now: a delivery that finds
     * its message already there (a sender's retry) confirms the first attempt's write, which may not
     * have reached every in-sync copy yet (the first answer was lost or refused).
     */
    private readonly acknowledges = false,
  ) {}

  /** Where an actor that parks sends the answer later. */
  get reply(): Sink {
    return this;
  }

  resolve(value: unknown): void {
    // A command that wrote is answered once every in-sync copy holds the write too (REPLICATION_ACK=all);
    // a copy that refused or went away fails the barrier, and the write is not acknowledged.
    const wrote = this.durability !== null && (this.acknowledges || this.durability.writes !== this.writesBefore);
    const replicated = wrote ? this.durability!.barrier() : null;
    if (replicated) replicated.then(() => this.confirmed(value, wrote), (err) => this.reject(err));
    else this.confirmed(value, wrote);
  }

  /** Ownership, epoch, lease and the in-sync minimum are checked again after the barrier. */
  private confirmed(value: unknown, wrote: boolean): void {
    const refusal = this.admitted?.fence.confirm(this.admitted.slot, this.admitted.epoch, wrote) ?? null;
    if (refusal) this.reject(refusal);
    else this.succeed(value);
  }

  reject(err: unknown): void {
    this.answer(errorReply(this.id, err, this.log));
  }

  /** Called from a waiter's settle inside a delivery: a result that cannot be packed is answered as an error, not thrown there. */
  private succeed(value: unknown): void {
    let packed: Uint8Array;
    try {
      packed = packBody(value);
    } catch (err) {
      this.reject(err);
      return;
    }
    this.answer({ id: this.id, result: packed, error: null });
  }
}

function run(actors: CommandDispatcher, role: PeerRole, id: number, deadline: number, command: Uint8Array, cancel: Cancellation, log: Logger, answer: (r: Reply) => void, admitted: Admitted | null = null): void {
  if (deadline && deadline < Date.now()) {
    answer(errorReply(id, new MailcueError('deadline_exceeded', 'Deadline exceeded before the shard started'), log));
    return;
  }
  let unpacked: Command;
  try {
    unpacked = codec.unpack(command) as Command;
  } catch (err) {
    answer(errorReply(id, err, log));
    return;
  }
  if (!mayCall(role, unpacked.type)) {
    log.warn({ command: unpacked.type, role }, 'command refused: the peer certificate\'s role may not send it');
    answer(errorReply(id, new MailcueError('forbidden_caller', `A ${role} may not send ${unpacked.type}`), log));
    return;
  }
  // Replication's own commands never wait on it: a follower's answer held until its own followers
  // caught up with unrelated writes would chain two shards that follow each other into waiting on
  // each other until the call timed out.
  const durability = unpacked.type.startsWith('slot.') ? null : (actors.durability ?? null);
  // A delivery to a slot below its minimum in-sync copies is refused before anything is stored.
  const thin = admitted && durability && unpacked.type === 'inbox.deliver' ? admitted.fence.writable(admitted.slot) : null;
  if (thin) {
    answer(errorReply(id, thin, log));
    return;
  }
  const request = new ServedRequest(id, deadline, cancel, answer, log, durability, durability ? durability.writes : 0, admitted, unpacked.type === 'inbox.deliver');
  let result: unknown;
  try {
    result = actors.dispatch(unpacked, request);
  } catch (err) {
    request.reject(err);
    return;
  }
  if (result === ANSWERED_LATER) return;
  if (result instanceof Promise) result.then((value) => request.resolve(value), (err) => request.reject(err));
  else request.resolve(result);
}

const noticeStreams = new WeakMap<grpc.Server, Set<grpc.ServerWritableStream<unknown, AccountNotice>>>();

/** Ends the fronts' Notices streams, which would otherwise hold a graceful shutdown open. */
export function endNoticeStreams(server: grpc.Server): void {
  for (const call of noticeStreams.get(server) ?? []) call.end();
}

export function createShardServer(actors: CommandDispatcher, log: Logger, fence?: Fence): grpc.Server {
  const server = new grpc.Server(CHANNEL_OPTIONS);
  // Every front's Notices stream: rotations and plan changes of this shard's accounts reach them all.
  const listeners = new Set<grpc.ServerWritableStream<unknown, AccountNotice>>();
  noticeStreams.set(server, listeners);
  actors.onAccountChange?.((notice) => {
    for (const call of listeners) call.write(notice);
  });
  server.addService(ShardService.service, {
    Notices(call: grpc.ServerWritableStream<unknown, AccountNotice>) {
      listeners.add(call);
      // Headers now tell the front it is registered, so no later notice can be missed.
      call.sendMetadata(new grpc.Metadata());
      const drop = () => listeners.delete(call);
      call.on('cancelled', drop);
      call.on('error', drop);
      call.on('close', drop);
    },
    Mailbox(call: grpc.ServerDuplexStream<EnvelopeBatch, ReplyBatch>) {
      const inFlight = new Map<number, Cancellation>();
      const parts = new Assembler();
      // The tier the peer's certificate names (src/rpc/roles.ts): what it may send on this stream.
      const role = peerRole(call.getAuthContext());
      let open = true;
      const out = new Coalescer<Reply>((replies) => {
        if (open) call.write({ replies });
      });
      const settle = (reply: Reply) => {
        inFlight.delete(reply.id);
        const body = reply.result;
        if (body.length <= CHUNK_BYTES) {
          out.push(reply, body.length + (reply.error ? reply.error.message.length + reply.error.details.length : 0));
          return;
        }
        pushParts(partsOf([body]), (part, more, total) => out.push({ id: reply.id, result: part, error: null, more, ...(total > 0 ? { total } : {}) }, part.length), () => open);
      };
      const abortAll = () => {
        open = false;
        for (const a of inFlight.values()) a.abort();
        inFlight.clear();
      };
      call.on('data', (batch: EnvelopeBatch) => {
        for (const env of batch.envelopes) {
          if (env.cancel) {
            parts.drop(env.id);
            inFlight.get(env.id)?.abort();
            continue;
          }
          let command = env.command;
          if (env.more || parts.busy) {
            const whole = parts.add(env.id, command, env.more === true, env.total);
            if (!whole) continue;
            command = whole;
          }
          const cancel = new Cancellation();
          inFlight.set(env.id, cancel);
          if (fence && env.epoch) {
            const { id, deadline_ms } = env;
            const whole = command;
            const admitted: Admitted = { fence, slot: env.slot ?? 0, epoch: env.epoch };
            fenced(fence, admitted.slot, env.epoch, cancel, 0, () => run(actors, role, id, deadline_ms, whole, cancel, log, settle, admitted), (err) => settle(errorReply(id, err, log)));
          } else {
            run(actors, role, env.id, env.deadline_ms, command, cancel, log, settle);
          }
        }
      });
      call.on('end', () => {
        abortAll();
        call.end();
      });
      call.on('cancelled', abortAll);
      call.on('error', abortAll);
    },
  });
  server.addService(HealthService.service, {
    Check(_call: unknown, callback: grpc.sendUnaryData<{ status: string }>) {
      callback(null, { status: 'SERVING' });
    },
  });
  return server;
}

export function bindServer(server: grpc.Server, target: string, tls: TlsMaterial | null = null): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(target, serverCredentials(tls), (err, port) => (err ? reject(err) : resolve(port)));
  });
}
