// The custom-domain slots an account holds, counted atomically on the account's shard so that the
// limit of SEED.md (10 per account) holds however many fronts add domains at once.
import { fail } from '../errors/registry.js';
import type { ActorContext } from './context.js';

/** { reserved: false } when the account already holds the domain (adding it again is idempotent). */
export function reserveDomain(ctx: ActorContext, accountId: string, domain: string, max: number): Promise<{ reserved: boolean }> {
  const { accounts } = ctx.store;
  return ctx.store.transaction(() => {
    if (accounts.holdsDomain(accountId, domain)) return { reserved: false };
    if (accounts.domainCount(accountId) >= max) {
      fail('limit_reached', `An account can have at most ${max} custom domains; delete one first`);
    }
    accounts.holdDomain(accountId, domain);
    return { reserved: true };
  });
}

/** Answers whether the account held the domain. */
export function releaseDomain(ctx: ActorContext, accountId: string, domain: string): Promise<boolean> {
  const { accounts } = ctx.store;
  return ctx.store.transaction(() => {
    const held = accounts.holdsDomain(accountId, domain);
    accounts.releaseDomain(accountId, domain);
    return held;
  });
}
