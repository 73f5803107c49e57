// Seeds a stopped Mailcue's data dir through its own storage layer (dist/storage), so the scale
// scenarios get 100,000 messages in seconds instead of minutes of SMTP. Each seeded message is a
// copy of a real one that went through SMTP first (its record and raw source read back from the
// store), with its own id, subject and read flag; the inbox record's counters are kept right.
// Writes go in transactions of SEED_BATCH, unlogged (an embedded shard's oplog serves no follower).
import path from 'node:path';
import { staticSlotOwners } from '../../src/cluster/static-slots.js';
import { slotOf } from '../../src/cluster/slots.js';
import type { MessageRecord } from '../../src/contract/model.js';
import { openShardStore, type ShardStore } from '../../src/storage/shard-store.js';
import { newMessageId } from '../../src/util/ids.js';

const SEED_BATCH = 5000;
/** Embedded `mailcue serve` runs MAILCUE_SHARD_COUNT (default 2) shards, each owning slots by staticSlotOwners. */
const SHARDS = 2;

/** The shard data dir that holds `address` in an embedded data dir. */
export function shardDirOf(dataDir: string, address: string, shards = SHARDS): string {
  return path.join(dataDir, `shard-${staticSlotOwners(shards)[slotOf(address)]}`);
}

/** An address on the same shard as `address` (a neighbour whose reads share its thread). */
export function sameShardAddress(address: string, prefix: string, shards = SHARDS): string {
  const owners = staticSlotOwners(shards);
  const want = owners[slotOf(address)];
  for (let i = 0; i < 100_000; i++) {
    const candidate = `${prefix}${i}@mailcue.test`;
    if (candidate !== address && owners[slotOf(candidate)] === want) return candidate;
  }
  throw new Error(`no address on the shard of ${address}`);
}

export interface SeedPlan {
  /** The inbox to fill; it must exist and hold `templateId`, a message received over SMTP. */
  address: string;
  templateId: string;
  count: number;
  /** Subject of message i (the search scenarios look for a rare word). */
  subject: (i: number) => string;
  /** Whether message i is read (unread_only lists the others). */
  read: (i: number) => boolean;
  /** Index of the first message of this round (rounds add to what earlier ones seeded). */
  from?: number;
}

/** Adds `plan.count` messages to the inbox in the stopped data dir; resolves with the seconds it took. */
export async function seedInbox(dataDir: string, plan: SeedPlan): Promise<number> {
  const t0 = performance.now();
  const store: ShardStore = openShardStore(shardDirOf(dataDir, plan.address), { oplogRetentionMs: 0 });
  try {
    const template = store.messages.get(plan.address, plan.templateId);
    const raw = store.messages.raw(plan.address, plan.templateId);
    if (!template || !raw) throw new Error(`seed: template ${plan.templateId} not found in ${plan.address}`);
    const first = plan.from ?? 0;
    let unread = 0;
    for (let done = 0; done < plan.count;) {
      const n = Math.min(SEED_BATCH, plan.count - done);
      await store.transaction(() => store.oplog.unlogged(() => {
        for (let i = first + done; i < first + done + n; i++) {
          const id = newMessageId();
          const read = plan.read(i);
          if (!read) unread++;
          const m: MessageRecord = Object.assign({}, template, { id, subject: plan.subject(i), read, attachments: [] });
          store.messages.put(m);
          store.messages.putSource(id, raw, 1, plan.address);
        }
      }));
      done += n;
    }
    await store.transaction(() => {
      const inbox = store.inboxes.get(plan.address)!;
      store.inboxes.update({ ...inbox, message_count: inbox.message_count + plan.count, unread_count: inbox.unread_count + unread });
    });
    return Math.round((performance.now() - t0) / 100) / 10;
  } finally {
    await store.close();
  }
}
