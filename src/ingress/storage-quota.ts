// Storage limits at the SMTP ingress (DESIGN §7 "Storage is governed"): mail to a full inbox or
// account answers 452 4.2.2 at RCPT, so the sender keeps it and retries; nothing is half-stored.
// An inbox's message count is the shard's own (it is checked again where it commits, so racing
// deliveries cannot pass it); an account's bytes are spread over every shard, so this front keeps
// each busy account's total (every shard's figure, at most REFRESH_MS old) and adds what it
// delivers itself at once. With one front the figure is exact; with several, another front's
// deliveries of the last REFRESH_MS can pass the limit by what they stored.
import type { Config } from '../config/config.js';
import type { Plan, PlanName } from '../config/plans.js';
import type { Cluster } from '../rpc/cluster.js';
import { sumUsage, type StorageUsage } from '../contract/results.js';

/** How old an account's figure may be before a check asks the shards again. */
const REFRESH_MS = 1_000;
/** A figure at the limit is asked again before refusing, unless younger than this. */
const RECHECK_MS = 100;
const MAX_ACCOUNTS = 10_000;

interface AccountFigure {
  plan: Plan;
  bytes: number;
  at: number;
}

/** Why a recipient cannot take mail now; null when it can. */
export type Fullness = null | 'inbox' | 'account';

export class StorageQuota {
  private readonly figures = new Map<string, AccountFigure>();
  private readonly pending = new Map<string, Promise<AccountFigure>>();

  constructor(private readonly config: Config, private readonly cluster: Cluster, private readonly now: () => number = Date.now) {}

  /** The account's plan and stored bytes, fresh enough for a check (`maxAgeMs`). */
  async figure(accountId: string, maxAgeMs = REFRESH_MS): Promise<AccountFigure> {
    const known = this.figures.get(accountId);
    if (known && this.now() - known.at < maxAgeMs) return known;
    let asking = this.pending.get(accountId);
    if (!asking) {
      asking = this.fetch(accountId).finally(() => this.pending.delete(accountId));
      this.pending.set(accountId, asking);
    }
    return asking;
  }

  private async fetch(accountId: string): Promise<AccountFigure> {
    const started = this.now();
    const [account, rows] = await Promise.all([
      this.cluster.call({ type: 'account.get', accountId }),
      this.cluster.broadcast({ type: 'inbox.usage', accountId }),
    ]);
    const figure = { plan: this.config.plans[account.plan], bytes: sumUsage(rows.flat()).bytes, at: started };
    this.figures.delete(accountId);
    this.figures.set(accountId, figure);
    if (this.figures.size > MAX_ACCOUNTS) this.figures.delete(this.figures.keys().next().value!);
    return figure;
  }

  /**
   * Can the inbox (holding `messages`) of this account take a message of `size` bytes (0 at RCPT
   * when the sender declared none)? An account at its limit is asked again before it is refused:
   * its owner may have deleted mail since.
   */
  async check(accountId: string, messages: number | null, size: number): Promise<Fullness> {
    let figure = await this.figure(accountId);
    if (messages !== null && messages >= figure.plan.maxMessagesPerInbox) return 'inbox';
    const over = (f: AccountFigure) => (size > 0 ? f.bytes + size > f.plan.maxStoredBytes : f.bytes >= f.plan.maxStoredBytes);
    if (over(figure) && this.now() - figure.at >= RECHECK_MS) figure = await this.figure(accountId, RECHECK_MS);
    return over(figure) ? 'account' : null;
  }

  /** The plan's message limit per inbox of a known account (for the shard's own check at commit). */
  maxMessages(accountId: string): number | undefined {
    return this.figures.get(accountId)?.plan.maxMessagesPerInbox;
  }

  /** This front stored `bytes` more for the account: its figure counts them at once. */
  add(accountId: string, bytes: number): void {
    const figure = this.figures.get(accountId);
    if (figure) figure.bytes += bytes;
  }
}
