// The actors of one shard and the dispatch from a command's type to the actor that owns it.
// The rpc layer calls `dispatch`; nothing else reaches the actors.
import type { Config } from '../config/config.js';
import { Sealer } from '../security/sealer.js';
import { openShardStore, type ShardStore } from '../storage/shard-store.js';
import { AccountActor } from './account-actor.js';
import { AccountFeed, type ChangeKind } from './account-feed.js';
import type { Command } from '../contract/commands.js';
import type { ActorContext } from './context.js';
import type { AccountNotice, Durability, RequestScope, ShardStats } from '../contract/results.js';
import { DomainActor } from './domain-actor.js';
import { InboxActor } from './inbox-actor.js';
import { OAuthActor } from './oauth-actor.js';
import { WebhookActor } from './webhook-actor.js';
import { WaiterRegistry } from './waiters.js';

/** Commands that change what an account's dashboard shows, besides the inbox actor's own. */
const FEED_KINDS: Partial<Record<Command['type'], ChangeKind>> = {
  'domain.add': 'domains',
  'domain.mark_verified': 'domains',
  'domain.delete': 'domains',
  'webhook.register': 'webhooks',
  'webhook.delete': 'webhooks',
};

export class ShardActors {
  readonly ctx: ActorContext;
  readonly accounts: AccountActor;
  readonly inboxes: InboxActor;
  readonly domains: DomainActor;
  readonly oauth: OAuthActor;
  readonly webhooks: WebhookActor;
  readonly feed = new AccountFeed();
  private readonly commands = new Map<string, number>();
  private readonly purger: NodeJS.Timeout;

  /** `now`: the shard's clock (rate windows, credit months, expiries); tests inject their own. */
  constructor(shardId: number, config: Config, dataDir: string, masterKey: string, now: () => number = Date.now) {
    const store: ShardStore = openShardStore(dataDir);
    this.ctx = {
      shardId, config, store, waiters: new WaiterRegistry(now), sealer: new Sealer(masterKey), now,
    };
    // Actors never read each other's records: one that needs another's answer is handed its method.
    this.oauth = new OAuthActor(this.ctx, (accountId) => this.accounts.generation(accountId));
    this.accounts = new AccountActor(this.ctx, (accountId, hash, generation) => this.oauth.accessTokenValid(accountId, hash, generation));
    this.inboxes = new InboxActor(this.ctx);
    this.domains = new DomainActor(this.ctx);
    this.webhooks = new WebhookActor(this.ctx, (address) => this.inboxes.ownerOf(address));
    // The outbox entry commits with the message; sending starts once the commit is durable.
    this.inboxes.inTransaction.push((message) => this.webhooks.enqueue(message));
    this.inboxes.inboxDropped.push((address) => this.webhooks.dropInbox(address));
    this.inboxes.afterCommit.push(() => this.webhooks.schedule(0));
    this.inboxes.changed.push((accountId, address) => this.feed.note(accountId, { kind: 'inbox', inbox: address }));
    this.webhooks.attempted.push((accountId) => this.feed.note(accountId, { kind: 'webhooks' }));
    this.webhooks.start();
    this.purger = setInterval(() => void this.purge(), config.purgeIntervalMs);
    this.purger.unref();
  }

  /** Expired OAuth records, idle sessions and past rate windows go (DESIGN §7). */
  async purge(): Promise<number> {
    return this.accounts.purge() + (await this.oauth.purge());
  }

  onAccountChange(listener: (notice: AccountNotice) => void): void {
    this.accounts.changed.push(listener);
  }

  /** Cluster mode: the lag of every slot copy this shard feeds (metrics). */
  replicationLag: (() => { slot: number; follower: string; lag: number }[]) | null = null;
  /** Cluster mode with REPLICATION_ACK=all: answers of writes wait for the followers. */
  durability: Durability | null = null;
  /** Cluster mode: the slot-move commands (src/shard/slot-endpoint.ts). */
  slotCommands: ((command: Extract<Command, { type: `slot.${string}` }>) => unknown) | null = null;
  /** Cluster mode: keeps a broadcast's answer to what this shard owns (copies in flight are not listed twice). */
  broadcastFilter: ((command: Command, result: unknown) => unknown) | null = null;

  dispatch(command: Command, scope: RequestScope): unknown {
    this.commands.set(command.type, (this.commands.get(command.type) ?? 0) + 1);
    const result = this.route(command, scope);
    const kind = FEED_KINDS[command.type];
    if (kind && 'accountId' in command) {
      const accountId = command.accountId;
      Promise.resolve(result).then(() => this.feed.note(accountId, { kind }), () => undefined);
    }
    return result;
  }

  private route(command: Command, scope: RequestScope): unknown {
    const [family] = command.type.split('.', 1);
    switch (family) {
      case 'account':
        return this.accounts.handle(command as Extract<Command, { type: `account.${string}` }>);
      case 'inbox':
      case 'message':
        if (this.broadcastFilter && command.type === 'inbox.list') return this.filtered(command, this.inboxes.handle(command, scope));
        return this.inboxes.handle(command as Extract<Command, { type: `inbox.${string}` | `message.${string}` }>, scope);
      case 'domain':
        if (this.broadcastFilter && command.type === 'domain.list') return this.filtered(command, this.domains.handle(command));
        return this.domains.handle(command as Extract<Command, { type: `domain.${string}` }>);
      case 'oauth':
        return this.oauth.handle(command as Extract<Command, { type: `oauth.${string}` }>);
      case 'webhook':
        if (this.broadcastFilter && command.type === 'webhook.list') return this.filtered(command, this.webhooks.handle(command));
        return this.webhooks.handle(command as Extract<Command, { type: `webhook.${string}` }>);
      case 'shard':
        return this.stats();
      case 'slot':
        if (!this.slotCommands) throw new Error('slot commands need cluster mode');
        return this.slotCommands(command as Extract<Command, { type: `slot.${string}` }>);
      case 'feed': {
        const { accountId, since, epoch, timeoutMs } = command as Extract<Command, { type: 'feed.watch' }>;
        return this.feed.watch(accountId, since, epoch, timeoutMs, scope.signal);
      }
      default:
        throw new Error(`unknown command ${command.type}`);
    }
  }

  private filtered(command: Command, result: unknown): unknown {
    return result instanceof Promise ? result.then((r) => this.broadcastFilter!(command, r)) : this.broadcastFilter!(command, result);
  }

  stats(): ShardStats {
    return {
      shard: this.ctx.shardId,
      parked_waiters: this.ctx.waiters.size + this.feed.size,
      inboxes: this.ctx.store.inboxes.count(),
      messages: this.ctx.store.messages.count(),
      oauth_records: this.oauth.records,
      open_sessions: this.accounts.openSessions,
      commands: Object.fromEntries(this.commands),
      ...(this.replicationLag ? { replication: this.replicationLag() } : {}),
    };
  }

  /** Graceful stop: answer parked waiters, then flush and close LMDB. */
  async close(): Promise<void> {
    clearInterval(this.purger);
    this.ctx.waiters.drain();
    this.feed.drain();
    this.accounts.flush();
    await this.webhooks.stop();
    await this.ctx.store.close();
  }
}
