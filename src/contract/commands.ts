// Every command an actor understands, as a discriminated union. The front tier packs one into an
// envelope and routes it by its row in command-table.ts (which also gives its result type); the
// shard unpacks it and dispatches on `type`.
import type { PlanName } from '../config/plans.js';
import type { Authentication } from './authentication.js';
import type { NewKey } from './keys.js';
import type { ParsedMessage } from './model.js';

/** How a request is metered at admission: REST calls, tool calls, or neither. */
export type Meter =
  | { kind: 'rest' }
  | { kind: 'tool'; credits: number }
  | { kind: 'none' };

/**
 * The unspent part of a front's admission lease, given back to the account's shard, and the agent
 * sessions the lease's admissions marked as active there.
 */
export interface LeaseReturn {
  /** The shard's minute window and UTC month the lease was granted in: older counts are moot. */
  minute: number;
  month: string;
  rest: number;
  ops: number;
  credits: number;
  sessions: string[];
}

/** What any front needs to serve an agent-tool session it did not open. */
export interface SessionTerms {
  transport: 'streamable-http' | 'sse';
  protocolVersion: string;
  /** The account's credential generation at open: a rotation since then ends the session. */
  generation: number;
  /** The scoped key that opened it, as `<key id>:<key generation>`: rotating or deleting the key ends it. */
  key?: string;
  /**
   * The front thread holding a legacy SSE session's stream, as `<process>:<thread>`: a sibling
   * thread of the same process hands its answers over (MAILCUE_FRONT_THREADS).
   */
  holder?: string;
}

export type AccountCommand =
  | { type: 'account.create'; id: string; name: string | null; plan: PlanName; key: string; created_at: string }
  | { type: 'account.get'; accountId: string }
  | { type: 'account.set_plan'; accountId: string; plan: PlanName }
  | { type: 'account.rotate_key'; accountId: string; key: string }
  | {
      type: 'account.admit';
      accountId: string;
      credential: 'api_key' | 'scoped_key' | 'access_token';
      credentialHash: string;
      meter: Meter;
      /** An agent-tool session to mark as active. */
      session?: string;
      /** Admissions this front wants in advance as a lease (DESIGN §7, admission leases). */
      lease?: number;
      /** What this front hands back of its previous lease of the same credential. */
      returned?: LeaseReturn;
    }
  | { type: 'account.lease_return'; accountId: string; returned: LeaseReturn }
  | { type: 'account.session_open'; accountId: string; sessionId: string; idleMs: number; session: SessionTerms }
  /** A session another front opened, for a front that has not seen it yet (null: none open). */
  | { type: 'account.session_find'; accountId: string; sessionId: string }
  | { type: 'account.session_close'; accountId: string; sessionId: string }
  | { type: 'account.sessions'; accountId: string }
  /** Holds one of the account's custom-domain slots; the count is checked here, atomically. */
  | { type: 'account.domain_reserve'; accountId: string; domain: string; max: number }
  | { type: 'account.domain_release'; accountId: string; domain: string }
  | { type: 'account.usage'; accountId: string }
  /**
   * The account's API key sealed under the cluster's master key, for a webhook's signing key: the
   * front passes it to the inbox's shard without being able to read it (the plaintext key never
   * goes to a front; DESIGN §8 "Between tiers").
   */
  | { type: 'account.sealed_key'; accountId: string }
  // Scoped keys (src/actors/account-keys.ts): the front mints ids and secrets and sends hashes.
  | { type: 'account.key_create'; accountId: string; key: NewKey }
  | { type: 'account.key_list'; accountId: string }
  | { type: 'account.key_rotate'; accountId: string; keyId: string; hash: string }
  | { type: 'account.key_delete'; accountId: string; keyId: string }
  /** Holds one of the account's inbox slots against its plan's maxInboxes, atomically; answers the plan. */
  | { type: 'account.inbox_reserve'; accountId: string; address: string }
  /** Gives inbox slots back (the inboxes were deleted, or never created). */
  | { type: 'account.inbox_release'; accountId: string; addresses: string[] }
  /** Keeps only the slots of these inboxes (the ones that exist): slots a crash left behind go. */
  | { type: 'account.inbox_reconcile'; accountId: string; addresses: string[] };

export type InboxCommand =
  /** `createdBy`: the scoped key creating it, which may then use it (KeyScope.created_inboxes). */
  | {
      type: 'inbox.create'; accountId: string; address: string; domain: string; requireAuth?: boolean; createdBy?: string;
      /** The owner's plan (its retention applies here) and the inbox's own shorter retention in seconds. */
      plan?: PlanName; retention?: number | null;
    }
  /** The scoped key that created an owned inbox, or null. */
  | { type: 'inbox.creator'; accountId: string; address: string }
  | { type: 'inbox.update'; accountId: string; address: string; requireAuth?: boolean; retention?: number | null }
  | { type: 'inbox.get'; accountId: string; address: string }
  | { type: 'inbox.delete'; accountId: string; address: string }
  /**
   * The account's inboxes on a shard, oldest first. With `limit`: at most that many, after the page
   * boundary `after` (GET /v1/inboxes pages); without it, all of them (fronts of an earlier version).
   * `only`: a scoped key's view, the listed addresses and the inboxes the key created.
   */
  | { type: 'inbox.list'; accountId: string; limit?: number; after?: InboxPageBoundary | null; only?: { addresses: string[]; createdBy: string | null } }
  | { type: 'inbox.delete_by_domain'; accountId: string; domain: string }
  /** The inbox's owner, or null; with `quota`, `{account_id, messages, bytes}` (storage limits at RCPT). */
  | { type: 'inbox.accepts'; address: string; quota?: boolean }
  /** The account's storage on this shard: per slot, its inboxes, messages and bytes (summed by the front). */
  | { type: 'inbox.usage'; accountId: string }
  /** The account's plan changed: its inboxes on this shard follow (their retention). */
  | { type: 'inbox.set_plan'; accountId: string; plan: PlanName }
  /**
   * One message to the recipients one shard owns (the front groups them): stored once. `digest`
   * identifies it (src/ingress/ingest-digest.ts): an inbox that already holds it stores nothing
   * again (DESIGN.md §8 "Idempotent ingest"); absent from fronts older than that, and then not checked.
   * `parts`: the decoded bytes of the message's attachments, in the order of `message.attachments`,
   * stored beside the source so that a download reads them (absent: none, or an older front).
   */
  | {
      type: 'inbox.deliver'; addresses: string[]; message: ParsedMessage; raw: Uint8Array; digest?: string; parts?: Uint8Array[];
      /** Per address, the most messages its inbox may hold (its plan's); a full inbox takes nothing (`full`). */
      maxMessages?: Record<string, number>;
    }
  /** The sender-authentication result of a message delivered (to these inboxes) while its check still ran. */
  | { type: 'message.set_auth'; addresses: string[]; id: string; authentication: Authentication };

/** Where a page of an account's inboxes ends: the last inbox shown (inboxes list oldest first, then by address). */
export interface InboxPageBoundary {
  created_at: string;
  address: string;
}

/** Which of an inbox's messages a list shows, newest first. */
export interface MessageListQuery {
  accountId: string;
  address: string;
  limit: number;
  unreadOnly: boolean;
  /** Page on: only messages older than this id. */
  before?: string | null;
  /** Only messages whose sender, subject or code contains this (case-insensitive). */
  query?: string | null;
}

/**
 * Which messages answer a wait: any; one with a code or a verification link; one with a code; one
 * with a verification link (wait_for_email's otp_only / link_only).
 */
export type WaitMatch = 'any' | 'code' | 'otp' | 'link';

export type MessageCommand =
  | ({ type: 'message.list' } & MessageListQuery)
  /** The same list as REST answers it: JSON text of `{count, data}`, which the front passes through. */
  | ({ type: 'message.list_view' } & MessageListQuery)
  | { type: 'message.get'; accountId: string; address: string; id: string; markRead: boolean }
  /**
   * The newest record without headers; `includeRaw`: also the text and HTML parts. Answered for
   * fronts of an earlier version during a rolling upgrade; this version asks for `message.latest_view`.
   */
  | { type: 'message.latest'; accountId: string; address: string; includeRaw?: boolean }
  /** The newest message as get_latest_email shows it (src/mail/message-view.ts), JSON text; null when the inbox is empty. */
  | { type: 'message.latest_view'; accountId: string; address: string; includeRaw: boolean }
  | { type: 'message.raw'; accountId: string; address: string; id: string }
  /** Attachment `index` as stored at ingest; null for a message stored before parts were kept (the front cuts it from the raw source). */
  | { type: 'message.attachment'; accountId: string; address: string; id: string; index: number }
  | { type: 'message.delete'; accountId: string; address: string; id: string }
  | {
      type: 'message.wait';
      accountId: string;
      address: string;
      /** Answer with the first message newer than this id; without it, the next one to arrive (the inbox's position now). */
      since: string | null;
      /** 'code': only a message with an otp or a verification link answers; 'otp' / 'link': only one with that. */
      match: WaitMatch;
      timeoutMs: number;
    };

export type DomainCommand =
  | { type: 'domain.add'; accountId: string; domain: string }
  | { type: 'domain.list'; accountId: string }
  | { type: 'domain.get'; accountId: string; domain: string }
  | { type: 'domain.mark_verified'; accountId: string; domain: string }
  | { type: 'domain.delete'; accountId: string; domain: string }
  | { type: 'domain.verified_for'; accountId: string; domain: string };

export type OAuthCommand =
  | {
      type: 'oauth.issue_code'; accountId: string; codeHash: string; codeChallenge: string; redirectUri: string | null; resource: string | null;
      /** The scoped key the user signed in with (its tokens carry its scope). */
      keyId?: string | null;
      /** A client other than the API key itself (a metadata-document URL or a registered client): /token must name it. */
      clientId?: string | null;
    }
  | {
      type: 'oauth.redeem_code'; accountId: string; codeHash: string; codeVerifier: string; redirectUri: string | null; accessHash: string; refreshHash: string;
      /** The client_id the token request named, when it is not the account's own key. */
      clientId?: string | null;
    }
  /** The client-credentials grant (MCP extension io.modelcontextprotocol/oauth-client-credentials): a scoped key's id and secret. */
  | { type: 'oauth.client_credentials'; accountId: string; keyId: string; secretHash: string; accessHash: string }
  | { type: 'oauth.refresh'; accountId: string; refreshHash: string; accessHash: string; newRefreshHash: string };

export type WebhookCommand =
  /**
   * `keySealed`: the account's API key as `account.sealed_key` gives it; the shard opens it to sign.
   * `max`: webhooks the inbox may have (its plan's webhooksPerInbox); absent from older fronts: unchecked.
   */
  | { type: 'webhook.register'; accountId: string; inbox: string; url: string; keySealed: Uint8Array; max?: number }
  | { type: 'webhook.list'; accountId: string; all: boolean }
  | { type: 'webhook.delete'; accountId: string; id: string }
  | { type: 'webhook.deliveries'; accountId: string; id: string }
  | { type: 'webhook.rekey'; accountId: string; key: string };

/**
 * The resumable streams of an agent-tool session (actors/session-events.ts), kept by the account's
 * shard: the front answering a request stores its stream's events there, and a front serving the
 * client's reconnection (GET with Last-Event-ID) reads them, parked until one comes.
 */
export type SessionCommand =
  | { type: 'session.events_put'; accountId: string; sessionId: string; streamId: string; events: { seq: number; data: string }[]; done: boolean }
  | { type: 'session.events_after'; accountId: string; sessionId: string; streamId: string; after: number; timeoutMs: number };

export type ShardCommand = { type: 'shard.stats' };

/**
 * Slot moves (DESIGN.md §8 "Resharding"), sent by the controller to one shard by id, unfenced.
 * Records are {db, key, value?, del?} (src/storage/slot-data.ts); cursors are opaque here.
 */
export type SlotCommand =
  /** The primary's last oplog position of the slot (a move waits for the new owner's copy to reach it). */
  | { type: 'slot.head'; slot: number }
  /** Holds new commands of the slot and answers the oplog position once in-flight writes committed. */
  | { type: 'slot.freeze'; slot: number; epoch?: number }
  /** Lets held commands go; `switched`: once this shard's map shows an epoch above `epoch`, then drops the slot's data. */
  | {
      type: 'slot.release'; slot: number; switched: boolean; epoch: number;
      /** The new primary was a follower whose log numbers match ours: this shard may stay its follower. */
      keep?: boolean;
    }
  /** Replication, follower side: where this shard's copy of the slot stands (null: it holds none). */
  | { type: 'slot.position'; slot: number }
  /** The same for many slots in one call (a failover ranks the in-sync copies of hundreds of slots): answers in the order asked. */
  | { type: 'slot.positions'; slots: number[] }
  /**
   * Truncation by leader epoch (KIP-101): the copy made at `from.epoch` that ends at `from.seq`
   * holds nothing the primary at `epoch` lacks; it adopts `epoch` (answers false if it moved on).
   */
  | { type: 'slot.adopt'; slot: number; epoch: number; from: { epoch: number; seq: number } }
  /** A page of a fresh copy from the primary at `epoch`; `first` clears the old copy, `done` is the oplog position the copy stands at. */
  | { type: 'slot.resync'; slot: number; epoch: number; records: unknown[]; first: boolean; done: number | null }
  /** Copies of slots that hold nothing yet on the primary, many at once (a fresh cluster); answers the slots refused. */
  | { type: 'slot.resync_empty'; slots: { slot: number; epoch: number }[] }
  /** Oplog entries from the primaries at their epochs, applied in order; answers the slots refused (stale epoch, gap). */
  | { type: 'slot.replicate'; batches: { slot: number; epoch: number; entries: unknown[] }[] };

/** The account's changes on one shard after a cursor (account-feed.ts); sent to every shard. */
export type FeedCommand = { type: 'feed.watch'; accountId: string; since: number | null; epoch: string | null; timeoutMs: number };

export type Command = AccountCommand | InboxCommand | MessageCommand | DomainCommand | OAuthCommand | WebhookCommand | ShardCommand | FeedCommand | SlotCommand | SessionCommand;
export type CommandType = Command['type'];
