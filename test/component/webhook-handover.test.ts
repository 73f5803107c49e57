// Component: a notification the shard held back (the slot not yet its own to send for, or below
// its minimum in-sync copies) goes out once the shard may send it, however long it waited. Issue
// 34's fault run found 3 acknowledged mails never notified: a shard promoted below its minimum
// read past their outbox entries, and the map change that made the slot writable again pumped
// only from where that read had stopped. Real LMDB, a real HTTPS receiver, a clock the test moves.
import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ShardActors } from '../../src/actors/shard-actors.js';
import { loadConfig } from '../../src/config/config.js';
import type { Command } from '../../src/contract/commands.js';
import type { ParsedMessage } from '../../src/contract/model.js';
import { Cancellation } from '../../src/util/cancel.js';
import { startReceiver } from '../helpers/https-receiver.js';

const KEY = 'mc_handover_key';

function mail(subject: string): ParsedMessage {
  return { from: 'sender@example.com', to: [], subject, text: subject, html: null, headers: { subject }, attachments: [], otp: null, verification_link: null, size: subject.length };
}

/** The pump runs on the turn after a commit: two turns later it has read the outbox. */
const pumped = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

test('webhook handover - entries held back while the shard could not send go once it can, however old', async (t) => {
  const receiver = await startReceiver(KEY);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-handover-'));
  const clock = { ms: Date.parse('2026-11-28T12:00:00Z') };
  const config = loadConfig({ MAILCUE_WEBHOOK_ALLOW_PRIVATE: '1', MAILCUE_WEBHOOK_CA_FILE: receiver.caFile });
  const actors = new ShardActors(0, config, dir, 'cd'.repeat(32), () => clock.ms);
  t.teardown(async () => {
    await actors.close();
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const run = async <T>(command: Command) => (await actors.dispatch(command, { signal: new Cancellation(), deadline: 0 })) as T;
  const accountId = 'acc_handover';
  const address = 'held@mailcue.test';
  await run({ type: 'account.create', id: accountId, name: null, plan: 'growth', key: KEY, created_at: new Date(clock.ms).toISOString() });
  await run({ type: 'inbox.create', accountId, address, domain: 'mailcue.test' });
  const keySealed = await run<Uint8Array>({ type: 'account.sealed_key', accountId });
  await run({ type: 'webhook.register', accountId, inbox: address, url: receiver.url, keySealed });
  actors.webhooks.start();

  // Promoted below the minimum: the slot is this shard's, but it may not notify yet.
  let maySend = false;
  actors.webhooks.sendsFor = () => maySend;
  await run({ type: 'inbox.deliver', addresses: [address], message: mail('before the promotion'), raw: Buffer.from('one') });
  await pumped();
  clock.ms += 5_000;
  await run({ type: 'inbox.deliver', addresses: [address], message: mail('while below the minimum'), raw: Buffer.from('two') });
  await pumped();
  t.is(receiver.deliveries.length, 0, 'nothing is sent while the shard may not send');

  // A new copy caught up: the map shows the slot writable, and the shard is told so.
  maySend = true;
  actors.webhooks.sendsChanged();
  await receiver.waitFor(2);
  const subjects = receiver.deliveries.map((d) => (JSON.parse(d.body) as { message: { subject: string } }).message.subject).sort();
  t.deepEqual(subjects, ['before the promotion', 'while below the minimum']);
});
