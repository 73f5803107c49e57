// Component: the webhook actor's pump on a real LMDB env, a real HTTPS receiver and a clock the
// test moves.
// - A notification the shard held back (the slot not yet its own to send for, or below its minimum
//   in-sync copies) goes out once the shard may send it, however long it waited. Issue 34's fault
//   run found 3 acknowledged mails never notified: a shard promoted below its minimum read past
//   their outbox entries, and the map change that made the slot writable again pumped only from
//   where that read had stopped.
// - An entry passed over while its account had its share of senders in flight goes once, not
//   twice: the bench's webhook-delivery scenario saw 493 duplicates in 2,000 after the fair shares.
import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ACCOUNT_IN_FLIGHT } from '../../src/actors/sender-shares.js';
import { ShardActors } from '../../src/actors/shard-actors.js';
import { loadConfig } from '../../src/config/config.js';
import type { Command } from '../../src/contract/commands.js';
import type { ParsedMessage } from '../../src/contract/model.js';
import { Cancellation } from '../../src/util/cancel.js';
import { startReceiver } from '../helpers/https-receiver.js';
import { until } from '../helpers/wait.js';

const KEY = 'mc_handover_key';

function mail(subject: string): ParsedMessage {
  return { from: 'sender@example.com', to: [], subject, text: subject, html: null, headers: { subject }, attachments: [], otp: null, verification_link: null, size: subject.length };
}

/** The pump runs on the turn after a commit: two turns later it has read the outbox. */
const pumped = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

/** One shard with one account, `count` inboxes and a webhook on each to a real receiver. */
async function hooked(t: { teardown(fn: () => unknown): void }, count = 1) {
  const receiver = await startReceiver(KEY);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-webhook-pump-'));
  const clock = { ms: Date.parse('2026-11-28T12:00:00Z') };
  const config = loadConfig({ MAILCUE_WEBHOOK_ALLOW_PRIVATE: '1', MAILCUE_WEBHOOK_CA_FILE: receiver.caFile });
  const actors = new ShardActors(0, config, dir, 'cd'.repeat(32), () => clock.ms);
  t.teardown(async () => {
    await actors.close();
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const run = async <T>(command: Command) => (await actors.dispatch(command, { signal: new Cancellation(), deadline: 0 })) as T;
  const accountId = 'acc_webhooks';
  await run({ type: 'account.create', id: accountId, name: null, plan: 'growth', key: KEY, created_at: new Date(clock.ms).toISOString() });
  const keySealed = await run<Uint8Array>({ type: 'account.sealed_key', accountId });
  const addresses = Array.from({ length: count }, (_, i) => `hooked${i}@mailcue.test`);
  for (const address of addresses) {
    await run({ type: 'inbox.create', accountId, address, domain: 'mailcue.test' });
    await run({ type: 'webhook.register', accountId, inbox: address, url: receiver.url, keySealed });
  }
  /** One mail to every inbox: one transaction, an outbox entry per inbox. */
  const deliver = (subject: string) => run({ type: 'inbox.deliver', addresses, message: mail(subject), raw: Buffer.from(subject) });
  const notified = () => receiver.deliveries.map((d) => {
    const event = JSON.parse(d.body) as { inbox: string; message: { subject: string } };
    return `${event.inbox} ${event.message.subject}`;
  }).sort();
  return { actors, receiver, clock, deliver, notified, addresses };
}

test('webhook pump - held back: entries held back while the shard could not send go once it can, however old', async (t) => {
  const { actors, receiver, clock, deliver, notified } = await hooked(t);
  actors.webhooks.start();

  // Promoted below the minimum: the slot is this shard's, but it may not notify yet.
  let maySend = false;
  actors.webhooks.sendsFor = () => maySend;
  await deliver('before the promotion');
  await pumped();
  clock.ms += 5_000;
  await deliver('while below the minimum');
  await pumped();
  t.is(receiver.deliveries.length, 0, 'nothing is sent while the shard may not send');

  // A new copy caught up: the map shows the slot writable, and the shard is told so.
  maySend = true;
  actors.webhooks.sendsChanged();
  await receiver.waitFor(2);
  t.deepEqual(notified(), ['hooked0@mailcue.test before the promotion', 'hooked0@mailcue.test while below the minimum']);
});

test('webhook pump - entries passed over at the account\'s share of senders go once each', async (t) => {
  // More entries than an account may have in flight, written in one transaction and due at the
  // same moment (the clock stands still): the first ACCOUNT_IN_FLIGHT go, the rest are passed over
  // and go as those finish.
  const count = ACCOUNT_IN_FLIGHT + 8;
  const { actors, receiver, deliver, notified, addresses } = await hooked(t, count);
  await deliver('to all');
  actors.webhooks.start();
  await receiver.waitFor(count);
  await until(() => actors.ctx.store.outbox.dueKeys().next().done === true, 'the outbox emptied');
  t.deepEqual(notified(), addresses.map((a) => `${a} to all`).sort(), 'each notification once');
  t.is(new Set(receiver.deliveries.map((d) => d.headers['webhook-id'])).size, count);
});
