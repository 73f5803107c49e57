// DomainActor: custom domains, owned by the shard of the lowercase domain name. Several accounts
// may hold the same unverified domain, each with its own token; the first to verify owns it.
import { fail } from '../errors/registry.js';
import { randomHex } from '../util/ids.js';
import type { FamilyOf, Handlers } from '../contract/command-table.js';
import type { ActorContext } from './context.js';
import type { DomainRecord } from '../contract/model.js';

export class DomainActor {
  constructor(private readonly ctx: ActorContext) {}

  private get domains() {
    return this.ctx.store.domains;
  }

  /** The domain actor's part of the dispatch table (src/contract/command-table.ts). */
  readonly handlers: Handlers<FamilyOf<'domain'>> = {
    'domain.add': (cmd) => this.add(cmd.accountId, cmd.domain),
    'domain.list': (cmd) => this.list(cmd.accountId),
    'domain.get': (cmd) => this.ownUntaken(cmd.accountId, cmd.domain),
    'domain.mark_verified': (cmd) => this.markVerified(cmd.accountId, cmd.domain),
    'domain.delete': (cmd) => this.remove(cmd.accountId, cmd.domain),
    'domain.verified_for': (cmd) => this.domains.get(cmd.domain, cmd.accountId)?.verified === true,
  };

  private own(accountId: string, domain: string): DomainRecord {
    const record = this.domains.get(domain, accountId);
    if (!record) fail('domain_not_found', `The domain ${domain} is not on your account`);
    return record;
  }

  /** The caller's entry, unless another account has verified the domain since (DESIGN §3: 409). */
  private ownUntaken(accountId: string, domain: string): DomainRecord {
    const record = this.own(accountId, domain);
    const owner = record.verified ? accountId : this.verifiedOwner(domain);
    if (owner !== null && owner !== accountId) fail('domain_taken', `The domain ${domain} is verified by another account`);
    return record;
  }

  private verifiedOwner(domain: string): string | null {
    for (const claim of this.domains.claims(domain)) if (claim.verified) return claim.account_id;
    return null;
  }

  private async add(accountId: string, domain: string): Promise<{ created: boolean; record: DomainRecord }> {
    return this.ctx.store.transaction(() => {
      const existing = this.domains.get(domain, accountId);
      // An entry of the caller's own that another account has verified since is taken (DESIGN §3: 409).
      const owner = existing?.verified ? accountId : this.verifiedOwner(domain);
      if (owner && owner !== accountId) fail('domain_taken', `The domain ${domain} is verified by another account`);
      if (existing) return { created: false, record: existing };
      const record: DomainRecord = {
        domain, account_id: accountId, token: randomHex(16), verified: false, added_at: new Date(this.ctx.now()).toISOString(), verified_at: null,
      };
      this.domains.create(record);
      return { created: true, record };
    });
  }

  private list(accountId: string): DomainRecord[] {
    const out: DomainRecord[] = [];
    for (const domain of this.domains.domainsOf(accountId)) {
      const record = this.domains.get(domain, accountId);
      if (record) out.push(record);
    }
    return out;
  }

  private async markVerified(accountId: string, domain: string): Promise<DomainRecord> {
    return this.ctx.store.transaction(() => {
      const record = this.own(accountId, domain);
      if (record.verified) return record;
      const owner = this.verifiedOwner(domain);
      if (owner && owner !== accountId) fail('domain_taken', `The domain ${domain} is verified by another account`);
      const next = { ...record, verified: true, verified_at: new Date(this.ctx.now()).toISOString() };
      this.domains.update(next);
      return next;
    });
  }

  private async remove(accountId: string, domain: string): Promise<DomainRecord> {
    return this.ctx.store.transaction(() => {
      const record = this.own(accountId, domain);
      this.domains.remove(record);
      return record;
    });
  }
}
