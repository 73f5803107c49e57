// InboxActor: an inbox, its messages and their raw sources, and the long-polls parked on it.
// Delivery commits the message, then wakes the waiters of that inbox on this same shard.
import { fail, MailcueError } from '../errors/registry.js';
import { answersAuthWait, type Authentication } from '../contract/authentication.js';
import { newMessageId } from '../util/ids.js';
import { latestMessageView } from '../mail/message-view.js';
import type { MessageListQuery } from '../contract/commands.js';
import { runHandler, type Answer, type CommandOf, type FamilyOf, type Handlers } from '../contract/command-table.js';
import type { ActorContext } from './context.js';
import type { DeliverResult, RequestScope } from '../contract/results.js';
import { toInboxView, toSummary, type InboxRecord, type InboxView, type MessageRecord, type MessageSummary } from '../contract/model.js';
import { InboxReclaimer } from './inbox-reclaimer.js';
import { listAll, listPage } from './inbox-listing.js';
import { quotaOf, setPlan, usageBySlot, withoutMessages } from './inbox-storage.js';
import { newestMessage, waitForMail } from './inbox-waits.js';

type InboxFamily = FamilyOf<'inbox'> | FamilyOf<'message'>;

/** DESIGN §7 "Reserved addresses": an address freed by deletion stays with its last owner this long. */
export const FREED_ADDRESS_HOLD_MS = 30 * 86_400_000;
/**
 * Messages a filtered list (`q`, or `unread_only` with `q`) reads at most per request: a search
 * of a large inbox answers what it found so far and where to go on (`next_before`), so its cost
 * stays flat however large the inbox grows (issue 37).
 */
export const LIST_SCAN_MAX = 200;

export class InboxActor {
  /** Run inside the delivery transaction (the webhook outbox commits with the message). */
  readonly inTransaction: ((message: MessageRecord) => void)[] = [];
  /** Run after a delivery has committed. */
  readonly afterCommit: ((message: MessageRecord) => void)[] = [];
  /** Run inside the transaction that removes an inbox. */
  readonly inboxDropped: ((address: string) => void)[] = [];
  /** Run after an inbox's record or counts changed (the account's change feed). */
  readonly changed: ((accountId: string, address: string) => void)[] = [];

  /** Removes deleted inboxes' messages in bounded batches (inbox-reclaimer.ts). */
  readonly reclaimer: InboxReclaimer;

  constructor(private readonly ctx: ActorContext) {
    this.reclaimer = new InboxReclaimer(ctx.store);
  }

  /** The inbox actor's part of the dispatch table (src/contract/command-table.ts). */
  readonly handlers: Handlers<InboxFamily> = {
    'inbox.create': (cmd) => this.create(cmd),
    'inbox.creator': (cmd) => this.owned(cmd.accountId, cmd.address).created_by ?? null,
    'inbox.update': (cmd) => this.update(cmd.accountId, cmd.address, cmd.requireAuth, cmd.retention),
    'inbox.get': (cmd) => toInboxView(this.owned(cmd.accountId, cmd.address)),
    'inbox.delete': (cmd) => this.remove(cmd.accountId, cmd.address),
    'inbox.list': (cmd) => (cmd.limit === undefined ? listAll(this.ctx, cmd.accountId, cmd.only) : listPage(this.ctx, cmd.accountId, cmd.after ?? null, cmd.limit, cmd.only)),
    'inbox.delete_by_domain': (cmd) => this.removeDomain(cmd.accountId, cmd.domain),
    'inbox.accepts': (cmd) => (cmd.quota ? quotaOf(this.ctx.store.inboxes.get(cmd.address)) : this.ownerOf(cmd.address)),
    'inbox.usage': (cmd) => usageBySlot(this.ctx.store, cmd.accountId),
    'inbox.set_plan': (cmd) => setPlan(this.ctx.store, cmd.accountId, cmd.plan),
    'inbox.deliver': (cmd) => this.deliver(cmd),
    'message.list': (cmd) => this.listMessages(cmd).data,
    'message.list_view': (cmd) => {
      // `next_before` only where more may follow: a list that holds everything keeps its shape.
      const { data, nextBefore } = this.listMessages(cmd);
      return JSON.stringify(nextBefore === null ? { count: data.length, data } : { count: data.length, data, next_before: nextBefore });
    },
    'message.latest': (cmd) => {
      this.owned(cmd.accountId, cmd.address);
      const newest = this.newest(cmd.address);
      if (!newest) return null;
      // The headers stay behind: readers of the latest message want its content, not its route.
      // So do the text and HTML parts unless asked for, when the safe view was stored beside them.
      const { headers: _headers, ...latest } = newest;
      if (cmd.includeRaw || latest.safe_text === undefined) return latest;
      return { ...latest, text: null, html: null };
    },
    'message.latest_view': (cmd) => {
      this.owned(cmd.accountId, cmd.address);
      const newest = this.newest(cmd.address);
      return newest ? JSON.stringify(latestMessageView(newest, cmd.includeRaw)) : null;
    },
    'message.get': (cmd) => this.getMessage(cmd.accountId, cmd.address, cmd.id, cmd.markRead),
    'message.raw': (cmd) => {
      this.message(cmd.accountId, cmd.address, cmd.id);
      return this.ctx.store.messages.raw(cmd.address, cmd.id) ?? fail('message_not_found', `No message ${cmd.id}`);
    },
    'message.attachment': (cmd) => {
      const message = this.message(cmd.accountId, cmd.address, cmd.id);
      const meta = message.attachments[cmd.index];
      if (!meta) fail('attachment_not_found', `Message ${cmd.id} has no attachment ${cmd.index}`);
      const content = this.ctx.store.messages.part(cmd.address, cmd.id, cmd.index);
      return content === undefined ? null : { filename: meta.filename, content_type: meta.content_type, content };
    },
    'message.delete': (cmd) => this.deleteMessage(cmd.accountId, cmd.address, cmd.id),
    'message.wait': (cmd, scope) => waitForMail(this.ctx, cmd, scope, this.owned(cmd.accountId, cmd.address).require_auth ?? false),
    'message.set_auth': (cmd) => this.setAuth(cmd.addresses, cmd.id, cmd.authentication),
  };

  handle<K extends InboxFamily>(cmd: CommandOf<K>, scope: RequestScope): Answer<K> {
    return runHandler(this.handlers, cmd, scope);
  }

  /** The account an inbox belongs to, or null (other actors ask here rather than read inboxes). */
  ownerOf(address: string): string | null {
    return this.ctx.store.inboxes.get(address)?.account_id ?? null;
  }

  /** Another account's inbox answers exactly like a missing one, so addresses do not leak. */
  private owned(accountId: string, address: string): InboxRecord {
    const inbox = this.ctx.store.inboxes.get(address);
    if (!inbox || inbox.account_id !== accountId) fail('inbox_not_found', `Inbox ${address} not found`);
    return inbox;
  }

  private message(accountId: string, address: string, id: string): MessageRecord {
    this.owned(accountId, address);
    const message = this.ctx.store.messages.get(address, id);
    if (!message) fail('message_not_found', `Message ${id} not found in ${address}`);
    return message;
  }

  private async create(cmd: CommandOf<'inbox.create'>): Promise<InboxView> {
    const { store } = this.ctx;
    const { accountId, address } = cmd;
    const record: InboxRecord = {
      address, domain: cmd.domain, account_id: accountId, created_at: new Date(this.ctx.now()).toISOString(), message_count: 0, unread_count: 0,
      require_auth: cmd.requireAuth ?? false, bytes: 0, retention: cmd.retention ?? null, ...(cmd.plan ? { plan: cmd.plan } : {}),
      ...(cmd.createdBy ? { created_by: cmd.createdBy } : {}),
    };
    // The address's previous inbox may still be losing its messages: they go first (a new inbox
    // never shows an old one's mail). Only this request waits; other inboxes' reads go on between batches.
    if (!store.inboxes.get(address) && store.inboxes.tombstones.get(address)) await this.reclaimer.finish(address);
    await store.transaction(() => {
      if (store.inboxes.get(address)) fail('address_taken', `The address ${address} is already taken`);
      if (store.inboxes.tombstones.get(address)) fail('unavailable', `The address ${address} is being freed; try again`);
      const freed = store.inboxes.freed.get(address);
      if (freed && freed.account_id !== accountId && this.ctx.now() - freed.at < FREED_ADDRESS_HOLD_MS) {
        // Mail meant for its last owner (a password reset, a CA's validation) must not reach a stranger.
        fail('address_taken', `The address ${address} was deleted recently and is held for its previous owner until ${new Date(freed.at + FREED_ADDRESS_HOLD_MS).toISOString()}`);
      }
      if (freed) store.inboxes.freed.remove(address);
      store.inboxes.create(record);
    });
    this.noteChange(accountId, address);
    return toInboxView(record);
  }

  /** Policy changes apply to waits that start afterwards; parked ones keep the policy they began with. */
  private async update(accountId: string, address: string, requireAuth: boolean | undefined, retention: number | null | undefined): Promise<InboxView> {
    const { store } = this.ctx;
    return store.transaction(() => {
      const next = { ...this.owned(accountId, address) };
      if (requireAuth !== undefined) next.require_auth = requireAuth;
      if (retention !== undefined) next.retention = retention;
      store.inboxes.update(next);
      return toInboxView(next);
    });
  }

  /** The finished check of a message stored while it ran; require-auth waits may now take it. */
  private async setAuth(addresses: string[], id: string, authentication: Authentication): Promise<{ id: string }> {
    const { store } = this.ctx;
    const updated = await store.transaction(() => {
      const out: { message: MessageRecord; accountId: string }[] = [];
      for (const address of addresses) {
        const current = store.messages.get(address, id);
        const inbox = store.inboxes.get(address);
        // Deleted since it arrived: nothing left to update.
        if (!current || !inbox) continue;
        const message = { ...current, authentication };
        store.messages.put(message);
        out.push({ message, accountId: inbox.account_id });
      }
      return out;
    });
    for (const { message, accountId } of updated) {
      this.ctx.waiters.deliver(message.inbox, message, true);
      this.noteChange(accountId, message.inbox);
    }
    return { id };
  }


  private async remove(accountId: string, address: string): Promise<{ address: string }> {
    const { store } = this.ctx;
    await store.transaction(() => {
      this.owned(accountId, address);
      this.dropInbox(accountId, address);
    });
    this.ctx.waiters.failAll(address, new MailcueError('inbox_not_found', `Inbox ${address} was deleted`));
    this.noteChange(accountId, address);
    this.reclaimer.add(address);
    return { address };
  }

  /**
   * Inside a transaction: the inbox record and its index entry go at once (the API no longer shows
   * it) and a tombstone stays until the reclaimer has removed its messages in bounded batches.
   */
  private dropInbox(accountId: string, address: string): void {
    const { store } = this.ctx;
    store.inboxes.remove(accountId, address);
    store.inboxes.tombstones.put({ address, account_id: accountId, at: this.ctx.now() });
    store.inboxes.freed.put({ address, account_id: accountId, at: this.ctx.now() });
    for (const hook of this.inboxDropped) hook(address);
  }

  private async removeDomain(accountId: string, domain: string): Promise<string[]> {
    const { store } = this.ctx;
    const removed = await store.transaction(() => {
      const addresses = store.inboxes.addressesOf(accountId).filter((address) => address.endsWith(`@${domain}`));
      for (const address of addresses) this.dropInbox(accountId, address);
      return addresses;
    });
    for (const address of removed) {
      this.ctx.waiters.failAll(address, new MailcueError('inbox_not_found', `Inbox ${address} was deleted`));
      this.noteChange(accountId, address);
      this.reclaimer.add(address);
    }
    return removed;
  }

  /**
   * One message to every recipient this shard owns, in one transaction: each inbox gets its
   * record, all under one message id, and the raw source is stored once for all of them (§7).
   * An inbox that already holds a message of the same ingest digest (a sender's retry after a 451
   * or a lost answer, DESIGN.md §8) gets nothing: no copy, no webhook, no wake-up; it still counts
   * as accepted. Its index entry commits with the message, so two racing copies cannot both land.
   */
  private async deliver(cmd: CommandOf<'inbox.deliver'>): Promise<DeliverResult> {
    const { store } = this.ctx;
    const now = this.ctx.now();
    const id = newMessageId(now);
    const date = new Date(now).toISOString();
    const delivered: { message: MessageRecord; accountId: string }[] = [];
    const duplicates: string[] = [];
    const gone: string[] = [];
    const full: string[] = [];
    await store.transaction(() => {
      for (const address of cmd.addresses) {
        const current = store.inboxes.get(address);
        if (!current) {
          gone.push(address);
          continue;
        }
        if (cmd.digest !== undefined && store.messages.byDigest(address, cmd.digest) !== undefined) {
          duplicates.push(address);
          continue;
        }
        // Checked where the count commits, so racing deliveries cannot pass the plan's limit (DESIGN §7).
        const max = cmd.maxMessages?.[address];
        if (max !== undefined && current.message_count >= max) {
          full.push(address);
          continue;
        }
        // Not `{ ...cmd.message, id, … }`: V8 defines each key after a spread through the runtime
        // (docs/development.md; bench/results/history/2026-11-levers.json: 9.8-11.1 against 3.7-3.9 µs to build and pack it).
        const message: MessageRecord = Object.assign({}, cmd.message, { id, inbox: address, date, read: false });
        store.inboxes.update({
          ...current, message_count: current.message_count + 1, unread_count: current.unread_count + 1, bytes: (current.bytes ?? 0) + message.size,
        });
        store.messages.put(message);
        if (cmd.digest !== undefined) store.messages.putDigest(address, id, cmd.digest);
        for (const hook of this.inTransaction) hook(message);
        delivered.push({ message, accountId: current.account_id });
      }
      if (delivered.length > 0) store.messages.putSource(id, cmd.raw, delivered.length, delivered[0]!.message.inbox, cmd.parts);
    });
    for (const { message } of delivered) this.ctx.waiters.deliver(message.inbox, message);
    for (const { message, accountId } of delivered) {
      this.noteChange(accountId, message.inbox);
      for (const hook of this.afterCommit) hook(message);
    }
    return { id, delivered: delivered.map((d) => d.message.inbox), duplicates, gone, full };
  }

  private newest(address: string): MessageRecord | undefined {
    return newestMessage(this.ctx, address);
  }

  /**
   * A page of the inbox's messages, newest first, and where the next one starts (`nextBefore`, to
   * pass as `before`; null when nothing older is left). Unread ones come from their index, so
   * `unread_only` reads only unread messages; a search (`q`) reads at most LIST_SCAN_MAX messages
   * and, when that budget ends the page, says where it stopped.
   */
  private listMessages(cmd: MessageListQuery): { data: MessageSummary[]; nextBefore: string | null } {
    this.owned(cmd.accountId, cmd.address);
    const query = cmd.query ? cmd.query.toLowerCase() : null;
    const before = cmd.before ?? null;
    const { messages } = this.ctx.store;
    const source = cmd.unreadOnly ? messages.unreadNewestFirst(cmd.address, before) : messages.newestFirst(cmd.address, before, query === null ? cmd.limit : undefined);
    const data: MessageSummary[] = [];
    let scanned = 0;
    let last: string | null = null;
    for (const value of source) {
      scanned++;
      last = value.id;
      if (query === null || matches(value, query)) {
        data.push(toSummary(value));
        if (data.length >= cmd.limit) return { data, nextBefore: value.id };
      }
      if (scanned >= LIST_SCAN_MAX) return { data, nextBefore: last };
    }
    return { data, nextBefore: null };
  }

  private noteChange(accountId: string, address: string): void {
    for (const hook of this.changed) hook(accountId, address);
  }

  private async getMessage(accountId: string, address: string, id: string, markRead: boolean): Promise<MessageRecord> {
    const message = this.message(accountId, address, id);
    if (!markRead || message.read) return message;
    const { store } = this.ctx;
    return store.transaction(() => {
      const current = store.messages.get(address, id);
      const inbox = store.inboxes.get(address);
      if (!current || !inbox) fail('message_not_found', `Message ${id} not found in ${address}`);
      if (current.read) return current;
      const next = { ...current, read: true };
      store.messages.put(next);
      store.inboxes.update({ ...inbox, unread_count: Math.max(0, inbox.unread_count - 1) });
      return next;
    }).then((next) => {
      this.noteChange(accountId, address);
      return next;
    });
  }

  private async deleteMessage(accountId: string, address: string, id: string): Promise<{ id: string }> {
    const { store } = this.ctx;
    await store.transaction(() => {
      const message = this.message(accountId, address, id);
      const inbox = store.inboxes.get(address)!;
      store.messages.remove(address, id);
      store.inboxes.update(withoutMessages(inbox, [message]));
    });
    this.noteChange(accountId, address);
    return { id };
  }
}

/** A search over what the message list shows: sender, subject and code. */
function matches(m: MessageRecord, query: string): boolean {
  return m.from.toLowerCase().includes(query) || m.subject.toLowerCase().includes(query) || (m.otp ?? '').includes(query);
}
