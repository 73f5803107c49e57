// WebhookActor: webhooks live with the inbox they watch. A delivery writes its outbox entry in the
// same transaction as the message, so a restart resumes every pending notification; this actor
// then sends them, retries on the configured schedule, and disables a webhook after 10
// consecutive failed notifications (DESIGN §5).
import { fail } from '../errors/registry.js';
import { prefixRange, type Key } from '../storage/shard-store.js';
import { randomHex } from '../util/ids.js';
import { SigningPool } from '../pool/signing-pool.js';
import { HttpsSender, type AttemptResult } from '../webhooks/https-sender.js';
import { newMessageBody } from '../webhooks/payload.js';
import type { WebhookCommand } from './commands.js';
import type { ActorContext } from './context.js';
import type { MessageRecord } from './model.js';

export const MAX_CONSECUTIVE_FAILURES = 10;
const MAX_IN_FLIGHT = 64;
const DELIVERY_LOG_SIZE = 100;
const JITTER = 0.2;

export interface WebhookRecord {
  id: string;
  account_id: string;
  inbox: string;
  url: string;
  created_at: string;
  failure_count: number;
  disabled: boolean;
}

interface OutboxEntry {
  event_id: string;
  webhook_id: string;
  body: string;
  /** Attempts made so far. */
  attempt: number;
}

export interface DeliveryLog {
  at: string;
  status: number | null;
  latency_ms: number;
  error: string | null;
}

export class WebhookActor {
  private readonly inFlight = new Set<string>();
  /** Inboxes that have (or had, since start) a webhook: a delivery to any other skips the index. */
  private watched: Set<string> | null = null;
  private sender: HttpsSender | null = null;
  private readonly signer = new SigningPool();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly ctx: ActorContext) {}

  private get webhooks() {
    return this.ctx.store.db<WebhookRecord>('webhooks');
  }
  private get byInbox() {
    return this.ctx.store.db<number>('webhooks_by_inbox');
  }
  /** [account_id, webhook_id] → 1: an account's webhooks on this shard. */
  private get byAccount() {
    return this.ctx.store.db<number>('webhooks_by_account');
  }
  private get keys() {
    return this.ctx.store.db<Uint8Array>('webhook_keys');
  }
  private get outbox() {
    return this.ctx.store.db<OutboxEntry>('outbox');
  }
  private get log() {
    return this.ctx.store.db<DeliveryLog>('webhook_deliveries');
  }

  handle(cmd: WebhookCommand): unknown {
    switch (cmd.type) {
      case 'webhook.register':
        return this.register(cmd);
      case 'webhook.list':
        return this.list(cmd.accountId, cmd.all);
      case 'webhook.delete':
        return this.remove(cmd.accountId, cmd.id);
      case 'webhook.deliveries':
        return this.deliveries(cmd.accountId, cmd.id);
      case 'webhook.rekey':
        return this.rekey(cmd.accountId, cmd.key);
    }
  }

  private register(cmd: Extract<WebhookCommand, { type: 'webhook.register' }>): Promise<{ created: boolean; webhook: WebhookRecord }> {
    const { store } = this.ctx;
    return store.transaction(() => {
      const inbox = store.inboxes.get(cmd.inbox);
      if (!inbox || inbox.account_id !== cmd.accountId) fail('inbox_not_owned', `The inbox ${cmd.inbox} is not a registered inbox of your account`);
      this.keys.put(cmd.accountId, this.ctx.sealer.seal(cmd.key));
      for (const { key } of this.byInbox.getRange(prefixRange([cmd.inbox]))) {
        const existing = this.webhooks.get((key as string[])[1]!);
        if (existing && existing.url === cmd.url && existing.account_id === cmd.accountId) {
          // Registering again re-activates a disabled webhook with a clean slate.
          const next = { ...existing, disabled: false, failure_count: 0 };
          this.webhooks.put(existing.id, next);
          return { created: false, webhook: next };
        }
      }
      const webhook: WebhookRecord = {
        id: `wh_${randomHex(12)}`, account_id: cmd.accountId, inbox: cmd.inbox, url: cmd.url,
        created_at: new Date(this.ctx.now()).toISOString(), failure_count: 0, disabled: false,
      };
      this.webhooks.put(webhook.id, webhook);
      this.byInbox.put([cmd.inbox, webhook.id], 1);
      this.watchedInboxes().add(cmd.inbox);
      this.byAccount.put([cmd.accountId, webhook.id], 1);
      return { created: true, webhook };
    });
  }

  private list(accountId: string, all: boolean): WebhookRecord[] {
    const out: WebhookRecord[] = [];
    for (const key of this.byAccount.getKeys(prefixRange([accountId]))) {
      const w = this.webhooks.get((key as string[])[1]!);
      if (w && (all || !w.disabled)) out.push(w);
    }
    return out;
  }

  private owned(accountId: string, id: string): WebhookRecord | undefined {
    const w = this.webhooks.get(id);
    return w && w.account_id === accountId ? w : undefined;
  }

  private async remove(accountId: string, id: string): Promise<boolean> {
    return this.ctx.store.transaction(() => {
      const w = this.owned(accountId, id);
      if (!w) return false;
      this.dropWebhook(w);
      return true;
    });
  }

  /** Inside a transaction. Pending outbox entries of a removed webhook are dropped when reached. */
  private dropWebhook(w: WebhookRecord): void {
    this.webhooks.remove(w.id);
    this.byInbox.remove([w.inbox, w.id]);
    this.byAccount.remove([w.account_id, w.id]);
    for (const key of this.log.getKeys(prefixRange([w.id]))) this.log.remove(key);
  }

  /** Inside a transaction: the inbox is gone, and so are its webhooks. */
  dropInbox(address: string): void {
    for (const { key } of this.byInbox.getRange(prefixRange([address]))) {
      const w = this.webhooks.get((key as string[])[1]!);
      if (w) this.dropWebhook(w);
    }
  }

  private deliveries(accountId: string, id: string): DeliveryLog[] | null {
    if (!this.owned(accountId, id)) return null;
    const { start, end } = prefixRange([id]);
    const out: DeliveryLog[] = [];
    for (const { value } of this.log.getRange({ start: end, end: start, reverse: true, limit: DELIVERY_LOG_SIZE })) out.push(value);
    return out;
  }

  private async rekey(accountId: string, key: string): Promise<null> {
    if (this.keys.get(accountId)) await this.keys.put(accountId, this.ctx.sealer.seal(key));
    return null;
  }

  private watchedInboxes(): Set<string> {
    if (!this.watched) {
      this.watched = new Set();
      for (const key of this.byInbox.getKeys({})) this.watched.add((key as string[])[0]!);
    }
    return this.watched;
  }

  /** Inside the delivery transaction: one outbox entry per active webhook of the inbox. */
  enqueue(message: MessageRecord): void {
    if (!this.watchedInboxes().has(message.inbox)) return;
    let body: string | null = null;
    for (const { key } of this.byInbox.getRange(prefixRange([message.inbox]))) {
      const w = this.webhooks.get((key as string[])[1]!);
      if (!w || w.disabled) continue;
      body ??= newMessageBody(message);
      const event_id = `evt_${randomHex(12)}`;
      this.outbox.put([this.ctx.now(), event_id], { event_id, webhook_id: w.id, body, attempt: 0 });
    }
  }

  /** Webhooks and outbox entries arrived with a slot: index them again and send what is due. */
  reload(): void {
    this.watched = null;
    this.schedule(0);
  }

  /** Starts (or resumes after a restart) sending whatever the outbox holds. */
  start(): void {
    this.schedule(0);
  }

  schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.pump();
    }, Math.max(0, delayMs));
  }

  /** Sends every due entry (up to MAX_IN_FLIGHT at once), signed in one batch. */
  private pump(): void {
    const now = this.ctx.now();
    let nextDue = Infinity;
    const batch: { key: Key; entry: OutboxEntry; webhook: WebhookRecord; apiKey: string }[] = [];
    const drop: Key[] = [];
    for (const { key, value } of this.outbox.getRange({})) {
      const due = (key as [number, string])[0];
      if (due > now) {
        nextDue = due;
        break;
      }
      if (this.inFlight.size + batch.length >= MAX_IN_FLIGHT) break; // a finishing attempt pumps again
      if (this.inFlight.has(value.event_id)) continue;
      const webhook = this.webhooks.get(value.webhook_id);
      const sealed = webhook && !webhook.disabled ? this.keys.get(webhook.account_id) : undefined;
      if (!webhook || !sealed) {
        drop.push(key); // deleted or disabled since it was queued
        continue;
      }
      batch.push({ key, entry: value, webhook, apiKey: this.ctx.sealer.open(sealed) });
    }
    for (const key of drop) void this.outbox.remove(key);
    if (nextDue !== Infinity) this.schedule(nextDue - now);
    if (batch.length === 0) return;
    for (const b of batch) this.inFlight.add(b.entry.event_id);
    const settle = (eventId: string, delayMs: number) => {
      this.inFlight.delete(eventId);
      this.schedule(delayMs);
    };
    this.signer.signBatch(batch.map((b) => ({ eventId: b.entry.event_id, body: b.entry.body, key: b.apiKey, now }))).then(
      (signed) => {
        for (const [i, b] of batch.entries()) {
          void this.attempt(b.key, b.entry, b.webhook, signed[i]!).finally(() => settle(b.entry.event_id, 0));
        }
      },
      // The entries stay in the outbox; try again shortly rather than spin.
      () => { for (const b of batch) settle(b.entry.event_id, 1000); },
    );
  }

  private async attempt(key: Key, entry: OutboxEntry, webhook: WebhookRecord, headers: Record<string, string>): Promise<void> {
    this.sender ??= new HttpsSender(this.ctx.config);
    const result = await this.sender.post(webhook.url, headers, entry.body);
    await this.record(key, entry, result);
  }

  private record(key: Key, entry: OutboxEntry, result: AttemptResult): Promise<void> {
    const delays = this.ctx.config.webhookRetryDelaysMs;
    return this.ctx.store.transaction(() => {
      const now = this.ctx.now();
      this.outbox.remove(key);
      const webhook = this.webhooks.get(entry.webhook_id);
      if (!webhook) return;
      this.log.put([webhook.id, now, entry.event_id, entry.attempt], { at: new Date(now).toISOString(), status: result.status, latency_ms: result.latency_ms, error: result.error });
      this.trimLog(webhook.id);
      if (result.ok) {
        if (webhook.failure_count !== 0) this.webhooks.put(webhook.id, { ...webhook, failure_count: 0 });
        return;
      }
      const attempt = entry.attempt + 1;
      if (attempt <= delays.length) {
        // Exponential schedule from config, ±20 % jitter so retries of many events spread out.
        const base = delays[attempt - 1]!;
        const jittered = Math.round(base * (1 - JITTER + Math.random() * 2 * JITTER));
        this.outbox.put([now + jittered, entry.event_id], { ...entry, attempt });
        return;
      }
      const failures = webhook.failure_count + 1;
      this.webhooks.put(webhook.id, { ...webhook, failure_count: failures, disabled: failures >= MAX_CONSECUTIVE_FAILURES });
    });
  }

  private trimLog(webhookId: string): void {
    let n = 0;
    const { start, end } = prefixRange([webhookId]);
    for (const key of this.log.getKeys({ start: end, end: start, reverse: true })) {
      if (++n > DELIVERY_LOG_SIZE) this.log.remove(key);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.sender?.close();
    await this.signer.close();
  }
}
