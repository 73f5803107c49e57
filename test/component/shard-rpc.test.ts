// Component: the rpc client and server on a real loopback socket, with our own CommandDispatcher
// standing in for the actors (the seam the shard host fills).
import test from 'ava';
import { randomBytes } from 'node:crypto';
import type { Command } from '../../src/contract/commands.js';
import type { CommandDispatcher, RequestScope } from '../../src/contract/results.js';
import { MailcueError } from '../../src/errors/registry.js';
import { createLogger } from '../../src/obs/logger.js';
import { ShardClient } from '../../src/rpc/shard-client.js';
import { bindServer, createShardServer } from '../../src/rpc/shard-server.js';
import { Cancellation } from '../../src/util/cancel.js';

/** A dispatcher that answers per test, and records what the shard side saw. */
class ScriptedShard implements CommandDispatcher {
  readonly seen: Command[] = [];
  answer: (command: Command, scope: RequestScope) => unknown = () => null;
  dispatch(command: Command, scope: RequestScope): unknown {
    this.seen.push(command);
    return this.answer(command, scope);
  }
  onAccountChange(): void {
    // These tests change no account.
  }
}

async function connect(t: { teardown(fn: () => unknown): void }) {
  const shard = new ScriptedShard();
  const server = createShardServer(shard, createLogger('silent', 'test'));
  const port = await bindServer(server, '127.0.0.1:0');
  const client = new ShardClient(0, `127.0.0.1:${port}`);
  t.teardown(() => {
    client.close();
    server.forceShutdown();
  });
  return { shard, client };
}

test('shard rpc - a command travels packed and its result comes back by id, concurrent calls in any order', async (t) => {
  const { shard, client } = await connect(t);
  shard.answer = (command) =>
    command.type === 'inbox.get' ? new Promise((resolve) => setImmediate(() => resolve({ address: command.address, n: 1 }))) : { address: 'sync', n: 2 };
  const [slow, fast] = await Promise.all([
    client.call({ type: 'inbox.get', accountId: 'a', address: 'x@mailcue.test' }),
    client.call({ type: 'inbox.list', accountId: 'a' }),
  ]);
  t.deepEqual(slow, { address: 'x@mailcue.test', n: 1 });
  t.deepEqual(fast, { address: 'sync', n: 2 });
  t.deepEqual(shard.seen.map((c) => c.type).sort(), ['inbox.get', 'inbox.list']);
});

test('shard rpc - a Mailcue error keeps its code, message and details; anything else is internal', async (t) => {
  const { shard, client } = await connect(t);
  shard.answer = (command) => {
    if (command.type === 'inbox.get') throw new MailcueError('rate_limited', 'slow down', { retry_after_s: 7 });
    throw new Error('secret stack detail');
  };
  const known = await t.throwsAsync(client.call({ type: 'inbox.get', accountId: 'a', address: 'x@mailcue.test' }));
  t.true(known instanceof MailcueError);
  t.like(known, { code: 'rate_limited', message: 'slow down', details: { retry_after_s: 7 } });
  const unknown = (await t.throwsAsync(client.call({ type: 'inbox.list', accountId: 'a' }))) as MailcueError;
  t.is(unknown.code, 'internal');
  t.false(unknown.message.includes('secret'));
});

test('shard rpc - aborting the caller cancels the parked request on the shard', async (t) => {
  const { shard, client } = await connect(t);
  let parked!: () => void;
  const isParked = new Promise<void>((resolve) => (parked = resolve));
  let aborted!: () => void;
  const sawAbort = new Promise<void>((resolve) => (aborted = resolve));
  shard.answer = (_command, scope) =>
    new Promise((resolve) => {
      scope.signal.addEventListener('abort', () => {
        aborted();
        resolve({ timed_out: true, message: null });
      });
      parked();
    });
  const signal = new Cancellation();
  const call = client.call({ type: 'message.wait', accountId: 'a', address: 'x@mailcue.test', since: null, match: 'any', timeoutMs: 60_000 }, { signal, timeoutMs: 60_000 });
  await isParked; // a latch, not a sleep: the shard holds the request now
  t.is(client.waitsInFlight, 1);
  signal.abort();
  await sawAbort;
  t.deepEqual(await call, { timed_out: true, message: null });
  t.is(client.waitsInFlight, 0);
});

test('shard rpc - a request the shard never answers ends at the caller deadline as deadline_exceeded', async (t) => {
  const { shard, client } = await connect(t);
  shard.answer = () => new Promise(() => undefined); // never answers: only the client's deadline ends it
  const late = (await t.throwsAsync(client.call({ type: 'inbox.list', accountId: 'a' }, { timeoutMs: 300 }))) as MailcueError;
  t.is(late.code, 'deadline_exceeded');
});

/** A delivery whose raw source travels in parts (5 MiB: five stream messages). */
function largeDelivery() {
  return {
    type: 'inbox.deliver' as const,
    addresses: ['big@mailcue.test'],
    message: { from: 'f@x.test', to: [], subject: 'big', text: null, html: null, headers: {}, attachments: [], otp: null, verification_link: null, size: 0 },
    raw: randomBytes(5 * 1024 * 1024),
  };
}

test('shard rpc - a small call made while a large command is on its way is not queued behind it', async (t) => {
  const { shard, client } = await connect(t);
  shard.answer = (command) => (command.type === 'inbox.deliver' ? { bytes: (command as { raw: Uint8Array }).raw.length } : []);
  const large = client.call(largeDelivery());
  const small = client.call({ type: 'inbox.list', accountId: 'a' });
  t.deepEqual(await large, { bytes: 5 * 1024 * 1024 }, 'the large command arrived whole');
  await small;
  t.deepEqual(shard.seen.map((c) => c.type), ['inbox.list', 'inbox.deliver'], 'the small call ran first: it went between the parts');
});

test('shard rpc - a large command cancelled before its last part is sent ends at once and never runs', async (t) => {
  const { shard, client } = await connect(t);
  shard.answer = () => [];
  const signal = new Cancellation();
  const large = client.call(largeDelivery(), { signal });
  signal.abort();
  t.is(((await t.throwsAsync(large)) as MailcueError).code, 'unavailable');
  await client.call({ type: 'inbox.list', accountId: 'a' });
  t.deepEqual(shard.seen.map((c) => c.type), ['inbox.list'], 'the shard dropped the parts it had');
});
