// Key → shard by rendezvous (highest random weight) hashing: each key goes to the shard whose
// hash(shard, key) is largest. Adding or removing a shard moves only the keys it wins or held,
// and the answer never depends on the order of the shard map.

/** FNV-1a over the key's UTF-16 code units, seeded, finished with murmur3's fmix32. */
function hash32(seed: number, key: string): number {
  let h = (0x811c9dc5 ^ Math.imul(seed + 1, 0x9e3779b1)) >>> 0;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class Ring {
  private readonly ids: readonly number[];

  constructor(shardIds: Iterable<number>) {
    this.ids = [...shardIds].sort((a, b) => a - b);
    if (this.ids.length === 0) throw new Error('a ring needs at least one shard');
  }

  get shardIds(): readonly number[] {
    return this.ids;
  }

  shardFor(key: string): number {
    let best = this.ids[0]!;
    let bestWeight = -1;
    for (const id of this.ids) {
      const weight = hash32(id, key);
      if (weight > bestWeight) {
        best = id;
        bestWeight = weight;
      }
    }
    return best;
  }
}
