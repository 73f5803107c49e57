// An account's inboxes on one shard, oldest first: all of them, or a page after a boundary (issue
// 37), and as a scoped key sees them (issue 36): its listed addresses and the inboxes it created.
import type { InboxPageBoundary } from '../contract/commands.js';
import { toInboxView, type InboxRecord, type InboxView } from '../contract/model.js';
import type { ActorContext } from './context.js';

export interface InboxFilter {
  addresses: string[];
  createdBy: string | null;
}

function shownTo(inbox: InboxRecord, only: InboxFilter | undefined): boolean {
  return !only || only.addresses.includes(inbox.address) || (only.createdBy !== null && inbox.created_by === only.createdBy);
}

export function listAll(ctx: ActorContext, accountId: string, only?: InboxFilter): InboxView[] {
  const out: InboxView[] = [];
  for (const address of ctx.store.inboxes.addressesOf(accountId)) {
    const inbox = ctx.store.inboxes.get(address);
    if (inbox && shownTo(inbox, only)) out.push(toInboxView(inbox));
  }
  return out;
}

/** Up to `limit` inboxes after `after` that `only` shows; a filtered page reads on until it is full or the index ends. */
export function listPage(ctx: ActorContext, accountId: string, after: InboxPageBoundary | null, limit: number, only?: InboxFilter): InboxView[] {
  const { inboxes } = ctx.store;
  if (!only) return inboxes.pageOf(accountId, after, limit).map(toInboxView);
  const out: InboxView[] = [];
  for (let cursor = after; ;) {
    const batch = inboxes.pageOf(accountId, cursor, limit);
    for (const inbox of batch) {
      if (!shownTo(inbox, only)) continue;
      out.push(toInboxView(inbox));
      if (out.length >= limit) return out;
    }
    if (batch.length < limit) return out;
    const last = batch[batch.length - 1]!;
    cursor = { created_at: last.created_at, address: last.address };
  }
}
