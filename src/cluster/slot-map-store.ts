// The slot map in etcd: one key, changed only by transactions that compare its mod revision, so two
// writers (an old and a new controller) can never both win.
import type { Namespace } from './etcd.js';
import { decodeSlotMap, emptySlotMap, encodeSlotMap, type SlotMap } from './slot-map.js';

const MAP_KEY = 'slots';

export interface VersionedMap {
  readonly map: SlotMap;
  /** The key's mod revision; "0" while no map was ever written. */
  readonly revision: string;
}

export class SlotMapStore {
  constructor(private readonly ns: Namespace) {}

  async read(): Promise<VersionedMap> {
    const res = await this.ns.get(MAP_KEY).exec();
    const kv = res.kvs[0];
    if (!kv) return { map: emptySlotMap(), revision: '0' };
    return { map: decodeSlotMap(kv.value.toString()), revision: kv.mod_revision };
  }

  /**
   * Writes `next` only if the map is still at `revision` (and, with `guard`, only while that key
   * exists: the controller's election key, so a deposed controller changes nothing); false when
   * someone else changed it first. `also`: more keys written in the same transaction.
   */
  async swap(next: SlotMap, revision: string, guard?: string, also: Record<string, string> = {}): Promise<{ ok: boolean; revision: string }> {
    let txn = this.ns.if(MAP_KEY, 'Mod', '==', revision);
    if (guard !== undefined) txn = txn.and(guard, 'Create', '>', 0);
    const puts = [this.ns.put(MAP_KEY).value(encodeSlotMap(next)), ...Object.entries(also).map(([k, v]) => this.ns.put(k).value(v))];
    const res = await txn.then(...puts).commit();
    return { ok: res.succeeded, revision: res.header.revision };
  }

  /**
   * Read-modify-write until it sticks: `change` gets the current map and returns the next one (or
   * null: nothing to write). Gives up after `attempts` lost races.
   */
  async update(change: (map: SlotMap) => SlotMap | null, attempts = 20): Promise<VersionedMap> {
    for (let i = 0; i < attempts; i++) {
      const current = await this.read();
      const next = change(current.map);
      if (next === null) return current;
      const res = await this.swap(next, current.revision);
      if (res.ok) return { map: next, revision: res.revision };
    }
    throw new Error('the slot map kept changing');
  }

  /** Calls `onMap` with the current map, then with every new version. */
  async watch(onMap: (v: VersionedMap) => void): Promise<{ close(): Promise<void> }> {
    const res = await this.ns.get(MAP_KEY).exec();
    const kv = res.kvs[0];
    onMap(kv ? { map: decodeSlotMap(kv.value.toString()), revision: kv.mod_revision } : { map: emptySlotMap(), revision: '0' });
    // From the revision just read, so no version written in between is missed.
    const watcher = await this.ns.watch().key(MAP_KEY).startRevision(String(BigInt(res.header.revision) + 1n)).create();
    watcher.on('put', (kv) => onMap({ map: decodeSlotMap(kv.value.toString()), revision: kv.mod_revision }));
    return { close: () => watcher.cancel() };
  }
}
