// Embedded data dirs route keys by slot over MAILCUE_SHARD_COUNT worker shards. A data dir made
// before slots (keys placed by the old hash ring), or started with another shard count, has records
// on the wrong shard: on first start they are moved, record by record, to the shard that owns their
// slot, before any shard serves. `slots.json` in the data dir records the layout it now has.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { slotOf } from '../cluster/slots.js';
import { SLOT_LOCATORS } from './oplog.js';
import { openShardStore, type ShardStore } from './shard-store.js';
import type { Key } from './keys.js';

const LAYOUT_FILE = 'slots.json';
const BATCH = 1000;

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
    const stores = new Map<number, ShardStore>(ids.map((id) => [id, openShardStore(shardDir(id))]));
    try {
      for (const [id, store] of stores) moved += await relocateFrom(id, store, stores, owners);
    } finally {
      for (const store of stores.values()) await store.close();
    }
  }
  writeFileSync(file, JSON.stringify(want) + '\n', { mode: 0o600 });
  return { moved, from: have ? `${have.shards} slot-routed shards` : 'the hash-ring layout' };
}

async function relocateFrom(id: number, source: ShardStore, stores: Map<number, ShardStore>, owners: readonly number[]): Promise<number> {
  const lookup = (db: string, key: Key) => source.oplog.database(db).get(key);
  const out: { to: number; db: string; key: Key; value: unknown }[] = [];
  for (const [name, locate] of Object.entries(SLOT_LOCATORS)) {
    for (const { key, value } of source.oplog.database(name).getRange({})) {
      const routing = locate(key, value, lookup);
      if (routing === null || routing === undefined) continue;
      const to = owners[slotOf(routing)]!;
      if (to !== id) out.push({ to, db: name, key, value });
    }
  }
  // Sealed webhook keys are a shard-wide cache: every shard gets every account's.
  for (const { key, value } of source.oplog.database('webhook_keys').getRange({})) {
    for (const [other, store] of stores) if (other !== id) await store.oplog.database('webhook_keys').put(key, value);
  }
  for (let i = 0; i < out.length; i += BATCH) {
    const batch = out.slice(i, i + BATCH);
    for (const [to, store] of stores) {
      const mine = batch.filter((r) => r.to === to);
      if (mine.length > 0) await store.transaction(() => { for (const r of mine) void store.oplog.database(r.db).put(r.key, r.value); });
    }
    // Indexes before the webhooks they point at, so the oplog still finds their inbox.
    const removals = [...batch].sort((a, b) => (a.db === 'webhooks' ? 1 : 0) - (b.db === 'webhooks' ? 1 : 0));
    await source.transaction(() => { for (const r of removals) void source.oplog.database(r.db).remove(r.key); });
  }
  return out.length;
}
