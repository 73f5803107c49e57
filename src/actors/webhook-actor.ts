// WebhookActor: webhooks live with the inbox they watch. A delivery writes its outbox entry in the
// same transaction as the message, so a restart resumes every pending notification; this actor
// then sends them, retries on the configured schedule, and disables a webhook after 10
// consecutive failed notifications (DESIGN §5).
import type { DueKey, OutboxEntry, OutboxTarget } from '../storage/outbox-store.js';
import { slotOf } from '../cluster/slots.js';
import { randomHex } from '../util/ids.js';
import { HttpsSender, type AttemptResult } from '../webhooks/https-sender.js';
import { newMessageBody, serviceSignature, signedHeaders } from '../webhooks/payload.js';
import type { FamilyOf, Handlers } from '../contract/command-table.js';
import type { ActorContext } from './context.js';
import { SenderShares } from './sender-shares.js';
import { OpenedKeys } from './opened-keys.js';
import { DELIVERY_LOG_SIZE, deliveryLog, dropInboxWebhooks, listWebhooks, registerWebhook, rekeyWebhooks, removeWebhook } from './webhook-registry.js';
import type { DeliveryLog, MessageRecord } from '../contract/model.js';

export const MAX_CONSECUTIVE_FAILURES = 10;
const JITTER = 0.2;

/** One target of an outbox entry on its way, with where it goes and the key that signs it. */
interface Send {
  target: OutboxTarget;
  url: string;
  apiKey: string;
}

/**
 * An outbox entry being sent: its targets go out together and it leaves the outbox once each has
 * been attempted and logged. Until then the pump skips it, so no target is sent twice.
 */
interface Sending {
  at: DueKey;
  entry: OutboxEntry;
  /** Event ids of the targets attempted and logged, or dropped (their webhook gone or disabled). */
  done: Set<string>;
  /** Targets sent whose outcome is not yet committed. */
  outstanding: number;
  /** The account whose inbox the entry's webhooks watch: its share of the senders counts them. */
  accountId: string;
}

export class WebhookActor {
  /** Entries being sent, by their own event id. */
  private readonly sending = new Map<string, Sending>();
  /** Attempts in flight, shared fairly across accounts. */
  private readonly shares = new SenderShares();
  /** Inboxes that have (or had, since start) a webhook: a delivery to any other skips the index. */
  private watched: Set<string> | null = null;
  private sender: HttpsSender | null = null;
  private readonly openedKeys: OpenedKeys;
  private timer: NodeJS.Timeout | null = null;
  private pumpQueued = false;
  /** Nothing is sent before start(): a delivery's pump waits for it. */
  private started = false;
  /** Attempts finished in this turn, logged together. */
  private outcomes: { sending: Sending; target: OutboxTarget; result: AttemptResult }[] = [];
  private stopped = false;
  /** Run after a delivery attempt is logged (the account's change feed: the log and status moved). */
  readonly attempted: ((accountId: string) => void)[] = [];

  /** `inboxOwner`: the inbox actor's answer to "whose inbox is this?" (its records are its own). */
  constructor(private readonly ctx: ActorContext, private readonly inboxOwner: (address: string) => string | null) {
    this.openedKeys = new OpenedKeys(ctx.sealer);
  }

  private get webhooks() {
    return this.ctx.store.webhooks;
  }
  private get outbox() {
    return this.ctx.store.outbox;
  }

  /** The webhook actor's part of the dispatch table (src/contract/command-table.ts). */
  readonly handlers: Handlers<FamilyOf<'webhook'>> = {
    'webhook.register': (cmd) => registerWebhook(this.ctx, cmd, this.inboxOwner, () => this.watchedInboxes()),
    'webhook.list': (cmd) => listWebhooks(this.ctx, cmd.accountId, cmd.all),
    'webhook.delete': (cmd) => removeWebhook(this.ctx, cmd.accountId, cmd.id),
    'webhook.deliveries': (cmd) => deliveryLog(this.ctx, cmd.accountId, cmd.id),
    'webhook.rekey': (cmd) => rekeyWebhooks(this.ctx, cmd.accountId, cmd.key),
  };

  /**
   * Inside a transaction: the inbox is gone, and so are its webhooks. Pending outbox entries of a
   * removed webhook are dropped when reached.
   */
  dropInbox(address: string): void {
    dropInboxWebhooks(this.ctx, address);
  }

  private watchedInboxes(): Set<string> {
    this.watched ??= this.webhooks.watchedInboxes();
    return this.watched;
  }

  /** Inside the delivery transaction: one outbox entry for the message, to every active webhook of the inbox. */
  enqueue(message: MessageRecord): void {
    if (!this.watchedInboxes().has(message.inbox)) return;
    const slot = slotOf(message.inbox); // a webhook and its outbox entries live in its inbox's slot
    const targets: OutboxTarget[] = [];
    for (const id of this.webhooks.idsForInbox(message.inbox)) {
      const w = this.webhooks.get(id, slot);
      if (w && !w.disabled) targets.push({ webhook_id: w.id, event_id: `evt_${randomHex(12)}` });
    }
    if (targets.length === 0) return;
    this.outbox.put(this.ctx.now(), { event_id: `evt_${randomHex(12)}`, body: newMessageBody(message), attempt: 0, targets }, slot);
  }

  /** Cluster mode: whether this shard is the primary of an inbox's slot, the one that sends its notifications. */
  sendsFor: ((inbox: string) => boolean) | null = null;
  /** Cluster mode with REPLICATION_ACK=all: resolves once the followers hold what is written now. */
  replicated: (() => Promise<void> | null) | null = null;

  /**
   * Whether this shard sends for some slot may have changed (cluster mode: the map moved). The pump
   * read past the entries it held back then, so it reads the whole due index again: an entry held
   * back longer than the rescan margin would otherwise never go (a shard promoted below its
   * minimum in-sync copies, writable again once a new copy caught up).
   */
  sendsChanged(): void {
    this.shares.reset();
    this.schedule(0);
  }

  /** Webhooks and outbox entries arrived with a slot: index them again and send what is due. */
  reload(): void {
    this.watched = null;
    this.sendsChanged();
  }

  /** Starts (or resumes after a restart) sending whatever the outbox holds. */
  start(): void {
    this.started = true;
    this.schedule(0);
  }

  /** Pumps the outbox now (on the next turn: the commits and settles of this one make one pump), or after `delayMs`. */
  schedule(delayMs: number): void {
    if (this.stopped || !this.started) return;
    if (delayMs <= 0) {
      if (!this.pumpQueued) {
        this.pumpQueued = true;
        setImmediate(() => {
          this.pumpQueued = false;
          if (!this.stopped) this.pump();
        });
      }
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.pump();
    }, delayMs);
  }

  /**
   * Sends due entries, each account up to its share of the senders (sender-shares.ts): entries it
   * passed over before come first, then what the due index holds past where it read last.
   */
  private pump(): void {
    const now = this.ctx.now();
    let nextDue = Infinity;
    const batch: { sending: Sending; sends: Send[] }[] = [];
    const drop: DueKey[] = [];
    // An account's key is read and compared once per pump, not per target.
    const keys = new Map<string, string | undefined>();
    const keyOf = (accountId: string) => {
      if (!keys.has(accountId)) keys.set(accountId, this.openedKeys.open(accountId, this.webhooks.sealedKey(accountId)));
      return keys.get(accountId);
    };
    const take = (due: DueKey) => {
      const taken = this.take(due, keyOf);
      if (taken === 'drop') drop.push(due);
      else if (taken !== null) {
        // In flight from now: the scan below reads an entry resumed above again (it re-reads the
        // last second), and must skip it.
        this.sending.set(taken.sending.entry.event_id, taken.sending);
        batch.push(taken);
      }
    };
    const { shares } = this;
    for (const due of shares.resumable()) take(due);
    // Keys first: an entry already in flight or passed over is skipped without reading its body.
    for (const due of this.outbox.dueKeys(shares.scanFrom())) {
      if (due.dueMs > now) {
        nextDue = due.dueMs;
        break;
      }
      if (shares.full || shares.saturated) break; // a finishing attempt pumps again
      if (!this.sending.has(due.eventId) && !shares.isDeferred(due.eventId)) take(due);
      shares.scannedTo(due);
    }
    for (const d of drop) this.outbox.remove(d);
    if (nextDue !== Infinity) this.schedule(Math.max(1, nextDue - now));
    if (batch.length === 0) return;
    // Notify only of acknowledged mail: with followers, once they hold the entries too (a primary
    // that died before that would have announced a message its successor never had).
    this.afterReplicated(() => this.send(this.stillSent(batch), now));
  }

  /**
   * What of a batch this shard still sends once its followers were waited for: the slot may have
   * gone meanwhile (a failover, a move's switch), and a barrier that failed is waited for again
   * without another look. An entry it no longer sends leaves flight here; the slot's primary sends it.
   */
  private stillSent(batch: { sending: Sending; sends: Send[] }[]): { sending: Sending; sends: Send[] }[] {
    const sendsFor = this.sendsFor;
    if (!sendsFor) return batch;
    return batch.filter(({ sending, sends }) => {
      const ours = sends.every((s) => {
        const webhook = this.webhooks.get(s.target.webhook_id, sending.at.slot);
        return webhook !== undefined && sendsFor(webhook.inbox);
      });
      if (!ours) {
        this.sending.delete(sending.entry.event_id);
        this.shares.finished(sending.accountId, sends.length);
      }
      return ours;
    });
  }

  /** Runs `go` once the followers in sync hold what is logged now; a barrier that failed is tried again. */
  private afterReplicated(go: () => void): void {
    const replicated = this.replicated?.() ?? null;
    if (!replicated) return go();
    replicated.then(go, () => setTimeout(() => this.afterReplicated(go), 500).unref());
  }

  /**
   * One due entry: its sends, counted against its account's share; 'drop' when nothing is left to
   * send; null when it waits (its account's share is in flight: deferred) or is a follower's copy.
   */
  private take(due: DueKey, keyOf: (accountId: string) => string | undefined): { sending: Sending; sends: Send[] } | 'drop' | null {
    const entry = this.outbox.get(due);
    if (!entry) return null;
    const sending: Sending = { at: due, entry, done: new Set(), outstanding: 0, accountId: '' };
    const sends: Send[] = [];
    for (const target of entry.targets) {
      const webhook = this.webhooks.get(target.webhook_id, due.slot);
      // A follower's copy of the outbox waits: the slot's primary sends it (DESIGN.md §8).
      if (webhook && this.sendsFor && !this.sendsFor(webhook.inbox)) return null;
      const apiKey = webhook && !webhook.disabled ? keyOf(webhook.account_id) : undefined;
      // Deleted or disabled since it was queued: nothing to send.
      if (!webhook || apiKey === undefined) sending.done.add(target.event_id);
      else {
        sends.push({ target, url: webhook.url, apiKey });
        sending.accountId = webhook.account_id;
      }
    }
    if (sends.length === 0) return 'drop';
    if (!this.shares.mayStart(sending.accountId)) {
      this.shares.defer(due, sending.accountId);
      return null;
    }
    sending.outstanding = sends.length;
    this.shares.started(sending.accountId, sends.length);
    return { sending, sends };
  }

  // Signed inline: two HMACs of a small body cost a few µs, a pool round trip far more
  // (DESIGN §3: the pool only where a measurement shows it pays; here it did not). An entry's
  // targets share its body and their account's key, so X-Service-Signature is computed once.
  private send(batch: { sending: Sending; sends: Send[] }[], now: number): void {
    this.sender ??= new HttpsSender(this.ctx.config);
    for (const { sending, sends } of batch) {
      const body = sending.entry.body;
      let signedWith = '';
      let signature = '';
      for (const s of sends) {
        if (s.apiKey !== signedWith) {
          signedWith = s.apiKey;
          signature = serviceSignature(body, s.apiKey);
        }
        const headers = signedHeaders(s.target.event_id, body, s.apiKey, now, signature);
        void this.sender.post(s.url, headers, body).then((result) => this.record(sending, s.target, result));
      }
    }
  }

  /** Logs an attempt's outcome; the attempts that finish in one turn share one transaction. */
  private record(sending: Sending, target: OutboxTarget, result: AttemptResult): void {
    this.outcomes.push({ sending, target, result });
    if (this.outcomes.length === 1) setImmediate(() => this.recordOutcomes());
  }

  private recordOutcomes(): void {
    const outcomes = this.outcomes;
    this.outcomes = [];
    // Stopping: the store may be closed. The entries stay in the outbox and go again after a
    // restart, under the same webhook-id.
    if (this.stopped) return;
    const accounts = new Set<string>();
    const touched = new Set<Sending>();
    let retryInMs = 0;
    this.ctx.store.transaction(() => {
      for (const { sending, target, result } of outcomes) {
        const accountId = this.recordOne(sending, target, result);
        if (accountId !== null) accounts.add(accountId);
        sending.done.add(target.event_id);
        touched.add(sending);
      }
      // An entry leaves the outbox once every target is logged; until then it keeps the others,
      // so a restart sends only those again.
      for (const sending of touched) {
        const { at, entry, done } = sending;
        const left = entry.targets.filter((target) => !done.has(target.event_id));
        if (left.length === 0) this.outbox.remove(at);
        else if (left.length < entry.targets.length) this.outbox.put(at.dueMs, { ...entry, targets: left }, at.slot);
      }
    }).then(
      () => {
        for (const accountId of accounts) for (const hook of this.attempted) hook(accountId);
      },
      // Not logged (the store refused the write): the targets stay in the outbox and go again
      // shortly, rather than in a tight loop.
      () => {
        retryInMs = 1000;
        for (const { sending, target } of outcomes) sending.done.delete(target.event_id);
      },
    ).finally(() => {
      // Out of flight only once the outbox no longer holds them, so a pump never sends one twice.
      for (const { sending } of outcomes) {
        if (--sending.outstanding === 0) this.sending.delete(sending.entry.event_id);
        this.shares.finished(sending.accountId, 1);
      }
      this.schedule(retryInMs);
    });
  }

  /** Inside a transaction: the outcome of one attempt; the webhook's account, or null if it is gone. */
  private recordOne(sending: Sending, target: OutboxTarget, result: AttemptResult): string | null {
    const delays = this.ctx.config.webhookRetryDelaysMs;
    const now = this.ctx.now();
    const { at, entry } = sending;
    const webhook = this.webhooks.get(target.webhook_id, at.slot);
    if (!webhook) return null;
    const logged: DeliveryLog = { at: new Date(now).toISOString(), status: result.status, latency_ms: result.latency_ms, error: result.error };
    this.webhooks.logDelivery(webhook.id, now, target.event_id, entry.attempt, logged, DELIVERY_LOG_SIZE, at.slot);
    if (result.ok) {
      if (webhook.failure_count !== 0) this.webhooks.update({ ...webhook, failure_count: 0 });
      return webhook.account_id;
    }
    const attempt = entry.attempt + 1;
    if (attempt <= delays.length) {
      // Exponential schedule from config, ±20 % jitter so retries of many events spread out.
      const base = delays[attempt - 1]!;
      const jittered = Math.round(base * (1 - JITTER + Math.random() * 2 * JITTER));
      this.outbox.put(now + jittered, { event_id: target.event_id, body: entry.body, attempt, targets: [target] }, at.slot);
      return webhook.account_id;
    }
    const failures = webhook.failure_count + 1;
    this.webhooks.update({ ...webhook, failure_count: failures, disabled: failures >= MAX_CONSECUTIVE_FAILURES });
    return webhook.account_id;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.sender?.close();
  }
}
