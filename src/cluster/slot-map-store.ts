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

  /** Writes `next` only if the map is still at `revision`; false when someone else changed it first. */
  async swap(next: SlotMap, revision: string): Promise<{ ok: boolean; revision: string }> {
    const res = await this.ns.if(MAP_KEY, 'Mod', '==', revision).then(this.ns.put(MAP_KEY).value(encodeSlotMap(next))).commit();
    return { ok: res.succeeded, revision: res.header.revision };
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
