// What a shard answers besides records and views: admission decisions, wait outcomes, issued
// tokens, shard stats; and the one method the rpc server needs from whatever executes commands.
import type { CancelSignal } from '../util/cancel.js';
import type { Sink } from '../util/sink.js';
import type { Command } from './commands.js';
import type { KeyScope } from './keys.js';
import type { AccountView, MessageSummary } from './model.js';
import type { Account, StorageUsage } from './shapes.js';

export interface RateState {
  limit: number;
  remaining: number;
  reset_s: number;
}

export interface Admission {
  account: AccountView;
  /** The account's credential generation: bumped by every key rotation (sessions carry it). */
  generation: number;
  rate: RateState;
  /** A scoped credential's limits (a scoped key, or a token one granted); absent: the whole account. */
  scope?: KeyScope;
  /** Present for tool calls: the credits left after this one. */
  credits_left?: number;
  /** Admissions granted in advance to the front that asked (already counted by the shard). */
  lease?: AdmissionLease;
}

/**
 * A block of an account's per-minute requests (or tool ops and credits) that the shard counted in
 * advance for one front, which spends it on the same credential's next requests without a round
 * trip. `rate.remaining` and `credits_left` of the admission that carries it leave the lease out.
 */
export interface AdmissionLease {
  admissions: number;
  credits: number;
  /** The shard's window and month, handed back with what is unspent. */
  minute: number;
  month: string;
  /** Milliseconds left in the shard's minute window when it answered. */
  window_ms: number;
}

/**
 * Which recipients a delivery reached (all under one message id), which already held the message
 * (the same ingest digest: nothing stored again) and which inboxes were gone.
 */
export interface DeliverResult {
  id: string;
  delivered: string[];
  duplicates: string[];
  gone: string[];
  /** Inboxes at their plan's message limit: nothing stored for them (absent from older shards). */
  full?: string[];
}

/** An account's storage in one slot of one shard (`inbox.usage`); the front sums them. */
export type { StorageUsage } from './shapes.js';

/** The rows of `inbox.usage`: one per slot. */
export type SlotUsage = StorageUsage & { slot: number };

/** `inbox.accepts` with `quota`: the owner and how full the inbox is. */
export interface InboxQuota {
  account_id: string;
  messages: number;
  bytes: number;
}

/** Sums per-slot rows from every shard into the account's usage. */
export function sumUsage(rows: Iterable<StorageUsage>): StorageUsage {
  const total = { inboxes: 0, messages: 0, bytes: 0 };
  for (const r of rows) {
    total.inboxes += r.inboxes;
    total.messages += r.messages;
    total.bytes += r.bytes;
  }
  return total;
}

/**
 * A wait answers with the summary: the front never receives (and trims) a whole message. `cursor`
 * is where the next wait starts: the message's id, or on a timeout the position waited from.
 */
export type WaitResult = { timed_out: false; message: MessageSummary; cursor: string } | { timed_out: true; message: null; cursor: string };

/** One event of a resumable agent-tool stream: its number on the stream and its JSON-RPC message. */
export interface StreamEvent {
  seq: number;
  data: string;
}

/** A resumable stream's events after the client's Last-Event-ID; `done`: the stream's answer is among what it held. */
export interface StreamEvents {
  events: StreamEvent[];
  done: boolean;
}

/** An account's plan limits and what it used of them: GET /v1/account less what the front adds. */
export type AccountUsage = Omit<Account, 'id' | 'usage' | 'sessions_open'>;

/** Where a follower's copy of a slot stands (replication), with the snapshot bytes it received. */
export interface SlotPosition {
  epoch: number;
  seq: number;
  copied_bytes: number;
}

export interface IssuedTokens {
  scope: string;
  expires_in: number;
  /** False for the client-credentials grant: it issues no refresh token (RFC 6749 §4.4.3). */
  refresh?: boolean;
}

export interface ShardStats {
  shard: number;
  parked_waiters: number;
  inboxes: number;
  messages: number;
  /** OAuth codes and tokens stored (expired ones go at the next purge). */
  oauth_records: number;
  /** Agent-tool sessions counted on this shard. */
  open_sessions: number;
  /** Commands dispatched since start, by type: shows from outside what work a request caused. */
  commands: Record<string, number>;
  /** Deleted inboxes whose messages are still being removed (absent from shards of an earlier version). */
  reclaim_pending?: number;
  /** Cluster mode: each slot copy this shard feeds as primary, with its lag in oplog entries (-1: copy in progress). */
  replication?: { slot: number; follower: string; lag: number }[];
}

/**
 * What an account's shard pushes to every front when the account changes (DESIGN §7), or when one
 * of its agent-tool sessions ends: any front may hold a copy of it.
 */
export interface AccountNotice {
  account_id: string;
  kind: 'rotated' | 'plan' | 'session_closed' | 'key_revoked';
  /** The account's credential generation after the change; for `key_revoked`, the key's new generation (deleted: the largest). */
  generation: number;
  /** The session that ended (kind `session_closed`); empty otherwise. */
  session_id: string;
  /** The scoped key rotated or deleted (kind `key_revoked`): its credentials, tokens and sessions end. */
  key_id?: string;
}

/** What changed for an account on one shard (the dashboard's event stream, account-feed.ts). */
export interface Change {
  kind: 'inbox' | 'domains' | 'webhooks';
  /** The inbox, for kind 'inbox'. */
  inbox?: string;
}

/** The answer to `feed.watch`: the shard's cursor and the account's changes since the caller's. */
export interface ChangesAnswer {
  epoch: string;
  seq: number;
  /** The caller missed changes it cannot be told about: it reloads what it shows. */
  reset: boolean;
  changes: Change[];
}

/** Per-request facts the dispatcher hands an actor: the caller may cancel a long-poll. */
export interface RequestScope {
  readonly signal: CancelSignal;
  readonly deadline: number;
  /**
   * Where a parked request's answer goes. An actor that parks hands it to the waiter and returns
   * ANSWERED_LATER, so a parked long-poll keeps no promise; without it the actor returns a promise.
   */
  readonly reply?: Sink;
}

/** An actor's result meaning "the answer goes to scope.reply when it comes". */
export const ANSWERED_LATER: unique symbol = Symbol('answered later');

/** What executes commands on a shard (the actors); the rpc server depends on this alone. */
/** Replication's hold on answers (DESIGN.md §8): a command that wrote is answered after its followers applied it. */
export interface Durability {
  /** Oplog entries written so far: a change across a command means it wrote. */
  readonly writes: number;
  /** Resolves once every live follower applied what is logged now; null when nothing waits. */
  barrier(): Promise<void> | null;
}

export interface CommandDispatcher {
  dispatch(command: Command, scope: RequestScope): unknown;
  /** Cluster mode with MAILCUE_REPLICATION_ACK=all. */
  readonly durability?: Durability | null;
  /** Rotations and plan changes, told after they commit (the server pushes them to every front). */
  onAccountChange?(listener: (notice: AccountNotice) => void): void;
}
