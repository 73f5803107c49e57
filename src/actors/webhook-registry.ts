// The webhooks an account registers on its inboxes (DESIGN §5), kept with the inbox they watch:
// registering (once per URL and inbox, within the plan's number per inbox), listing, deleting,
// the delivery log, and the account's sealed signing key beside them. Sending is the actor's.
import { fail } from '../errors/registry.js';
import { randomHex } from '../util/ids.js';
import type { CommandOf } from '../contract/command-table.js';
import type { DeliveryLog, WebhookRecord } from '../contract/model.js';
import type { ActorContext } from './context.js';

/** Delivery attempts kept per webhook (the newest). */
export const DELIVERY_LOG_SIZE = 100;

/** `inboxOwner`: the inbox actor's answer to "whose inbox is this?"; `watched`: the inboxes the sender indexes. */
export function registerWebhook(
  ctx: ActorContext, cmd: CommandOf<'webhook.register'>, inboxOwner: (address: string) => string | null, watched: () => Set<string>,
): Promise<{ created: boolean; webhook: WebhookRecord }> {
  const webhooks = ctx.store.webhooks;
  return ctx.store.transaction(() => {
    if (inboxOwner(cmd.inbox) !== cmd.accountId) fail('inbox_not_owned', `The inbox ${cmd.inbox} is not a registered inbox of your account`);
    // Sealed by the account's shard under the same master key: opened here once to be sure it signs.
    try {
      ctx.sealer.open(cmd.keySealed);
    } catch {
      fail('internal', 'The signing key cannot be opened: every shard needs the same MAILCUE_MASTER_KEY');
    }
    void webhooks.putSealedKey(cmd.accountId, Buffer.from(cmd.keySealed));
    for (const id of webhooks.idsForInbox(cmd.inbox)) {
      const existing = webhooks.get(id);
      if (existing && existing.url === cmd.url && existing.account_id === cmd.accountId) {
        // Registering again re-activates a disabled webhook with a clean slate.
        const next = { ...existing, disabled: false, failure_count: 0 };
        webhooks.update(next);
        return { created: false, webhook: next };
      }
    }
    if (cmd.max !== undefined && webhooks.idsForInbox(cmd.inbox).length >= cmd.max) {
      fail('limit_reached', `An inbox can have at most ${cmd.max} webhooks on your plan; delete one first`);
    }
    const webhook: WebhookRecord = {
      id: `wh_${randomHex(12)}`, account_id: cmd.accountId, inbox: cmd.inbox, url: cmd.url,
      created_at: new Date(ctx.now()).toISOString(), failure_count: 0, disabled: false,
    };
    webhooks.create(webhook);
    watched().add(cmd.inbox);
    return { created: true, webhook };
  });
}

export function listWebhooks(ctx: ActorContext, accountId: string, all: boolean): WebhookRecord[] {
  const out: WebhookRecord[] = [];
  for (const id of ctx.store.webhooks.idsForAccount(accountId)) {
    const w = ctx.store.webhooks.get(id);
    if (w && (all || !w.disabled)) out.push(w);
  }
  return out;
}

/** Another account's webhook answers exactly like a missing one. */
function owned(ctx: ActorContext, accountId: string, id: string): WebhookRecord | undefined {
  const w = ctx.store.webhooks.get(id);
  return w && w.account_id === accountId ? w : undefined;
}

export function removeWebhook(ctx: ActorContext, accountId: string, id: string): Promise<boolean> {
  return ctx.store.transaction(() => {
    const w = owned(ctx, accountId, id);
    if (!w) return false;
    ctx.store.webhooks.remove(w);
    return true;
  });
}

/** Inside a transaction: the webhooks of an inbox that is gone. */
export function dropInboxWebhooks(ctx: ActorContext, address: string): void {
  for (const id of ctx.store.webhooks.idsForInbox(address)) {
    const w = ctx.store.webhooks.get(id);
    if (w) ctx.store.webhooks.remove(w);
  }
}

export function deliveryLog(ctx: ActorContext, accountId: string, id: string): DeliveryLog[] | null {
  if (!owned(ctx, accountId, id)) return null;
  return ctx.store.webhooks.deliveries(id, DELIVERY_LOG_SIZE);
}

/** The account's key was rotated: its webhooks sign with the new one from now on. */
export async function rekeyWebhooks(ctx: ActorContext, accountId: string, key: string): Promise<null> {
  if (ctx.store.webhooks.sealedKey(accountId)) await ctx.store.webhooks.putSealedKey(accountId, ctx.sealer.seal(key));
  return null;
}
