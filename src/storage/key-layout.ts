// Layouts of a shard's LMDB env. Layout 1 (releases before slot-prefixed keys) built keys without
// their slot; layout 2 (keys.ts) starts every slot-bound key with it; layout 3 keeps the same keys
// and lets records name structures shared through the `structures` database
// (record-structures.ts), which a release of layout 2 could not decode. An env still in layout 1 is
// rewritten in place when it is first opened, in bounded transactions, before any store uses it,
// and `meta` then records the current layout. A rewrite that stops halfway (a crash) resumes: each
// transaction moves whole records, and a key already in layout 2 is left alone. Layout 2 needs no
// rewrite: its records carry their own structures and still read as they are.
import type { Database, RootDatabase } from 'lmdb';
import { slotOf } from '../cluster/slots.js';
import { BINARY_DATABASES, batches, isSlotBound, type Key } from './keys.js';
import { approxBytes, type OplogEntry } from './oplog.js';
import { SlotIndex } from './slot-index.js';

export const KEY_LAYOUT = 3;
/** The first layout with slot-prefixed keys. */
const SLOT_KEYS_LAYOUT = 2;
const LAYOUT_KEY = 'key_layout';
/** Bounds of one rewrite transaction. */
const BATCH_RECORDS = 1000;
const BATCH_BYTES = 32 * 1024 * 1024;

type Parts = (string | number)[];
type WebhookInbox = (id: unknown) => string | undefined;
/** Where layout 1 found a record's routing key (from its key, its value or its webhook's inbox). */
type Locator = (key: Parts, value: unknown, webhookInbox: WebhookInbox) => string | undefined;

const first: Locator = (key) => String(key[0]);
const second: Locator = (key) => (key.length > 1 ? String(key[1]) : undefined);
const field = (name: string): Locator => (_key, value) => (value as Record<string, string> | undefined)?.[name];

/**
 * Layout 1's locators, in rewrite order: whatever finds its slot through its webhook comes before
 * the webhooks (still in layout 1 then); raw_shared and raw_refs follow their messages.
 */
const LAYOUT_1: [string, Locator][] = [
  ['accounts', first],
  ['account_domains', first],
  ['oauth_tokens', field('account_id')],
  ['inboxes', first],
  ['inboxes_by_account', second],
  ['messages', first],
  ['message_digests', first],
  ['raw', first],
  ['domains', first],
  ['domains_by_account', second],
  ['webhooks_by_inbox', first],
  ['webhooks_by_account', (key, _v, inbox) => inbox(key[1])],
  ['webhook_deliveries', (key, _v, inbox) => inbox(key[0])],
  ['outbox', (_key, value, inbox) => inbox((value as { webhook_id?: string } | undefined)?.webhook_id)],
  ['webhooks', field('inbox')],
];

export interface KeyLayoutReport {
  from: number;
  /** Records rewritten with their slot. */
  records: number;
  /** Records whose slot could not be found (an index entry of a webhook that is gone). */
  dropped: number;
  /** Oplog entries whose key was rewritten. */
  oplog: number;
  ms: number;
}

function isLayout2(db: string, key: Key): boolean {
  return Array.isArray(key) && typeof key[0] === 'number' && (db !== 'outbox' || key.length === 3);
}

function partsOf(key: Key): Parts {
  return Array.isArray(key) ? key : [key];
}

/** Splits records into runs of at most BATCH_BYTES. */
function* byBytes<T extends { value: unknown }>(records: T[]): Generator<T[]> {
  let run: T[] = [];
  let bytes = 0;
  for (const r of records) {
    run.push(r);
    bytes += approxBytes(r.value) + 64;
    if (bytes >= BATCH_BYTES) {
      yield run;
      run = [];
      bytes = 0;
    }
  }
  if (run.length > 0) yield run;
}

/** Rewrites an env of layout 1 to the current layout; null when there was nothing to rewrite (or it is new). */
export function migrateKeyLayout(root: RootDatabase, dir: string): KeyLayoutReport | null {
  const meta = root.openDB<number, string>({ name: 'meta' });
  const have = meta.get(LAYOUT_KEY);
  if (have === KEY_LAYOUT) return null;
  if (have !== undefined && have > KEY_LAYOUT) {
    throw new Error(`the data dir ${dir} has key layout ${have}, written by a newer Mailcue; this release reads layout ${KEY_LAYOUT}`);
  }
  if (have !== undefined && have >= SLOT_KEYS_LAYOUT) {
    meta.putSync(LAYOUT_KEY, KEY_LAYOUT);
    return null;
  }
  const started = performance.now();
  const open = (name: string) => root.openDB<unknown, Key>(BINARY_DATABASES.has(name) ? { name, encoding: 'binary' } : { name });
  const webhooks = open('webhooks');
  const webhookInbox: WebhookInbox = (id) => (id === undefined ? undefined : (webhooks.get(String(id)) as { inbox?: string } | undefined)?.inbox);
  const sources = open('raw_shared') as Database<Buffer, Key>;
  const sourceRefs = open('raw_refs') as Database<number, Key>;
  /** A message moved into `slot`: its shared source (layout 1: by id alone) gets a copy there. */
  const shareSource = (slot: number, id: string) => {
    const source = sources.getBinary(id);
    if (source === undefined) return;
    const refs = sourceRefs.get([slot, id]) ?? 0;
    if (refs === 0) void sources.put([slot, id], Buffer.from(source));
    void sourceRefs.put([slot, id], refs + 1);
  };
  let records = 0;
  let dropped = 0;
  for (const [name, locate] of LAYOUT_1) {
    const db = open(name);
    for (const batch of batches(db, {}, BATCH_RECORDS)) {
      const old = batch.filter((r) => !isLayout2(name, r.key));
      for (const run of byBytes(old)) {
        root.transactionSync(() => {
          for (const { key, value } of run) {
            const parts = partsOf(key);
            const routing = locate(parts, value, webhookInbox);
            void db.remove(key);
            if (routing === undefined) {
              dropped++;
              continue;
            }
            const slot = slotOf(routing);
            void db.put([slot, ...parts], value);
            if (name === 'messages') shareSource(slot, String(parts[1]));
            records++;
          }
        });
      }
    }
  }
  // Every message has its copy of its source now: the layout-1 ones go.
  for (const db of [sources, sourceRefs] as Database<unknown, Key>[]) {
    for (const batch of batches(db, {}, BATCH_RECORDS)) {
      const old = batch.filter((r) => !isLayout2('raw_shared', r.key));
      if (old.length > 0) root.transactionSync(() => { for (const { key } of old) void db.remove(key); });
    }
  }
  // Oplog entries keep their [slot, seq]; the record key they carry gains the slot. A source's count
  // was {copies, inbox} with the source in its first inbox's slot; in a cluster (where the log is
  // replayed) one delivery's recipients share a slot, so its copies are that slot's count.
  const oplog = root.openDB<OplogEntry, Key>({ name: 'oplog' });
  let entries = 0;
  for (const batch of batches(oplog, {}, BATCH_RECORDS)) {
    const old = batch.filter((r) => isSlotBound(r.value.db) && !isLayout2(r.value.db, r.value.key));
    for (const run of byBytes(old)) {
      root.transactionSync(() => {
        for (const { key, value } of run) {
          const rekeyed: OplogEntry = { ...value, key: [(key as Parts)[0]!, ...partsOf(value.key)] };
          const refs = value.db === 'raw_refs' ? (value.value as { copies?: number } | undefined)?.copies : undefined;
          void oplog.put(key, refs === undefined ? rekeyed : { ...rekeyed, value: refs });
        }
      });
      entries += run.length;
    }
  }
  new SlotIndex(root).rebuild(root);
  meta.putSync(LAYOUT_KEY, KEY_LAYOUT);
  if (records + dropped + entries === 0) return null;
  return { from: have ?? 1, records, dropped, oplog: entries, ms: Math.round(performance.now() - started) };
}
