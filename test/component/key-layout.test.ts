// Component: a shard data dir written in key layout 1 (test/fixtures/layout-1, made by that
// layout's own stores, before keys started with their slot) is rewritten on first open, and the
// current stores find everything in it again; every key then starts with its record's slot, the
// oplog included. A data dir of a newer layout is refused.
import test from 'ava';
import { open } from 'lmdb';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { slotOf } from '../../src/cluster/slots.js';
import { SLOT_DATABASES } from '../../src/storage/keys.js';
import { openShardStore, type ShardStore } from '../../src/storage/shard-store.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/layout-1/shard', import.meta.url));
const A = 'acc_fixture_a';
const B = 'acc_fixture_b';

function copyOfFixture(t: { teardown(fn: () => void): void }): string {
  const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'mailcue-layout-')), 'shard');
  cpSync(FIXTURE, dir, { recursive: true });
  t.teardown(() => rmSync(path.dirname(dir), { recursive: true, force: true }));
  return dir;
}

const ids = (store: ShardStore, address: string) => [...store.messages.newestFirst(address)].map((m) => m.id);
const text = (b: Buffer | undefined) => b?.toString('utf8').split('\r\n')[0];

function everythingIsThere(t: import('ava').ExecutionContext, store: ShardStore): void {
  t.is(store.accounts.get(A)?.plan, 'growth');
  t.is(store.accounts.get(B)?.credits_used, 7);
  t.true(store.accounts.holdsDomain(A, 'fixture.example'));
  t.is(store.accounts.domainCount(A), 1);

  t.true(store.domains.get('fixture.example', A)?.verified);
  t.false(store.domains.get('fixture.example', B)?.verified);
  t.is([...store.domains.claims('fixture.example')].length, 2);
  t.deepEqual(store.domains.domainsOf(A), ['fixture.example']);
  t.deepEqual(store.domains.domainsOf(B), ['fixture.example']);

  t.deepEqual(store.inboxes.addressesOf(A), ['one@mailcue.test', 'three@fixture.example', 'two@mailcue.test']);
  t.deepEqual(store.inboxes.addressesOf(B), ['other@mailcue.test']);
  t.is(store.inboxes.get('one@mailcue.test')?.message_count, 3);
  t.is(store.inboxes.count(), 4);

  t.deepEqual(ids(store, 'one@mailcue.test'), ['msg_0003', 'msg_0002', 'msg_0001']);
  t.deepEqual(ids(store, 'two@mailcue.test').filter((id) => id <= 'msg_0004'), ['msg_0004', 'msg_0002']);
  t.deepEqual([...store.messages.after('one@mailcue.test', 'msg_0001')].map((m) => m.subject), ['shared', 'digest']);
  t.is(store.messages.get('two@mailcue.test', 'msg_0004')?.subject, 'legacy');
  t.is(text(store.messages.raw('one@mailcue.test', 'msg_0001')), 'Subject: first');
  t.is(text(store.messages.raw('one@mailcue.test', 'msg_0002')), 'Subject: shared');
  t.is(text(store.messages.raw('two@mailcue.test', 'msg_0002')), 'Subject: shared', 'the shared source has a copy in each recipient slot');
  t.is(text(store.messages.raw('two@mailcue.test', 'msg_0004')), 'Subject: legacy');
  t.is(store.messages.byDigest('one@mailcue.test', 'd'.repeat(64)), 'msg_0003');

  t.is(store.webhooks.get('wh_fixture')?.url, 'https://hooks.example/in');
  t.deepEqual(store.webhooks.idsForInbox('one@mailcue.test'), ['wh_fixture']);
  t.deepEqual(store.webhooks.idsForAccount(A), ['wh_fixture'], 'the index entry of a webhook that was gone is dropped');
  t.deepEqual([...store.webhooks.watchedInboxes()], ['one@mailcue.test']);
  t.is(Buffer.from(store.webhooks.sealedKey(A)!).toString(), `sealed:${A}`);
  t.deepEqual(store.webhooks.deliveries('wh_fixture', 10).map((d) => d.status), [200, 500]);
  t.deepEqual([...store.outbox.dueKeys()].map((k) => [k.dueMs, k.eventId, store.outbox.get(k)?.attempt]), [[1_795_400_010_000, 'evt_2', 1]]);

  t.is(store.tokens.get('tokhash_access')?.account_id, A);
  t.is(store.tokens.get('tokhash_refresh')?.kind, 'refresh_token');
  t.is(store.tokens.count(), 2);
}

test('key layout - a data dir of layout 1 is rewritten on first open, and everything in it is found again', async (t) => {
  const dir = copyOfFixture(t);
  const store = openShardStore(dir);
  everythingIsThere(t, store);

  // Every slot-bound key starts with a slot, and records sit in their routing key's slot.
  for (const name of SLOT_DATABASES) {
    for (const key of store.oplog.database(name).getKeys({})) {
      t.true(Array.isArray(key) && Number.isInteger(key[0]), `${name} ${JSON.stringify(key)}`);
    }
  }
  for (const key of store.oplog.database('messages').getKeys({})) {
    const [slot, address] = key as [number, string];
    t.is(slot, slotOf(address));
  }
  t.is(store.oplog.database('webhooks').get([slotOf('one@mailcue.test'), 'wh_fixture']) !== undefined, true, 'a webhook lives in its inbox slot');
  t.not(store.oplog.database('oauth_tokens').get([slotOf(A), 'tokhash_access']), undefined, "a token lives in its account's slot");

  // The oplog's entries keep their sequence numbers, and the keys they carry gained their slot.
  const slot = slotOf('one@mailcue.test');
  const logged = store.oplog.read(slot, 0, 1 << 24);
  t.true(logged.length > 0);
  for (const { entry } of logged) t.is((entry.key as unknown[])[0], slot, `${entry.db} ${JSON.stringify(entry.key)}`);
  t.is(store.oplog.seq(slot), logged.at(-1)!.seq);
  const counts = logged.filter(({ entry }) => entry.db === 'raw_refs' && !entry.del);
  t.true(counts.length > 0);
  for (const { entry } of counts) t.is(typeof entry.value, 'number', 'a logged source count is the count of its slot');

  // The stores write on: the rewritten data behaves as data written today.
  await store.transaction(() => store.messages.remove('one@mailcue.test', 'msg_0002'));
  t.is(store.messages.raw('one@mailcue.test', 'msg_0002'), undefined);
  t.is(text(store.messages.raw('two@mailcue.test', 'msg_0002')), 'Subject: shared');
  await store.close();

  // Opened again, nothing is rewritten twice and nothing is lost.
  const again = openShardStore(dir);
  t.deepEqual(ids(again, 'one@mailcue.test'), ['msg_0003', 'msg_0001']);
  t.is(again.tokens.get('tokhash_access')?.account_id, A);
  await again.close();
});

test('key layout - a rewrite that stopped halfway resumes: what was rewritten stays, the rest follows', async (t) => {
  const dir = copyOfFixture(t);
  await openShardStore(dir).close();
  // As if the process had died mid-rewrite: no layout stamp yet, one message still in layout 1.
  const root = open({ path: dir, maxDbs: 32 });
  root.transactionSync(() => {
    root.openDB<number, string>({ name: 'meta' }).removeSync('key_layout');
    root.openDB({ name: 'messages' }).putSync(['two@mailcue.test', 'msg_0005'], { id: 'msg_0005', inbox: 'two@mailcue.test', subject: 'late', to: [], attachments: [], headers: {} });
    root.openDB({ name: 'raw_shared', encoding: 'binary' }).putSync('msg_0005', Buffer.from('Subject: late\r\n\r\n'));
  });
  await root.close();

  const store = openShardStore(dir);
  everythingIsThere(t, store);
  t.deepEqual(ids(store, 'two@mailcue.test'), ['msg_0005', 'msg_0004', 'msg_0002']);
  t.is(text(store.messages.raw('two@mailcue.test', 'msg_0005')), 'Subject: late');
  t.is(store.messages.sourceCount(), 6, 'msg_0001, msg_0002 twice, msg_0003, msg_0005 and the legacy msg_0004');
  await store.close();
});

test('key layout - a data dir written by a newer layout is refused with one clear line', async (t) => {
  const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'mailcue-layout-')), 'shard');
  t.teardown(() => rmSync(path.dirname(dir), { recursive: true, force: true }));
  const root = open({ path: dir, maxDbs: 32 });
  root.openDB<number, string>({ name: 'meta' }).putSync('key_layout', 4);
  await root.close();
  const err = t.throws(() => openShardStore(dir));
  t.regex(err!.message, /key layout 4, written by a newer Mailcue; this release reads layout 3/);
  t.notRegex(err!.message, /\n/);
});
