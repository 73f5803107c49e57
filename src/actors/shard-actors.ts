// The actors of one shard and the dispatch from a command's type to the actor that owns it.
// The rpc layer calls `dispatch`; nothing else reaches the actors.
import type { Config } from '../config/config.js';
import { Sealer } from '../security/sealer.js';
import { openShardStore, type ShardStore } from '../storage/shard-store.js';
import { OPLOG_RETENTION_MS } from '../storage/oplog.js';
import { AccountActor } from './account-actor.js';
import { AccountFeed } from './account-feed.js';
import type { Command } from '../contract/commands.js';
import { feedKind, runHandler, type Answer, type CommandOf, type CommandType, type FamilyOf, type Handler, type Handlers } from '../contract/command-table.js';
import type { ActorContext } from './context.js';
import type { AccountNotice, Durability, RequestScope, ShardStats } from '../contract/results.js';
import { DomainActor } from './domain-actor.js';
import { InboxActor } from './inbox-actor.js';
import { InboxAllowance } from './inbox-allowance.js';
import { OAuthActor } from './oauth-actor.js';
import { WebhookActor } from './webhook-actor.js';
import { WaiterRegistry } from './waiters.js';
import { SessionEvents } from './session-events.js';
import { Retention } from './retention.js';
import { slotOf } from '../cluster/slots.js';

/** Listings gathered from every shard: in cluster mode each answers only what it owns. */
const LISTINGS: ReadonlySet<CommandType> = new Set(['inbox.list', 'domain.list', 'webhook.list', 'inbox.usage']);

export class ShardActors {
  readonly ctx: ActorContext;
  readonly accounts: AccountActor;
  readonly allowance: InboxAllowance;
  readonly inboxes: InboxActor;
  readonly domains: DomainActor;
  readonly oauth: OAuthActor;
  readonly webhooks: WebhookActor;
  readonly feed = new AccountFeed();
  readonly sessionEvents: SessionEvents;
  readonly retention: Retention;
  private readonly retentionTimer: NodeJS.Timeout;
  private readonly commands = new Map<string, number>();
  /** Every command's handler (src/contract/command-table.ts): the compiler checks none is missing. */
  private readonly handlers: Handlers<CommandType>;
  private readonly purger: NodeJS.Timeout;

  /** `now`: the shard's clock (rate windows, credit months, expiries); tests inject their own. */
  constructor(shardId: number, config: Config, dataDir: string, masterKey: string, now: () => number = Date.now) {
    // Only a cluster's followers and slot moves read the oplog (DESIGN.md §8); an embedded shard
    // trims it promptly, so the data dir follows the live data.
    const store: ShardStore = openShardStore(dataDir, { oplogRetentionMs: config.etcdEndpoints.length > 0 ? OPLOG_RETENTION_MS : 0 });
    this.ctx = {
      shardId, config, store, waiters: new WaiterRegistry(now), sealer: new Sealer(masterKey), now,
    };
    // Actors never read each other's records: one that needs another's answer is handed its method.
    this.oauth = new OAuthActor(this.ctx, {
      generation: (accountId) => this.accounts.generation(accountId),
      keyBySecret: (accountId, hash) => this.accounts.keyBySecret(accountId, hash),
      key: (accountId, keyId) => this.accounts.key(accountId, keyId),
    });
    this.accounts = new AccountActor(this.ctx, (accountId, hash, generation) => this.oauth.accessGrant(accountId, hash, generation));
    this.allowance = new InboxAllowance(this.ctx, (accountId) => this.accounts.planOf(accountId));
    this.inboxes = new InboxActor(this.ctx);
    this.sessionEvents = new SessionEvents(now);
    this.domains = new DomainActor(this.ctx);
    this.webhooks = new WebhookActor(this.ctx, (address) => this.inboxes.ownerOf(address));
    // The outbox entry commits with the message; sending starts once the commit is durable.
    this.inboxes.inTransaction.push((message) => this.webhooks.enqueue(message));
    this.inboxes.inboxDropped.push((address) => this.webhooks.dropInbox(address));
    this.inboxes.afterCommit.push(() => this.webhooks.schedule(0));
    this.inboxes.changed.push((accountId, address) => this.feed.note(accountId, { kind: 'inbox', inbox: address }));
    this.webhooks.attempted.push((accountId) => this.feed.note(accountId, { kind: 'webhooks' }));
    // A cluster shard sends once it knows which slots it serves and how to wait for their copies
    // (src/shard/cluster-shard.ts): sent at start, its copies' entries and an unacknowledged tail
    // would go too, and a failover would then drop the mail they announce.
    if (config.etcdEndpoints.length === 0) this.webhooks.start();
    this.handlers = {
      ...this.accounts.handlers,
      ...this.allowance.handlers,
      ...this.inboxes.handlers,
      ...this.domains.handlers,
      ...this.oauth.handlers,
      ...this.webhooks.handlers,
      // An ended session's resumable streams go with it.
      'account.session_close': (cmd, scope) => {
        this.sessionEvents.drop(cmd.accountId, cmd.sessionId);
        return this.accounts.handlers['account.session_close'](cmd, scope);
      },
      'session.events_put': (cmd) => this.sessionEvents.put(cmd.accountId, cmd.sessionId, cmd.streamId, cmd.events, cmd.done),
      'session.events_after': (cmd, scope) => this.sessionEvents.after(cmd.accountId, cmd.sessionId, cmd.streamId, cmd.after, cmd.timeoutMs, scope.signal),
      'shard.stats': () => this.stats(),
      'feed.watch': (cmd, scope) => this.feed.watch(cmd.accountId, cmd.since, cmd.epoch, cmd.timeoutMs, scope.signal),
      'slot.head': this.slot('slot.head'),
      'slot.freeze': this.slot('slot.freeze'),
      'slot.release': this.slot('slot.release'),
      'slot.position': this.slot('slot.position'),
      'slot.positions': this.slot('slot.positions'),
      'slot.adopt': this.slot('slot.adopt'),
      'slot.resync': this.slot('slot.resync'),
      'slot.resync_empty': this.slot('slot.resync_empty'),
      'slot.replicate': this.slot('slot.replicate'),
    };
    // A cluster shard's copies of a slot are written by its primary's log: only the embedded shard,
    // which owns all it holds, resumes deletions left halfway at start.
    if (config.etcdEndpoints.length === 0) this.inboxes.reclaimer.resume();
    this.purger = setInterval(() => void this.purge(), config.purgeIntervalMs);
    this.purger.unref();
    this.retention = new Retention(config, store, now, slotOf);
    this.retention.changed.push((accountId, address) => this.feed.note(accountId, { kind: 'inbox', inbox: address }));
    this.retentionTimer = setInterval(() => void this.retention.sweep().catch(() => undefined), config.retentionIntervalMs);
    this.retentionTimer.unref();
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
  slotCommands: Handlers<FamilyOf<'slot'>> | null = null;
  /** Cluster mode: keeps a broadcast's answer to what this shard owns (copies in flight are not listed twice). */
  broadcastFilter: ((command: Command, result: unknown) => unknown) | null = null;

  /** The names of every command with a handler (a unit test holds them against the command table). */
  get handledTypes(): string[] {
    return Object.keys(this.handlers);
  }

  dispatch<K extends CommandType>(command: CommandOf<K>, scope: RequestScope): Answer<K> {
    const type: CommandType = command.type;
    this.commands.set(type, (this.commands.get(type) ?? 0) + 1);
    let result = runHandler(this.handlers, command, scope);
    if (this.broadcastFilter && LISTINGS.has(type)) result = this.filtered(command, result) as Answer<K>;
    const kind = feedKind(type);
    // The inbox actor notes the inboxes it changed itself; account-wide kinds are noted here.
    if (kind !== null && kind !== 'inbox' && 'accountId' in command) {
      const accountId = command.accountId;
      Promise.resolve(result).then(() => this.feed.note(accountId, { kind }), () => undefined);
    }
    return result;
  }

  /** The handler of a slot command, given once cluster mode installed slotCommands; `_type` names K. */
  private slot<K extends FamilyOf<'slot'>>(_type: K): Handler<K> {
    return (command, scope) => {
      if (!this.slotCommands) throw new Error('slot commands need cluster mode');
      return runHandler(this.slotCommands, command, scope);
    };
  }

  private filtered(command: Command, result: unknown): unknown {
    return result instanceof Promise ? result.then((r) => this.broadcastFilter!(command, r)) : this.broadcastFilter!(command, result);
  }

  stats(): ShardStats {
    return {
      shard: this.ctx.shardId,
      parked_waiters: this.ctx.waiters.size + this.feed.size + this.sessionEvents.size,
      inboxes: this.ctx.store.inboxes.count(),
      messages: this.ctx.store.messages.count(),
      oauth_records: this.oauth.records,
      open_sessions: this.accounts.openSessions,
      commands: Object.fromEntries(this.commands),
      reclaim_pending: this.inboxes.reclaimer.pending,
      ...(this.replicationLag ? { replication: this.replicationLag() } : {}),
    };
  }

  /** Graceful stop: answer parked waiters, then flush and close LMDB. */
  async close(): Promise<void> {
    clearInterval(this.purger);
    clearInterval(this.retentionTimer);
    await this.retention.stop();
    this.ctx.waiters.drain();
    this.feed.drain();
    this.sessionEvents.drain();
    this.accounts.flush();
    await this.inboxes.reclaimer.close();
    await this.webhooks.stop();
    await this.ctx.store.close();
  }
}
