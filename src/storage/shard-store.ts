// The only importer of lmdb. One env per shard and one typed store per record kind; each store
// opens its databases and builds its keys itself (layouts in keys.ts). The shard is the single
// writer: every read-modify-write runs inside `transaction()`, which lmdb-js batches per event turn
// and resolves after the commit. An env of an older key layout is rewritten first (key-layout.ts).
import { open } from 'lmdb';
import { mkdirSync } from 'node:fs';
import { createLogger } from '../obs/logger.js';
import { AccountStore } from './account-store.js';
import { DomainStore } from './domain-store.js';
import { InboxStore } from './inbox-store.js';
import { migrateKeyLayout } from './key-layout.js';
import { registerHooks } from './keys.js';
import { MessageIndex } from './message-index.js';
import { MessageStore } from './message-store.js';
import { Oplog } from './oplog.js';
import { OutboxStore } from './outbox-store.js';
import { SlotIndex } from './slot-index.js';
import { TokenStore } from './token-store.js';
import { WebhookStore } from './webhook-store.js';

export interface ShardStore {
  readonly accounts: AccountStore;
  readonly tokens: TokenStore;
  readonly inboxes: InboxStore;
  readonly messages: MessageStore;
  readonly domains: DomainStore;
  readonly webhooks: WebhookStore;
  readonly outbox: OutboxStore;
  /** Every write of a slot-bound record is logged here too, in the same transaction (DESIGN.md §8). */
  readonly oplog: Oplog;
  transaction<T>(work: () => T): Promise<T>;
  /** Resolves once every write issued so far is committed. */
  committed(): Promise<unknown>;
  close(): Promise<void>;
}

export interface ShardStoreOptions {
  /** How long oplog entries are kept (default OPLOG_RETENTION_MS); 0 where no follower reads the log (embedded mode). */
  oplogRetentionMs?: number;
}

export function openShardStore(dir: string, options: ShardStoreOptions = {}): ShardStore {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const root = open({ path: dir, maxDbs: 48, mapSize: 2 ** 34, compression: false });
  const migrated = migrateKeyLayout(root, dir);
  if (migrated) createLogger('info', 'storage').info({ dir, ...migrated }, 'data rewritten with slot-prefixed keys');
  // Before any store opens its databases: openDb() hooks each slot-bound one to the oplog, and the
  // databases looked up without their slot to the slot index.
  const oplog = new Oplog(root, Date.now, options.oplogRetentionMs);
  const derived = new MessageIndex(root);
  registerHooks(root, oplog, new SlotIndex(root), derived);
  const store = {
    accounts: new AccountStore(root),
    tokens: new TokenStore(root),
    inboxes: new InboxStore(root),
    messages: new MessageStore(root),
    domains: new DomainStore(root),
    webhooks: new WebhookStore(root),
    outbox: new OutboxStore(root),
    oplog,
    transaction: (work) => root.transaction(work),
    committed: () => root.committed,
    // A trim in progress stops first: the env must not close under it.
    close: () => oplog.close().then(() => root.close()),
  } satisfies ShardStore;
  const indexed = derived.buildOnce(root, (name) => oplog.database(name));
  if (indexed > 0) createLogger('info', 'storage').info({ dir, records: indexed }, 'message and inbox indexes built');
  return store;
}
