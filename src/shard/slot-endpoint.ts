// The shard's side of slot moves and replication (DESIGN.md §8): the giving primary tells its log
// position, freezes the slot for the epoch switch and releases it (staying a follower when the map
// keeps it one); a follower tells where its copy stands and applies snapshot pages and log entries
// from the slot's primary, refusing any copy from a shard that is not the primary at the epoch.
import type { Command } from '../contract/commands.js';
import type { FamilyOf, Handlers } from '../contract/command-table.js';
import type { ShardActors } from '../actors/shard-actors.js';
import type { SlotGuard } from '../cluster/slot-guard.js';
import type { SlotView } from '../cluster/slot-view.js';
import { slotOf } from '../cluster/slots.js';
import { MailcueError } from '../errors/registry.js';
import { approxBytes } from '../storage/oplog.js';
import { applyReplicated, applySnapshotPage, type ReplicatedEntry, type SlotRecord } from '../storage/slot-data.js';
import type { SlotLocks } from './slot-locks.js';

/** How long a released slot waits for this shard's watch to show the switch. */
const SWITCH_VISIBLE_MS = 5000;

export function slotEndpoint(actors: ShardActors, guard: SlotGuard, view: SlotView, locks: SlotLocks) {
  const { store } = actors.ctx;
  const inSlot = (slot: number) => (key: string) => slotOf(key) === slot;
  /** Snapshot bytes received per slot since its copy began (move figures). */
  const copiedBytes = new Map<number, number>();
  const handlers: Handlers<FamilyOf<'slot'>> = {
    'slot.head': (cmd) => ({ seq: store.oplog.seq(cmd.slot) }),
    'slot.freeze': async (cmd) => {
      // A controller command at another epoch (a deposed controller, a map that moved on) is refused.
      const at = view.entry(cmd.slot);
      if (cmd.epoch !== undefined && (at.epoch !== cmd.epoch || at.primary !== guard.self)) throw staleCopy(cmd.slot);
      guard.freeze(cmd.slot);
      // Credits counted in memory go to the store (and so the oplog) now.
      actors.accounts.flush();
      // lmdb-js commits transactions in order: once this empty one is done, every write of the slot admitted before the freeze is too.
      await store.transaction(() => undefined);
      return { seq: store.oplog.seq(cmd.slot), epoch: view.entry(cmd.slot).epoch };
    },
    'slot.release': async (cmd) => {
      if (cmd.switched) await view.epochAfter(cmd.slot, cmd.epoch, SWITCH_VISIBLE_MS);
      guard.release(cmd.slot);
      const entry = view.entry(cmd.slot);
      if (cmd.switched && cmd.keep && entry.followers.includes(guard.self)) {
        // It stays as a follower: its copy is the new primary's up to here, so only the tail follows.
        await store.transaction(() => store.oplog.setPosition(cmd.slot, { epoch: entry.epoch, seq: store.oplog.seq(cmd.slot) }));
        actors.accounts.evictWhere(inSlot(cmd.slot));
      } else if (cmd.switched) {
        // Its records go with the replicator's next look at the map (src/shard/replicator.ts).
        actors.accounts.evictWhere(inSlot(cmd.slot));
      }
      return null;
    },
    'slot.position': (cmd) => {
      const position = store.oplog.position(cmd.slot);
      return position ? { ...position, copied_bytes: copiedBytes.get(cmd.slot) ?? 0 } : null;
    },
    'slot.positions': (cmd) => cmd.slots.map((slot) => {
      const position = store.oplog.position(slot);
      return position ? { epoch: position.epoch, seq: position.seq } : null;
    }),
    'slot.adopt': (cmd) => locks.run(cmd.slot, async () => {
      // Truncation by leader epoch (KIP-101): a copy from the epoch the primary took over from, ending
      // where the primary's log still matches it, continues at the new epoch from its own position.
      const position = store.oplog.position(cmd.slot);
      if (!mayCopy(cmd.slot, cmd.epoch) || !position || position.epoch !== cmd.from.epoch || position.seq !== cmd.from.seq) return false;
      await store.transaction(() => store.oplog.setPosition(cmd.slot, { epoch: cmd.epoch, seq: position.seq }));
      return true;
    }),
    // Copies are applied one at a time per slot, never alongside a drop of the same slot (slot-locks.ts).
    'slot.resync': (cmd) => locks.run(cmd.slot, async () => {
      if (!mayCopy(cmd.slot, cmd.epoch)) throw staleCopy(cmd.slot);
      if (!cmd.first && store.oplog.position(cmd.slot)?.epoch !== cmd.epoch) throw staleCopy(cmd.slot);
      if (cmd.first) copiedBytes.set(cmd.slot, 0);
      copiedBytes.set(cmd.slot, (copiedBytes.get(cmd.slot) ?? 0) + approxBytes(cmd.records));
      await applySnapshotPage(store, cmd.slot, cmd.epoch, cmd.records as SlotRecord[], cmd.first, cmd.done);
      return null;
    }),
    'slot.resync_empty': async (cmd) => {
      const refused: number[] = [];
      const copies: Promise<void>[] = [];
      for (const { slot, epoch } of cmd.slots) {
        if (!mayCopy(slot, epoch)) refused.push(slot);
        // Issued together, the transactions commit together.
        else copies.push(locks.run(slot, async () => {
          if (mayCopy(slot, epoch)) await applySnapshotPage(store, slot, epoch, [], true, 0);
          else refused.push(slot);
        }));
      }
      await Promise.all(copies);
      return { refused };
    },
    'slot.replicate': async (cmd) => {
      const refused: number[] = [];
      const applied: Promise<void>[] = [];
      for (const { slot, epoch, entries } of cmd.batches) {
        applied.push(locks.run(slot, async () => {
          const position = store.oplog.position(slot);
          const list = (entries as ReplicatedEntry[]).filter((e) => position && e.seq > position.seq);
          // Only the next entries of the copy this primary made, at its epoch, are applied.
          if (!mayCopy(slot, epoch) || !position || position.epoch !== epoch || position.seq < 0 || (list.length > 0 && list[0]!.seq !== position.seq + 1)) {
            refused.push(slot);
            return;
          }
          if (list.length > 0) await applyReplicated(store, slot, epoch, list);
        }));
      }
      await Promise.all(applied);
      return { refused };
    },
  };
  return handlers;

  /**
   * A copy is taken only by a follower the map names, from the slot's primary at the current epoch
   * (or a newer one this shard's watch has not shown yet), never by the primary itself.
   */
  function mayCopy(slot: number, epoch: number): boolean {
    const entry = view.entry(slot);
    if (entry.primary === guard.self) return false;
    return epoch > entry.epoch || (epoch === entry.epoch && entry.followers.includes(guard.self));
  }
}

function staleCopy(slot: number): MailcueError {
  return new MailcueError('moved', `Slot ${slot}: this copy is not from the slot's current primary`, { slot, retry_after_s: 1 });
}

/** Keeps only what this shard owns in the answers of listing broadcasts. */
export function ownedOnly(guard: SlotGuard) {
  return (command: Command, result: unknown): unknown => {
    if (!Array.isArray(result)) return result;
    const key = (item: Record<string, unknown>): unknown =>
      command.type === 'inbox.list' ? item.address : command.type === 'domain.list' ? item.domain : command.type === 'webhook.list' ? item.inbox : undefined;
    return result.filter((item) => {
      // Storage usage comes per slot (src/actors/inbox-storage.ts).
      if (command.type === 'inbox.usage') return guard.owns((item as { slot: number }).slot);
      const k = key(item as Record<string, unknown>);
      return typeof k !== 'string' || guard.owns(slotOf(k));
    });
  };
}
