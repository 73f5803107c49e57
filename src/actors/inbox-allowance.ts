// The inbox slots of an account, counted on the account's shard against its plan's maxInboxes
// (DESIGN §7 "Storage is governed"). Inboxes live on the shards of their addresses, so the count
// cannot commit with them: a create takes a slot here first (atomically, so concurrent creates
// cannot pass the limit together) and gives it back if the inbox is not made; a delete gives it
// back after. A slot a crash left behind is found at the limit (reconcile) and goes.
import type { Plan, PlanName } from '../config/plans.js';
import type { Handlers } from '../contract/command-table.js';
import { fail } from '../errors/registry.js';
import type { ActorContext } from './context.js';

export type InboxAllowanceType = 'account.inbox_reserve' | 'account.inbox_release' | 'account.inbox_reconcile';

export class InboxAllowance {
  constructor(private readonly ctx: ActorContext, private readonly planOf: (accountId: string) => Plan) {}

  /** Its part of the dispatch table (src/contract/command-table.ts). */
  readonly handlers: Handlers<InboxAllowanceType> = {
    'account.inbox_reserve': (cmd) => this.reserve(cmd.accountId, cmd.address),
    'account.inbox_release': (cmd) => this.release(cmd.accountId, cmd.addresses),
    'account.inbox_reconcile': (cmd) => this.reconcile(cmd.accountId, cmd.addresses),
  };

  /** `reserved: false` when the account already held a slot for this address. */
  private reserve(accountId: string, address: string): Promise<{ reserved: boolean; plan: PlanName; held: number }> {
    const plan = this.planOf(accountId);
    const { accounts } = this.ctx.store;
    return this.ctx.store.transaction(() => {
      const held = accounts.inboxCount(accountId);
      if (accounts.holdsInbox(accountId, address)) return { reserved: false, plan: plan.name, held };
      if (held >= plan.maxInboxes) {
        fail('limit_reached', `The ${plan.title} plan allows at most ${plan.maxInboxes} inboxes per account; delete one first`);
      }
      accounts.holdInbox(accountId, address);
      return { reserved: true, plan: plan.name, held: held + 1 };
    });
  }

  private async release(accountId: string, addresses: string[]): Promise<null> {
    const { accounts } = this.ctx.store;
    await this.ctx.store.transaction(() => {
      for (const address of addresses) accounts.releaseInbox(accountId, address);
    });
    return null;
  }

  /** Answers how many slots the account holds after dropping those of inboxes that do not exist. */
  private reconcile(accountId: string, addresses: string[]): Promise<number> {
    const existing = new Set(addresses);
    const { accounts } = this.ctx.store;
    return this.ctx.store.transaction(() => {
      for (const address of accounts.heldInboxes(accountId)) if (!existing.has(address)) accounts.releaseInbox(accountId, address);
      for (const address of existing) accounts.holdInbox(accountId, address);
      return accounts.inboxCount(accountId);
    });
  }
}
