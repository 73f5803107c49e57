// The shard's gRPC server: unpacks envelopes from the Mailbox streams (and unary Call), dispatches
// them to the actors, and writes replies. A cancel envelope, or the stream going away, aborts the
// request, which frees any waiter it parked.
import type { Command } from '../contract/commands.js';
import type { CommandDispatcher } from '../contract/results.js';
import { asMailcueError, MailcueError } from '../errors/registry.js';
import type { Logger } from '../obs/logger.js';
import { Cancellation } from '../util/cancel.js';
import { CHANNEL_OPTIONS, Coalescer, codec, grpc, HealthService, ShardService, type Envelope, type EnvelopeBatch, type Reply, type ReplyBatch } from './proto.js';

const EMPTY = new Uint8Array(0);

function errorReply(id: number, err: unknown, log: Logger): Reply {
  if (!(err instanceof MailcueError)) log.error({ err }, 'actor failure');
  const e = asMailcueError(err);
  return { id, result: EMPTY, error: { code: e.code, message: e.message, details: e.details ? codec.pack(e.details) : EMPTY } };
}

function run(actors: CommandDispatcher, env: Envelope, cancel: Cancellation, log: Logger, answer: (r: Reply) => void): void {
  // Closures below keep only the id: a parked request must not hold its envelope or command.
  const id = env.id;
  if (env.deadline_ms && env.deadline_ms < Date.now()) {
    answer(errorReply(id, new MailcueError('deadline_exceeded', 'Deadline exceeded before the shard started'), log));
    return;
  }
  let result: unknown;
  try {
    result = actors.dispatch(codec.unpack(env.command) as Command, { signal: cancel, deadline: env.deadline_ms });
  } catch (err) {
    answer(errorReply(id, err, log));
    return;
  }
  if (result instanceof Promise) {
    result.then(
      (value) => answer({ id, result: codec.pack(value), error: null }),
      (err) => answer(errorReply(id, err, log)),
    );
  } else {
    answer({ id, result: codec.pack(result), error: null });
  }
}

export function createShardServer(actors: CommandDispatcher, log: Logger): grpc.Server {
  const server = new grpc.Server(CHANNEL_OPTIONS);
  server.addService(ShardService.service, {
    Mailbox(call: grpc.ServerDuplexStream<EnvelopeBatch, ReplyBatch>) {
      const inFlight = new Map<number, Cancellation>();
      let open = true;
      const out = new Coalescer<Reply>((replies) => {
        if (open) call.write({ replies });
      });
      const settle = (reply: Reply) => {
        inFlight.delete(reply.id);
        out.push(reply);
      };
      const abortAll = () => {
        open = false;
        for (const a of inFlight.values()) a.abort();
        inFlight.clear();
      };
      call.on('data', (batch: EnvelopeBatch) => {
        for (const env of batch.envelopes) {
          if (env.cancel) {
            inFlight.get(env.id)?.abort();
            continue;
          }
          const cancel = new Cancellation();
          inFlight.set(env.id, cancel);
          run(actors, env, cancel, log, settle);
        }
      });
      call.on('end', () => {
        abortAll();
        call.end();
      });
      call.on('cancelled', abortAll);
      call.on('error', abortAll);
    },
    Call(call: grpc.ServerUnaryCall<Envelope, Reply>, callback: grpc.sendUnaryData<Reply>) {
      const cancel = new Cancellation();
      call.on('cancelled', () => cancel.abort());
      run(actors, call.request, cancel, log, (reply) => callback(null, reply));
    },
  });
  server.addService(HealthService.service, {
    Check(_call: unknown, callback: grpc.sendUnaryData<{ status: string }>) {
      callback(null, { status: 'SERVING' });
    },
  });
  return server;
}

export function bindServer(server: grpc.Server, target: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(target, grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port)));
  });
}
