// Component: the front↔shard channel between a real ShardClient and a real shard (actors, LMDB,
// gRPC server), through a TCP relay the test can cut. Bodies far over the 4 MiB stream-message
// limit travel in parts both ways; a cut connection fails no read: parked long-polls and reads on
// it are sent again on a new stream (DESIGN §7, one request one failure).
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { ParsedMessage } from '../../src/contract/model.js';
import type { DeliverResult, WaitResult } from '../../src/contract/results.js';
import { ShardActors } from '../../src/actors/shard-actors.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/obs/logger.js';
import { ShardClient } from '../../src/rpc/shard-client.js';
import { bindServer, createShardServer } from '../../src/rpc/shard-server.js';
import { Cancellation } from '../../src/util/cancel.js';
import { until } from '../helpers/wait.js';

const ACCOUNT = 'acc_channel';

/** A TCP relay to `port` whose open connections `cut()` destroys; while held, new ones wait for release(). */
async function relay(port: number): Promise<{ port: number; connections: () => number; cut(): void; hold(): void; release(): void; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  let held: net.Socket[] | null = null;
  const connect = (inbound: net.Socket) => {
    connections++;
    const outbound = net.connect(port, '127.0.0.1');
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    inbound.pipe(outbound).pipe(inbound);
  };
  const server = net.createServer((inbound) => {
    if (!held) return connect(inbound);
    inbound.on('error', () => undefined);
    held.push(inbound);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => connections,
    hold: () => {
      held ??= [];
    },
    release: () => {
      const waiting = held ?? [];
      held = null;
      for (const inbound of waiting) if (!inbound.destroyed) connect(inbound);
    },
    cut: () => {
      for (const s of sockets) s.destroy();
    },
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

function parsed(subject: string): ParsedMessage {
  return { from: 'f@x.test', to: [], subject, text: null, html: null, headers: {}, attachments: [], otp: null, verification_link: null, size: 0 };
}

async function setup(t: { teardown(fn: () => void | Promise<void>): void }) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-channel-'));
  const actors = new ShardActors(0, loadConfig({}), dir, randomBytes(32).toString('hex'));
  const server = createShardServer(actors, createLogger('silent', 'test'));
  const port = await bindServer(server, '127.0.0.1:0');
  const link = await relay(port);
  const client = new ShardClient(0, `127.0.0.1:${link.port}`);
  t.teardown(async () => {
    client.close();
    await link.close();
    server.forceShutdown();
    await actors.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { actors, client, link };
}

test('shard channel - a 9 MB source to three inboxes and its reads cross in parts under the 4 MiB message limit', async (t) => {
  const { client } = await setup(t);
  const addresses = ['a@x.test', 'b@x.test', 'c@x.test'];
  for (const address of addresses) await client.call({ type: 'inbox.create', accountId: ACCOUNT, address, domain: 'x.test' });
  const raw = randomBytes(9 * 1024 * 1024);
  const result = await client.call({ type: 'inbox.deliver', addresses, message: parsed('big'), raw });
  t.deepEqual(result.delivered, addresses);
  const reads = await Promise.all(
    Array.from({ length: 6 }, (_, i) => client.call({ type: 'message.raw', accountId: ACCOUNT, address: addresses[i % 3]!, id: result.id })),
  );
  for (const bytes of reads) t.true(Buffer.from(bytes).equals(raw));
});

test('shard channel - a cut connection fails no read: a parked long-poll is parked again and answers the next message', async (t) => {
  const { actors, client, link } = await setup(t);
  const address = 'w@x.test';
  await client.call({ type: 'inbox.create', accountId: ACCOUNT, address, domain: 'x.test' });
  const wait = client.call({ type: 'message.wait', accountId: ACCOUNT, address, since: null, match: 'any', timeoutMs: 20_000 }, { timeoutMs: 25_000 });
  await until(() => actors.ctx.waiters.size === 1, 'the long-poll parked', 10_000);

  const connectionsBefore = link.connections();
  link.cut();
  // The shard sees its stream end and frees the waiter; the client sends the long-poll again on
  // a new stream, where it parks again.
  await until(() => link.connections() > connectionsBefore && actors.ctx.waiters.size === 1, 'the long-poll parked again on a new stream', 10_000);
  t.is(client.inFlight, 1);

  const delivered = await client.call({ type: 'inbox.deliver', addresses: [address], message: parsed('after the cut'), raw: Buffer.from('x') });
  const answer = await wait;
  t.false(answer.timed_out);
  t.is(answer.message?.id, delivered.id);
});

test('shard channel - a long-poll that waited from "now" and is sent again after a cut answers the mail that came while the link was down', async (t) => {
  const { actors, client, link } = await setup(t);
  const address = 'gap@x.test';
  await client.call({ type: 'inbox.create', accountId: ACCOUNT, address, domain: 'x.test' });
  const wait = client.call({ type: 'message.wait', accountId: ACCOUNT, address, since: null, match: 'any', timeoutMs: 8_000 }, { timeoutMs: 12_000 });
  await until(() => actors.ctx.waiters.size === 1, 'the long-poll parked', 10_000);

  link.hold();
  link.cut();
  await until(() => actors.ctx.waiters.size === 0, 'the shard to free the waiter of the broken stream', 10_000);
  // Mail arrives while the front cannot reach the shard (delivered by another front, say).
  const meanwhile = (await actors.dispatch({ type: 'inbox.deliver', addresses: [address], message: parsed('while the link was down'), raw: Buffer.from('x') },
    { signal: new Cancellation(), deadline: 0 })) as DeliverResult;
  link.release();

  const answer = await wait;
  t.false(answer.timed_out, 'the wait sent again does not start from the new "now"');
  t.is(answer.message?.id, meanwhile.id);
});
