// Embedded data dirs route keys by slot over MAILCUE_SHARD_COUNT worker shards. A data dir made
// before slots (keys placed by the old hash ring), or started with another shard count, has records
// on the wrong shard: on first start they are moved, slot by slot, to the shard that owns their
// slot, before any shard serves. `slots.json` in the data dir records the layout it now has.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SLOT_COUNT } from '../cluster/slots.js';
import { openShardStore, type ShardStore } from './shard-store.js';
import { applySlotEntries, dropSlot, readSlotPage, type SlotCursor } from './slot-data.js';

const LAYOUT_FILE = 'slots.json';
/** Records copied per transaction (a slot's snapshot page). */
const PAGE_BYTES = 4 * 1024 * 1024;

interface Layout {
  slots: number;
  shards: number;
}

export interface RelocationReport {
  moved: number;
  from: string;
}

/** Moves records to their slot's shard when the data dir's layout is not `shards` slot-routed shards; null when nothing had to move. */
export async function relocateToSlots(dataDir: string, shards: number, owners: readonly number[], shardDir: (id: number) => string): Promise<RelocationReport | null> {
  const file = path.join(dataDir, LAYOUT_FILE);
  const want: Layout = { slots: owners.length, shards };
  const have = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Layout) : null;
  if (have && have.slots === want.slots && have.shards === want.shards) return null;
  const present = existsSync(dataDir) ? readdirSync(dataDir).map((n) => /^shard-(\d+)$/.exec(n)).filter((m) => m !== null).map((m) => Number(m![1])) : [];
  let moved = 0;
  if (present.length > 0) {
    const ids = [...new Set([...present, ...Array.from({ length: shards }, (_, i) => i)])];
    // Opening a store rewrites an older key layout first, so records are found by slot below.
    const stores = new Map<number, ShardStore>(ids.map((id) => [id, openShardStore(shardDir(id))]));
    try {
      for (let slot = 0; slot < SLOT_COUNT; slot++) {
        const to = stores.get(owners[slot]!)!;
        for (const [id, from] of stores) if (id !== owners[slot]) moved += await moveSlot(from, to, slot);
      }
    } finally {
      for (const store of stores.values()) await store.close();
    }
  }
  writeFileSync(file, JSON.stringify(want) + '\n', { mode: 0o600 });
  return { moved, from: have ? `${have.shards} slot-routed shards` : 'the hash-ring layout' };
}

/** Copies one slot's records (and the sealed keys its webhooks sign with) from one shard to another, then drops them there. */
async function moveSlot(from: ShardStore, to: ShardStore, slot: number): Promise<number> {
  let cursor: SlotCursor | null = null;
  let records = 0;
  do {
    const page = readSlotPage(from, slot, cursor, PAGE_BYTES);
    const own = page.records.filter((r) => r.db !== 'webhook_keys');
    if (cursor === null && own.length === 0) return 0;
    await applySlotEntries(to, page.records);
    records += own.length;
    cursor = page.next;
  } while (cursor !== null);
  await dropSlot(from, slot);
  return records;
}
