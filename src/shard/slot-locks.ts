// One thing at a time per slot on a shard's copy of it: a drop and a snapshot page or replicated
// batch of the same slot never interleave, so a copy is never marked complete while a drop still
// removes its records (DESIGN.md §8 "Add before remove").
export class SlotLocks {
  private readonly tails = new Map<number, Promise<unknown>>();

  run<T>(slot: number, work: () => Promise<T>): Promise<T> {
    const before = this.tails.get(slot) ?? Promise.resolve();
    const result = before.then(work, work);
    const tail = result.catch(() => undefined);
    this.tails.set(slot, tail);
    void tail.then(() => { if (this.tails.get(slot) === tail) this.tails.delete(slot); });
    return result;
  }

  busy(slot: number): boolean {
    return this.tails.has(slot);
  }
}
