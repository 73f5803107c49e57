// Component: a shard's answer to a delivery waits for the replication barrier (DESIGN.md §8: a
// write is acknowledged only once every in-sync copy committed it), also when the delivery is a
// sender's retry that finds its message already stored and so writes nothing itself. The first
// attempt's entry may still be on its way to a follower (its answer was refused or lost): a 250 for
// the retry before that follower holds it would be lost with the primary.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ShardActors } from '../../src/actors/shard-actors.js';
import { loadConfig } from '../../src/config/config.js';
import type { ParsedMessage } from '../../src/contract/model.js';
import type { DeliverResult, Durability } from '../../src/contract/results.js';
import { createLogger } from '../../src/obs/logger.js';
import { ShardClient } from '../../src/rpc/shard-client.js';
import { bindServer, createShardServer } from '../../src/rpc/shard-server.js';
import { until } from '../helpers/wait.js';

const ACCOUNT = 'acc_barrier';

function parsed(subject: string): ParsedMessage {
  return { from: 'f@x.test', to: [], subject, text: null, html: null, headers: {}, attachments: [], otp: null, verification_link: null, size: 0 };
}

/** Stands in for the replicator: counts oplog entries; while `held`, the barrier waits until release(). */
class HeldBarrier implements Durability {
  writes = 0;
  calls = 0;
  held = false;
  private releases: (() => void)[] = [];
  barrier(): Promise<void> | null {
    this.calls++;
    if (!this.held) return null;
    return new Promise((r) => this.releases.push(r));
  }
  release(): void {
    this.held = false;
    for (const r of this.releases.splice(0)) r();
  }
}

test('ack barrier - a retried delivery that finds its message stored is answered only after the barrier', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-barrier-'));
  const actors = new ShardActors(0, loadConfig({}), dir, randomBytes(32).toString('hex'));
  const durability = new HeldBarrier();
  actors.ctx.store.oplog.onAppend = () => durability.writes++;
  actors.durability = durability;
  const server = createShardServer(actors, createLogger('silent', 'test'));
  const port = await bindServer(server, '127.0.0.1:0');
  const client = new ShardClient(0, `127.0.0.1:${port}`);
  t.teardown(async () => {
    client.close();
    server.forceShutdown();
    await actors.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const address = 'r@x.test';
  await client.call({ type: 'inbox.create', accountId: ACCOUNT, address, domain: 'x.test' });
  const deliver = { type: 'inbox.deliver' as const, addresses: [address], message: parsed('retried'), raw: Buffer.from('Subject: retried\r\n\r\nx'), digest: 'd'.repeat(64) };
  const first = await client.call(deliver);
  t.deepEqual(first.delivered, [address]);

  // The first attempt's entry has not reached a follower yet; the sender retries the same message.
  durability.held = true;
  const calls = durability.calls;
  let answered = false;
  const retry = client.call(deliver).then((r) => {
    answered = true;
    return r;
  });
  await until(() => durability.calls > calls || answered, 'the retry to wait on the barrier or be answered', 10_000);
  t.false(answered, 'answered before the barrier');
  t.is(durability.calls, calls + 1, 'the retry waits on the barrier');
  durability.release();
  const second = await retry;
  t.deepEqual(second.duplicates, [address], 'stored once');
});
