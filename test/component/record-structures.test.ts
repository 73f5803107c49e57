// Component, on real LMDB envs: records name structures shared through the `structures` database
// (src/storage/record-structures.ts). A data dir of key layout 2, whose records carry their own
// structures, opens as layout 3 and reads as written; records written now carry no key names; two
// handles on one env that each add a structure keep each other's records readable.
import test from 'ava';
import { open, type RootDatabase } from 'lmdb';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { slotOf } from '../../src/cluster/slots.js';
import type { MessageRecord } from '../../src/contract/model.js';
import { sharedStructures } from '../../src/storage/record-structures.js';
import { openShardStore } from '../../src/storage/shard-store.js';

const INBOX = 'box@mailcue.test';

function tempDir(t: { teardown(fn: () => void): void }): string {
  const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'mailcue-structures-')), 'shard');
  t.teardown(() => rmSync(path.dirname(dir), { recursive: true, force: true }));
  return dir;
}

function message(id: string, subject: string): MessageRecord {
  return { id, inbox: INBOX, subject, from: 'sender@example.com', to: [INBOX], text: `Your code is ${id}`, html: null, otp: null, attachments: [], headers: {} } as unknown as MessageRecord;
}

const hasKeyNames = (bytes: Buffer | undefined) => bytes !== undefined && bytes.includes('subject') && bytes.includes('attachments');

test('record structures - a layout-2 data dir opens as layout 3: old records read as written, new ones share their structures, both read after a reopen', async (t) => {
  const dir = tempDir(t);
  // As the release before wrote it: slot-prefixed keys, each record carrying its own structure.
  const before = open({ path: dir, maxDbs: 32 });
  const oldRecord = message('msg_0001', 'written by layout 2');
  before.transactionSync(() => {
    before.openDB({ name: 'messages' }).putSync([slotOf(INBOX), INBOX, 'msg_0001'], oldRecord);
    before.openDB<number, string>({ name: 'meta' }).putSync('key_layout', 2);
  });
  t.true(hasKeyNames(before.openDB({ name: 'messages', encoding: 'binary' }).getBinary([slotOf(INBOX), INBOX, 'msg_0001'])));
  await before.close();

  const store = openShardStore(dir);
  t.deepEqual(store.messages.get(INBOX, 'msg_0001'), oldRecord);
  const newRecord = message('msg_0002', 'written by layout 3');
  await store.transaction(() => store.messages.put(newRecord));
  t.deepEqual([...store.messages.newestFirst(INBOX)], [newRecord, oldRecord]);
  await store.close();

  const raw = open({ path: dir, maxDbs: 32 });
  t.is(raw.openDB<number, string>({ name: 'meta' }).get('key_layout'), 3);
  const bytes = raw.openDB({ name: 'messages', encoding: 'binary' }).getBinary([slotOf(INBOX), INBOX, 'msg_0002']);
  t.false(hasKeyNames(bytes), 'a record written now names its structure by id');
  t.true(bytes!.length < 0.7 * JSON.stringify(newRecord).length);
  await raw.close();

  const again = openShardStore(dir);
  t.deepEqual([...again.messages.newestFirst(INBOX)], [newRecord, oldRecord]);
  t.deepEqual(again.oplog.read(slotOf(INBOX), 0, 10).map(({ entry }) => entry.value), [newRecord], 'the oplog entry reads back too');
  await again.close();
});

test('record structures - two handles on one env, each adding a structure the other has not seen, read each other\'s records', async (t) => {
  const dir = tempDir(t);
  const handle = (root: RootDatabase) => root.openDB<Record<string, unknown>, string>({ name: 'things', ...sharedStructures(root, 'things') });
  const rootA = open({ path: dir, maxDbs: 32 });
  const rootB = open({ path: dir, maxDbs: 32 });
  const a = handle(rootA);
  const b = handle(rootB);
  await rootA.transaction(() => a.put('first', { kind: 'common', n: 1 }));
  t.deepEqual(b.get('first'), { kind: 'common', n: 1 }, 'B loads the structure A saved');

  // Each adds a shape of its own while its list is one structure short of the other's.
  await rootA.transaction(() => a.put('from-a', { only: 'a', shape: 1 }));
  await rootB.transaction(() => b.put('from-b', { other: 'b', layout: 2, extra: true }));
  await rootA.transaction(() => a.put('from-a-again', { only: 'a again', shape: 2 }));
  for (const db of [a, b]) {
    t.deepEqual(db.get('from-a'), { only: 'a', shape: 1 });
    t.deepEqual(db.get('from-b'), { other: 'b', layout: 2, extra: true });
    t.deepEqual(db.get('from-a-again'), { only: 'a again', shape: 2 });
  }
  await rootA.close();
  await rootB.close();

  const reopened = open({ path: dir, maxDbs: 32 });
  const c = handle(reopened);
  t.deepEqual(c.get('from-b'), { other: 'b', layout: 2, extra: true });
  t.deepEqual(c.get('from-a'), { only: 'a', shape: 1 });
  await reopened.close();
});
