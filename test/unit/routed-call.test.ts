// The Cluster's RoutedCall against a scripted placement: a `moved` answer follows the slot to its
// new owner, a long-poll sent again waits only for the time it has left since it first started,
// and a caller's abort reaches the shard that holds the call.
import test from 'ava';
import type { CommandOf } from '../../src/contract/command-table.js';
import type { Command } from '../../src/contract/commands.js';
import { MailcueError } from '../../src/errors/registry.js';
import { Cluster } from '../../src/rpc/cluster.js';
import type { Placement, Route } from '../../src/rpc/placement.js';
import type { CallOptions, ShardClient } from '../../src/rpc/shard-client.js';
import type { Sink } from '../../src/util/sink.js';
import { Cancellation } from '../../src/util/cancel.js';
import { newMessageId, positionAt } from '../../src/util/ids.js';

interface Sent {
  shard: string;
  id: number;
  command: Command;
  options: CallOptions;
  sink: Sink;
}

/** Shards that record what they are sent and answer only when the test says so. */
class ScriptedShards implements Placement {
  readonly fenced = true;
  readonly sent: Sent[] = [];
  readonly cancelled: string[] = [];
  owner = 'a';
  epoch = 1;
  private nextId = 1;

  private client(shard: string): ShardClient {
    return {
      shardId: shard,
      submit: (command: Command, options: CallOptions, sink: Sink) => {
        const id = this.nextId++;
        this.sent.push({ shard, id, command, options, sink });
        return id;
      },
      cancel: (id: number) => this.cancelled.push(`${shard}#${id}`),
    } as unknown as ShardClient;
  }

  route(): Route {
    return { client: this.client(this.owner), slot: 7, epoch: this.epoch };
  }

  /** The slot moves at once: the map already shows the new owner when a `moved` answer arrives. */
  changed(): Promise<void> {
    return Promise.resolve();
  }

  clients(): ShardClient[] {
    return [];
  }

  complete(): boolean {
    return true;
  }

  close(): void {}
}

function waitCommand(timeoutMs: number): CommandOf<'message.wait'> {
  return { type: 'message.wait', accountId: 'acc_1', address: 'a@x.test', since: null, match: 'any', timeoutMs };
}

/** Runs `fn` with Date.now() reading the returned clock (serial tests only). */
function withClock<T>(fn: (clock: { now: number }) => Promise<T>): Promise<T> {
  const real = Date.now;
  const clock = { now: 1_000_000 };
  Date.now = () => clock.now;
  return fn(clock).finally(() => {
    Date.now = real;
  });
}

const turn = () => new Promise((r) => setImmediate(r));

test.serial('routed call - a long-poll moved twice follows its slot and waits only for the time it has left', async (t) => {
  await withClock(async (clock) => {
    const shards = new ScriptedShards();
    const answer = new Cluster(shards).call(waitCommand(30_000), { timeoutMs: 35_000 });
    t.is(shards.sent.length, 1);
    t.is((shards.sent[0]!.command as { timeoutMs: number }).timeoutMs, 30_000);

    clock.now += 4_000;
    shards.owner = 'b';
    shards.epoch = 2;
    shards.sent[0]!.sink.reject(new MailcueError('moved', 'slot 7 moved'));
    await turn();
    clock.now += 6_000;
    shards.owner = 'c';
    shards.epoch = 3;
    shards.sent[1]!.sink.reject(new MailcueError('moved', 'slot 7 moved'));
    await turn();

    t.deepEqual(shards.sent.map((s) => s.shard), ['a', 'b', 'c']);
    t.deepEqual(shards.sent.map((s) => s.options.epoch), [1, 2, 3]);
    // 10 s of the 30 s wait have passed since it first started, whatever the number of hops.
    t.is((shards.sent[2]!.command as { timeoutMs: number }).timeoutMs, 20_000);
    t.is(shards.sent[2]!.options.timeoutMs, 25_000);
    shards.sent[2]!.sink.resolve({ timed_out: true, message: null });
    t.deepEqual(await answer, { timed_out: true, message: null });
  });
});

test.serial('routed call - an abort cancels the call on the shard that holds it, and only that one', async (t) => {
  const shards = new ScriptedShards();
  const cancel = new Cancellation();
  const answered: string[] = [];
  new Cluster(shards).submit(waitCommand(30_000), { signal: cancel, timeoutMs: 35_000 }, {
    resolve: () => answered.push('resolved'),
    reject: (err) => answered.push(`rejected ${(err as MailcueError).code}`),
  });
  shards.owner = 'b';
  shards.epoch = 2;
  shards.sent[0]!.sink.reject(new MailcueError('moved', 'slot 7 moved'));
  await turn();
  cancel.abort();
  t.deepEqual(shards.cancelled, [`b#${shards.sent[1]!.id}`]);
  // The shard answers a cancelled wait; that answer is the caller's, once.
  shards.sent[1]!.sink.resolve({ timed_out: true, message: null });
  t.deepEqual(answered, ['resolved']);
});

test.serial('routed call - a command moved more often than allowed fails as unavailable with a retry hint', async (t) => {
  const shards = new ScriptedShards();
  const answer = new Cluster(shards).call({ type: 'inbox.get', accountId: 'acc_1', address: 'a@x.test' });
  for (let i = 0; i < 5; i++) {
    shards.sent[i]!.sink.reject(new MailcueError('moved', 'slot 7 moved'));
    await turn();
  }
  t.is(shards.sent.length, 5);
  const err = await t.throwsAsync(answer);
  t.is((err as MailcueError).code, 'unavailable');
  t.deepEqual((err as MailcueError).details, { retry_after_s: 1 });
});

test.serial('routed call - a wait without since, sent again after its primary failed, waits from its first send: mail that came meanwhile is not missed', async (t) => {
  await withClock(async (clock) => {
    const shards = new ScriptedShards();
    const firstSent = clock.now;
    const answer = new Cluster(shards).call(waitCommand(30_000), { timeoutMs: 35_000 });
    t.is((shards.sent[0]!.command as { since: string | null }).since, null, 'the first send asks the shard for "now"');
    clock.now += 3_000;
    shards.owner = 'b';
    shards.epoch = 2;
    shards.sent[0]!.sink.reject(new MailcueError('unavailable', 'shard a is gone'));
    await turn();
    const again = shards.sent[1]!.command as { since: string };
    t.is(again.since, positionAt(firstSent), 'a position below every id made since the first send');
    // A message id in form, since a timed-out answer hands it back as the cursor to wait from next.
    t.regex(again.since, /^msg_[0-9a-z]{13}[0-9a-f]{6}$/);
    t.true(newMessageId(firstSent - 1) < again.since && again.since < newMessageId(firstSent), 'between the ids made just before and at the first send');
    shards.sent[1]!.sink.resolve({ timed_out: true, message: null, cursor: again.since });
    t.like(await answer, { timed_out: true });
  });
});

test.serial('routed call - a wait whose time runs out while no primary answers still carries its cursor', async (t) => {
  await withClock(async (clock) => {
    const shards = new ScriptedShards();
    const since = 'msg_0000000abc0000000000';
    const answer = new Cluster(shards).call({ ...waitCommand(10_000), since }, { timeoutMs: 15_000 });
    clock.now += 11_000;
    shards.sent[0]!.sink.reject(new MailcueError('unavailable', 'shard a is gone'));
    t.deepEqual(await answer, { timed_out: true, message: null, cursor: since });
  });
});
