// Component: the actors of one shard on a real LMDB env in a temp dir, driven through the same
// dispatch the rpc server calls. No network, no processes.
import test from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ShardActors } from '../../src/actors/shard-actors.js';
import { loadConfig } from '../../src/config/config.js';
import type { Command } from '../../src/contract/commands.js';
import type { MessageRecord, ParsedMessage } from '../../src/contract/model.js';
import type { WaitResult } from '../../src/contract/results.js';
import { MailcueError } from '../../src/errors/registry.js';
import { Cancellation } from '../../src/util/cancel.js';

const MASTER_KEY = 'ab'.repeat(32);
const config = loadConfig({});
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

function openShard(dir: string): { actors: ShardActors; run<T>(command: Command, signal?: Cancellation): Promise<T> } {
  const actors = new ShardActors(0, config, dir, MASTER_KEY);
  return { actors, run: async <T>(command: Command, signal = new Cancellation()) => (await actors.dispatch(command, { signal, deadline: 0 })) as T };
}

function mail(subject: string, text: string, otp: string | null = null): ParsedMessage {
  return { from: 'sender@example.com', to: [], subject, text, html: `<p>${text}</p>`, headers: { subject }, attachments: [], otp, verification_link: null, size: text.length };
}

async function withShard(t: { teardown(fn: () => unknown): void }) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-component-'));
  const shard = openShard(dir);
  let closed = false;
  const close = async () => {
    if (!closed) await shard.actors.close();
    closed = true;
  };
  t.teardown(async () => {
    await close();
    rmSync(dir, { recursive: true, force: true });
  });
  const accountId = `acc_${randomBytes(4).toString('hex')}`;
  await shard.run({ type: 'account.create', id: accountId, name: null, plan: 'growth', key: 'mc_test_key', created_at: new Date().toISOString() });
  return { ...shard, dir, accountId, close };
}

test('shard actors - a parked wait is woken by delivery with the summary, not the whole message', async (t) => {
  const { actors, run, accountId } = await withShard(t);
  const address = 'waiter@mailcue.test';
  await run({ type: 'inbox.create', accountId, address, domain: 'mailcue.test' });
  const waiting = run<WaitResult>({ type: 'message.wait', accountId, address, since: null, match: 'code', timeoutMs: 60_000 });
  // The wait parks synchronously inside dispatch: no sleep, the gauge is already 1.
  t.is(actors.ctx.waiters.size, 1);
  await run({ type: 'inbox.deliver', addresses: [address], message: mail('no code here', 'hello'), raw: Buffer.from('raw one') });
  t.is(actors.ctx.waiters.size, 1, 'a code waiter skips mail without a code');
  await run({ type: 'inbox.deliver', addresses: [address], message: mail('your code', 'code 123456', '123456'), raw: Buffer.from('raw two') });
  const result = await waiting;
  t.is(actors.ctx.waiters.size, 0);
  t.false(result.timed_out);
  t.is(result.message!.otp, '123456');
  t.false('text' in result.message!, 'the summary carries no text');
  t.false('html' in result.message!, 'the summary carries no html');
});

test('shard actors - a cancelled wait leaves nothing parked and answers timed out', async (t) => {
  const { actors, run, accountId } = await withShard(t);
  const address = 'cancel@mailcue.test';
  await run({ type: 'inbox.create', accountId, address, domain: 'mailcue.test' });
  const signal = new Cancellation();
  const waiting = run<WaitResult>({ type: 'message.wait', accountId, address, since: null, match: 'any', timeoutMs: 60_000 }, signal);
  t.is(actors.ctx.waiters.size, 1);
  signal.abort();
  t.is(actors.ctx.waiters.size, 0);
  const answer = await waiting;
  t.is(answer.timed_out, true);
  t.is(answer.message, null);
  // Every wait answer carries the caller's cursor (issue 36): on an empty inbox, the start position.
  t.regex(answer.cursor ?? '', /^msg_/);
});

test('shard actors - since answers at once with the first newer message, in arrival order', async (t) => {
  const { run, accountId } = await withShard(t);
  const address = 'since@mailcue.test';
  await run({ type: 'inbox.create', accountId, address, domain: 'mailcue.test' });
  const first = await run<{ id: string }>({ type: 'inbox.deliver', addresses: [address], message: mail('one', 'a'), raw: Buffer.from('1') });
  await run({ type: 'inbox.deliver', addresses: [address], message: mail('two', 'b'), raw: Buffer.from('2') });
  const result = await run<WaitResult>({ type: 'message.wait', accountId, address, since: first.id, match: 'any', timeoutMs: 60_000 });
  t.is(result.message?.subject, 'two');
});

test('shard actors - records, raw sources and counters survive closing and reopening the env', async (t) => {
  const shard = await withShard(t);
  const address = 'durable@mailcue.test';
  await shard.run({ type: 'inbox.create', accountId: shard.accountId, address, domain: 'mailcue.test' });
  const { id } = await shard.run<{ id: string }>({ type: 'inbox.deliver', addresses: [address], message: mail('kept', 'body'), raw: Buffer.from('the raw source') });
  await shard.close();
  const reopened = openShard(shard.dir);
  t.teardown(() => reopened.actors.close());
  const message = await reopened.run<MessageRecord>({ type: 'message.get', accountId: shard.accountId, address, id, markRead: false });
  t.is(message.subject, 'kept');
  t.is(Buffer.from(await reopened.run<Uint8Array>({ type: 'message.raw', accountId: shard.accountId, address, id })).toString(), 'the raw source');
  const inboxes = await reopened.run<{ address: string; message_count: number }[]>({ type: 'inbox.list', accountId: shard.accountId });
  t.deepEqual(inboxes.map((i) => [i.address, i.message_count]), [[address, 1]]);
});

test('shard actors - actors ask each other: webhook ownership from the inbox actor, access tokens from the oauth actor', async (t) => {
  const { run, accountId } = await withShard(t);
  const other = `acc_${randomBytes(4).toString('hex')}`;
  await run({ type: 'account.create', id: other, name: null, plan: 'growth', key: 'mc_other_key', created_at: new Date().toISOString() });
  await run({ type: 'inbox.create', accountId: other, address: 'theirs@mailcue.test', domain: 'mailcue.test' });
  const refused = await t.throwsAsync(run({ type: 'webhook.register', accountId, inbox: 'theirs@mailcue.test', url: 'https://example.com/hook', keySealed: new Uint8Array(28) }));
  t.is((refused as MailcueError).code, 'inbox_not_owned');

  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier, 'ascii').digest('base64url');
  await run({ type: 'oauth.issue_code', accountId, codeHash: sha('code'), codeChallenge: challenge, redirectUri: null, resource: null });
  await run({ type: 'oauth.redeem_code', accountId, codeHash: sha('code'), codeVerifier: verifier, redirectUri: null, accessHash: sha('access'), refreshHash: sha('refresh') });
  const admitted = await run<{ account: { id: string } }>({ type: 'account.admit', accountId, credential: 'access_token', credentialHash: sha('access'), meter: { kind: 'none' } });
  t.is(admitted.account.id, accountId);
  const wrong = await t.throwsAsync(run({ type: 'account.admit', accountId: other, credential: 'access_token', credentialHash: sha('access'), meter: { kind: 'none' } }));
  t.is((wrong as MailcueError).code, 'unauthorized');
});

test('shard actors - custom-domain slots are counted atomically on the account', async (t) => {
  const { run, accountId } = await withShard(t);
  const tries = await Promise.allSettled(
    Array.from({ length: 5 }, (_, i) => run({ type: 'account.domain_reserve', accountId, domain: `d${i}.example.com`, max: 3 })),
  );
  t.is(tries.filter((r) => r.status === 'fulfilled').length, 3);
  t.true(tries.filter((r) => r.status === 'rejected').every((r) => ((r as PromiseRejectedResult).reason as MailcueError).code === 'limit_reached'));
  t.true(await run<boolean>({ type: 'account.domain_release', accountId, domain: 'd0.example.com' }));
});
