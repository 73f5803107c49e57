// Message operations shared by REST and the agent tools, including the long-poll wait that parks
// on the shard owning the inbox.
import type { MessageListQuery, WaitMatch } from '../contract/commands.js';
import type { WaitResult } from '../contract/results.js';
import type { MessageRecord, MessageSummary } from '../contract/model.js';
import { fail } from '../errors/registry.js';
import type { AttachmentContent } from '../mail/parse-mail.js';
import type { CancelSignal } from '../util/cancel.js';
import { detached } from '../util/detached.js';
import { promised, type Sink } from '../util/sink.js';
import type { Caller, Deps } from './deps.js';
import { requireInbox, withinScope } from './scope.js';

/** Extra time the front waits for a shard's long-poll answer beyond the wait itself. */
const WAIT_MARGIN_MS = 5_000;
/** A raw source is up to MAILCUE_MAX_MESSAGE_BYTES, queued in parts behind others' on a busy channel. */
const RAW_READ_TIMEOUT_MS = 60_000;

/** Paging and search of a message list: older than `before`, matching `query`. */
export interface ListFilter {
  before?: string | null;
  query?: string | null;
}

function listQuery(caller: Caller, address: string, limit: number, unreadOnly: boolean, filter: ListFilter): MessageListQuery {
  return { accountId: caller.accountId, address, limit, unreadOnly, before: filter.before ?? null, query: filter.query ?? null };
}

export function listMessages(deps: Deps, caller: Caller, address: string, limit: number, unreadOnly: boolean, filter: ListFilter = {}): Promise<MessageSummary[]> {
  return withinScope(deps, caller, address, 'read', () => deps.cluster.call({ type: 'message.list', ...listQuery(caller, address, limit, unreadOnly, filter) }));
}

/** listMessages() as REST answers it: JSON text of `{count, data}`, built on the shard. */
export function listMessagesJson(deps: Deps, caller: Caller, address: string, limit: number, unreadOnly: boolean, filter: ListFilter = {}): Promise<string> {
  return withinScope(deps, caller, address, 'read', () => deps.cluster.call({ type: 'message.list_view', ...listQuery(caller, address, limit, unreadOnly, filter) }));
}

/** The newest message's view for get_latest_email (src/mail/message-view.ts), as JSON text, or null when the inbox is empty. */
export function latestMessageJson(deps: Deps, caller: Caller, address: string, includeRaw: boolean): Promise<string | null> {
  return withinScope(deps, caller, address, 'read', () => deps.cluster.call({ type: 'message.latest_view', accountId: caller.accountId, address, includeRaw }));
}

export { fullMessageView } from '../mail/message-view.js';

export function getMessage(deps: Deps, caller: Caller, address: string, id: string, markRead = true): Promise<MessageRecord> {
  // A read-only key leaves the message as it found it.
  const mark = markRead && !caller.scope?.read_only;
  return withinScope(deps, caller, address, 'read', () => deps.cluster.call({ type: 'message.get', accountId: caller.accountId, address, id, markRead: mark }));
}

export function rawMessage(deps: Deps, caller: Caller, address: string, id: string): Promise<Uint8Array> {
  return withinScope(deps, caller, address, 'read', () => deps.cluster.call({ type: 'message.raw', accountId: caller.accountId, address, id }, { timeoutMs: RAW_READ_TIMEOUT_MS }));
}

/** The attachment as stored at ingest; a message stored before parts were kept has it cut from its raw source. */
export async function messageAttachment(deps: Deps, caller: Caller, address: string, id: string, index: number): Promise<AttachmentContent> {
  const stored = await deps.cluster.call({ type: 'message.attachment', accountId: caller.accountId, address, id, index }, { timeoutMs: RAW_READ_TIMEOUT_MS });
  if (stored) return stored;
  const raw = await rawMessage(deps, caller, address, id);
  const attachment = await deps.pool.attachment(raw, index);
  if (!attachment) fail('attachment_not_found', `Message ${id} has no attachment ${index}`);
  return attachment;
}

export function deleteMessage(deps: Deps, caller: Caller, address: string, id: string): Promise<{ id: string }> {
  return withinScope(deps, caller, address, 'write', () => deps.cluster.call({ type: 'message.delete', accountId: caller.accountId, address, id }));
}

export interface WaitOptions {
  since: string | null;
  timeoutMs: number;
  match: WaitMatch;
  signal?: CancelSignal;
}

/** Holds until a matching message arrives on the inbox's shard or the timeout passes. */
export function waitForMessage(deps: Deps, caller: Caller, address: string, options: WaitOptions): Promise<WaitResult> {
  return promised<WaitResult>((sink) => parkWait(deps, caller, address, options, sink));
}

/**
 * waitForMessage() for a caller that keeps its own record of the parked request: the outcome goes
 * to `sink`, and while the shard holds the waiter the front holds that record and nothing else.
 */
export function parkWait(deps: Deps, caller: Caller, address: string, options: WaitOptions, sink: Sink): void {
  if (caller.scope) {
    // A scoped caller's inbox is checked first; its account id is copied, as below.
    const unscoped = { accountId: caller.accountId };
    requireInbox(deps, caller, address, 'read').then(() => parkWait(deps, unscoped, address, options, sink), (err: Error) => sink.reject(err));
    return;
  }
  // The command is kept while the wait is parked (a resend after failover needs it), so the
  // account id is copied out of its admission reply; `address` is kept as given.
  deps.cluster.submit(
    { type: 'message.wait', accountId: detached(caller.accountId), address, since: options.since, match: options.match, timeoutMs: options.timeoutMs },
    { signal: options.signal, timeoutMs: options.timeoutMs + WAIT_MARGIN_MS },
    sink,
  );
}
