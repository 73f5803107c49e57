// The shard's side of a slot move (DESIGN.md §8 "Resharding"): the giving shard serves snapshot
// pages and oplog entries, freezes the slot for the epoch switch and drops it afterwards; the
// receiving shard applies what it is sent and refreshes the caches built from its store.
import type { Command, SlotCommand } from '../contract/commands.js';
import type { ShardActors } from '../actors/shard-actors.js';
import type { SlotGuard } from '../cluster/slot-guard.js';
import type { SlotView } from '../cluster/slot-view.js';
import { slotOf } from '../cluster/slots.js';
import type { Logger } from '../obs/logger.js';
import { applySlotEntries, dropSlot, readSlotPage, type SlotCursor, type SlotRecord } from '../storage/slot-data.js';

/** How long a released slot waits for this shard's watch to show the switch. */
const SWITCH_VISIBLE_MS = 5000;

export function slotEndpoint(actors: ShardActors, guard: SlotGuard, view: SlotView, log: Logger) {
  const { store } = actors.ctx;
  const inSlot = (slot: number) => (key: string) => slotOf(key) === slot;
  return async (cmd: SlotCommand): Promise<unknown> => {
    switch (cmd.type) {
      case 'slot.snapshot': {
        const seq = store.oplog.seq(cmd.slot);
        const page = readSlotPage(store, cmd.slot, cmd.cursor as SlotCursor | null, cmd.maxBytes);
        return { ...page, seq };
      }
      case 'slot.oplog': {
        const entries = store.oplog.read(cmd.slot, cmd.after, cmd.maxBytes);
        return { records: entries.map((e) => ({ db: e.entry.db, key: e.entry.key, value: e.entry.value, del: e.entry.del })), last: entries.at(-1)?.seq ?? cmd.after };
      }
      case 'slot.apply':
        await applySlotEntries(store, cmd.records as SlotRecord[]);
        actors.accounts.evictWhere(inSlot(cmd.slot));
        actors.webhooks.reload();
        return null;
      case 'slot.freeze': {
        guard.freeze(cmd.slot);
        // Credits counted in memory go to the store (and so the oplog) now.
        actors.accounts.flush();
        // lmdb-js commits transactions in order: once this empty one is done, every write of the slot admitted before the freeze is too.
        await store.transaction(() => undefined);
        return { seq: store.oplog.seq(cmd.slot), epoch: view.entry(cmd.slot).epoch };
      }
      case 'slot.release': {
        if (cmd.switched) await view.epochAfter(cmd.slot, cmd.epoch, SWITCH_VISIBLE_MS);
        guard.release(cmd.slot);
        if (cmd.switched) {
          actors.accounts.evictWhere(inSlot(cmd.slot));
          void dropSlot(store, cmd.slot).then(
            (n) => log.info({ slot: cmd.slot, records: n }, 'dropped a slot that moved away'),
            (err: unknown) => log.error({ err, slot: cmd.slot }, 'dropping a moved slot failed'),
          );
        }
        return null;
      }
    }
  };
}

/** Keeps only what this shard owns in the answers of listing broadcasts. */
export function ownedOnly(guard: SlotGuard) {
  return (command: Command, result: unknown): unknown => {
    if (!Array.isArray(result)) return result;
    const key = (item: Record<string, unknown>): unknown =>
      command.type === 'inbox.list' ? item.address : command.type === 'domain.list' ? item.domain : command.type === 'webhook.list' ? item.inbox : undefined;
    return result.filter((item) => {
      const k = key(item as Record<string, unknown>);
      return typeof k !== 'string' || guard.owns(slotOf(k));
    });
  };
}
