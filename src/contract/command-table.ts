// The one table of front→shard commands: each command's result type, routing key, resend and
// parking rules, the dashboard-feed kind it causes and who may send it. The compiler checks that
// every command of commands.ts has a row; routing, the resend and parking sets and the feed kinds
// are derived from it, the way the error registry derives every error mapping.
import type { Command, CommandType, SessionTerms } from './commands.js';
import type { AccountView, AttachmentContent, DeliveryLog, DomainRecord, InboxView, MessageRecord, MessageSummary, WebhookRecord } from './model.js';
import type { KeyView } from './keys.js';
import type { AccountUsage, Admission, ANSWERED_LATER, ChangesAnswer, DeliverResult, InboxQuota, IssuedTokens, RequestScope, ShardStats, SlotPosition, SlotUsage, StreamEvents, WaitResult } from './results.js';
import type { PlanName } from '../config/plans.js';

export type { CommandType };

/** The command of one type. */
export type CommandOf<K extends CommandType> = Extract<Command, { type: K }>;

/**
 * Where a command goes: the shard owning the key the function returns; `every` shard (listings
 * gathered across shards, account-wide changes); or one `named` shard its sender picks by id
 * (slot moves and replication, a per-shard change feed).
 */
export type Route<K extends CommandType> = ((command: CommandOf<K>) => string) | 'every' | 'named';

/** A phantom: the table's rows carry their result type in this field (the value is never read). */
export interface Returns<R> {
  readonly result?: R;
}
function returns<R>(): Returns<R> {
  return {};
}

/**
 * What the dispatcher notes in the account's change feed once the command succeeded (src/actors/
 * account-feed.ts); `inbox`: the inbox actor notes the inboxes it changed itself (it alone knows which).
 */
export type FeedKind = 'inbox' | 'domains' | 'webhooks' | null;

export interface CommandRule<K extends CommandType> {
  readonly returns: Returns<unknown>;
  readonly route: Route<K>;
  /** May run twice with the same effect (reads, long-polls): sent again when its stream breaks. */
  readonly resend: boolean;
  /** The shard may hold it open (a long-poll): a graceful stop asks for its answer at once. */
  readonly parks: boolean;
  readonly feed: FeedKind;
  /** Who sends it: the front tier, or shards among themselves (a front's certificate may not). */
  readonly caller: 'front' | 'shard';
}

type Table = { readonly [K in CommandType]: CommandRule<K> };

const account = (command: { accountId: string }): string => command.accountId;
const domain = (command: { domain: string }): string => command.domain;
const inbox = (command: { address: string }): string => command.address;
const firstRecipient = (command: { addresses: string[] }): string => command.addresses[0]!;

export const COMMAND_TABLE = {
  'account.create': { returns: returns<AccountView>(), route: (c) => c.id, resend: false, parks: false, feed: null, caller: 'front' },
  'account.get': { returns: returns<AccountView>(), route: account, resend: true, parks: false, feed: null, caller: 'front' },
  'account.set_plan': { returns: returns<AccountView>(), route: account, resend: false, parks: false, feed: null, caller: 'front' },
  'account.rotate_key': { returns: returns<AccountView>(), route: account, resend: false, parks: false, feed: null, caller: 'front' },
  'account.admit': { returns: returns<Admission>(), route: account, resend: false, parks: false, feed: null, caller: 'front' },
  'account.lease_return': { returns: returns<null>(), route: account, resend: false, parks: false, feed: null, caller: 'front' },
  'account.session_open': { returns: returns<{ open: number }>(), route: account, resend: false, parks: false, feed: null, caller: 'front' },
  'account.session_find': { returns: returns<SessionTerms | null>(), route: account, resend: true, parks: false, feed: null, caller: 'front' },
  'account.session_close': { returns: returns<null>(), route: account, resend: false, parks: false, feed: null, caller: 'front' },
  'account.sessions': { returns: returns<number>(), route: account, resend: true, parks: false, feed: null, caller: 'front' },
  'account.domain_reserve': { returns: returns<{ reserved: boolean }>(), route: account, resend: false, parks: false, feed: null, caller: 'front' },
  /** Whether the account held the domain. */
  'account.domain_release': { returns: returns<boolean>(), route: account, resend: false, parks: false, feed: null, caller: 'front' },
  'account.usage': { returns: returns<AccountUsage>(), route: account, resend: true, parks: false, feed: null, caller: 'front' },
  /** The account's API key sealed under the master key (the inbox's shard opens it to sign webhooks; a front cannot). */
  'account.sealed_key': { returns: returns<Uint8Array>(), route: account, resend: true, parks: false, feed: null, caller: 'front' },
  // Scoped keys (issue 36, src/actors/account-keys.ts).
  'account.key_create': { returns: returns<KeyView>(), route: account, resend: false, parks: false, feed: null, caller: 'front' },
  'account.key_list': { returns: returns<KeyView[]>(), route: account, resend: true, parks: false, feed: null, caller: 'front' },
  'account.key_rotate': { returns: returns<KeyView>(), route: account, resend: false, parks: false, feed: null, caller: 'front' },
  'account.key_delete': { returns: returns<{ id: string }>(), route: account, resend: false, parks: false, feed: null, caller: 'front' },
  /** Storage governance (src/actors/inbox-allowance.ts): the account's inbox slots against its plan. */
  'account.inbox_reserve': { returns: returns<{ reserved: boolean; plan: PlanName; held: number }>(), route: account, resend: false, parks: false, feed: null, caller: 'front' },
  'account.inbox_release': { returns: returns<null>(), route: account, resend: true, parks: false, feed: null, caller: 'front' },
  /** How many slots the account holds after the reconcile. */
  'account.inbox_reconcile': { returns: returns<number>(), route: account, resend: true, parks: false, feed: null, caller: 'front' },

  'inbox.create': { returns: returns<InboxView>(), route: inbox, resend: false, parks: false, feed: 'inbox', caller: 'front' },
  'inbox.update': { returns: returns<InboxView>(), route: inbox, resend: false, parks: false, feed: null, caller: 'front' },
  'inbox.get': { returns: returns<InboxView>(), route: inbox, resend: true, parks: false, feed: null, caller: 'front' },
  /** The scoped key that created the inbox, or null (KeyScope.created_inboxes). */
  'inbox.creator': { returns: returns<string | null>(), route: inbox, resend: true, parks: false, feed: null, caller: 'front' },
  'inbox.delete': { returns: returns<{ address: string }>(), route: inbox, resend: false, parks: false, feed: 'inbox', caller: 'front' },
  'inbox.list': { returns: returns<InboxView[]>(), route: 'every', resend: true, parks: false, feed: null, caller: 'front' },
  /** The addresses removed. */
  'inbox.delete_by_domain': { returns: returns<string[]>(), route: 'every', resend: false, parks: false, feed: 'inbox', caller: 'front' },
  /** The account owning the inbox, or null; with `quota`, also how full it is. */
  'inbox.accepts': { returns: returns<string | InboxQuota | null>(), route: inbox, resend: true, parks: false, feed: null, caller: 'front' },
  /** Per slot this shard serves: the account's inboxes, messages and bytes there. */
  'inbox.usage': { returns: returns<SlotUsage[]>(), route: 'every', resend: true, parks: false, feed: null, caller: 'front' },
  /** How many of the account's inboxes the shard holds. */
  'inbox.set_plan': { returns: returns<number>(), route: 'every', resend: true, parks: false, feed: null, caller: 'front' },
  'inbox.deliver': { returns: returns<DeliverResult>(), route: firstRecipient, resend: false, parks: false, feed: 'inbox', caller: 'front' },
  'message.set_auth': { returns: returns<{ id: string }>(), route: firstRecipient, resend: false, parks: false, feed: 'inbox', caller: 'front' },

  'message.list': { returns: returns<MessageSummary[]>(), route: inbox, resend: true, parks: false, feed: null, caller: 'front' },
  'message.list_view': { returns: returns<string>(), route: inbox, resend: true, parks: false, feed: null, caller: 'front' },
  /** Marking the message read is idempotent too. */
  'message.get': { returns: returns<MessageRecord>(), route: inbox, resend: true, parks: false, feed: 'inbox', caller: 'front' },
  'message.latest': { returns: returns<Omit<MessageRecord, 'headers'> | null>(), route: inbox, resend: true, parks: false, feed: null, caller: 'front' },
  'message.latest_view': { returns: returns<string | null>(), route: inbox, resend: true, parks: false, feed: null, caller: 'front' },
  'message.raw': { returns: returns<Uint8Array>(), route: inbox, resend: true, parks: false, feed: null, caller: 'front' },
  /** Null for a message stored before attachments were kept apart (the front cuts it from the raw source). */
  'message.attachment': { returns: returns<AttachmentContent | null>(), route: inbox, resend: true, parks: false, feed: null, caller: 'front' },
  'message.delete': { returns: returns<{ id: string }>(), route: inbox, resend: false, parks: false, feed: 'inbox', caller: 'front' },
  'message.wait': { returns: returns<WaitResult>(), route: inbox, resend: true, parks: true, feed: null, caller: 'front' },

  'domain.add': { returns: returns<{ created: boolean; record: DomainRecord }>(), route: domain, resend: false, parks: false, feed: 'domains', caller: 'front' },
  'domain.list': { returns: returns<DomainRecord[]>(), route: 'every', resend: true, parks: false, feed: null, caller: 'front' },
  'domain.get': { returns: returns<DomainRecord>(), route: domain, resend: true, parks: false, feed: null, caller: 'front' },
  'domain.mark_verified': { returns: returns<DomainRecord>(), route: domain, resend: false, parks: false, feed: 'domains', caller: 'front' },
  'domain.delete': { returns: returns<DomainRecord>(), route: domain, resend: false, parks: false, feed: 'domains', caller: 'front' },
  'domain.verified_for': { returns: returns<boolean>(), route: domain, resend: true, parks: false, feed: null, caller: 'front' },

  'oauth.issue_code': { returns: returns<{ expires_in: number }>(), route: account, resend: false, parks: false, feed: null, caller: 'front' },
  'oauth.redeem_code': { returns: returns<IssuedTokens>(), route: account, resend: false, parks: false, feed: null, caller: 'front' },
  'oauth.refresh': { returns: returns<IssuedTokens>(), route: account, resend: false, parks: false, feed: null, caller: 'front' },
  'oauth.client_credentials': { returns: returns<IssuedTokens>(), route: account, resend: false, parks: false, feed: null, caller: 'front' },

  'webhook.register': { returns: returns<{ created: boolean; webhook: WebhookRecord }>(), route: (c) => c.inbox, resend: false, parks: false, feed: 'webhooks', caller: 'front' },
  'webhook.list': { returns: returns<WebhookRecord[]>(), route: 'every', resend: true, parks: false, feed: null, caller: 'front' },
  /** Whether this shard held the webhook. */
  'webhook.delete': { returns: returns<boolean>(), route: 'every', resend: false, parks: false, feed: 'webhooks', caller: 'front' },
  /** Null on the shards that do not hold the webhook. */
  'webhook.deliveries': { returns: returns<DeliveryLog[] | null>(), route: 'every', resend: true, parks: false, feed: null, caller: 'front' },
  'webhook.rekey': { returns: returns<null>(), route: 'every', resend: false, parks: false, feed: null, caller: 'front' },

  /** A resumable agent-tool stream's events (issue 36): storing one twice keeps one copy (by its number). */
  'session.events_put': { returns: returns<{ stored: number }>(), route: account, resend: true, parks: false, feed: null, caller: 'front' },
  /** A reconnection with Last-Event-ID: parked until the stream has events after it. */
  'session.events_after': { returns: returns<StreamEvents>(), route: account, resend: true, parks: true, feed: null, caller: 'front' },

  'shard.stats': { returns: returns<ShardStats>(), route: 'every', resend: true, parks: false, feed: null, caller: 'front' },
  'feed.watch': { returns: returns<ChangesAnswer>(), route: 'named', resend: false, parks: true, feed: null, caller: 'front' },

  'slot.head': { returns: returns<{ seq: number }>(), route: 'named', resend: false, parks: false, feed: null, caller: 'shard' },
  'slot.freeze': { returns: returns<{ seq: number; epoch: number }>(), route: 'named', resend: false, parks: false, feed: null, caller: 'shard' },
  'slot.release': { returns: returns<null>(), route: 'named', resend: false, parks: false, feed: null, caller: 'shard' },
  'slot.position': { returns: returns<SlotPosition | null>(), route: 'named', resend: false, parks: false, feed: null, caller: 'shard' },
  'slot.positions': { returns: returns<({ epoch: number; seq: number } | null)[]>(), route: 'named', resend: false, parks: false, feed: null, caller: 'shard' },
  'slot.adopt': { returns: returns<boolean>(), route: 'named', resend: false, parks: false, feed: null, caller: 'shard' },
  'slot.resync': { returns: returns<null>(), route: 'named', resend: false, parks: false, feed: null, caller: 'shard' },
  'slot.resync_empty': { returns: returns<{ refused: number[] }>(), route: 'named', resend: false, parks: false, feed: null, caller: 'shard' },
  'slot.replicate': { returns: returns<{ refused: number[] }>(), route: 'named', resend: false, parks: false, feed: null, caller: 'shard' },
} as const satisfies Table;

type Rows = typeof COMMAND_TABLE;

/** What the shard answers to a command of type K. */
export type ResultOf<K extends CommandType> = Rows[K]['returns'] extends Returns<infer R> ? R : never;

/** Commands routed by a key (Cluster.call), sent to every shard (Cluster.broadcast), or to one named shard. */
export type RoutedType = { [K in CommandType]: Rows[K]['route'] extends string ? never : K }[CommandType];
export type BroadcastType = { [K in CommandType]: Rows[K]['route'] extends 'every' ? K : never }[CommandType];
export type ParkingType = { [K in CommandType]: Rows[K]['parks'] extends true ? K : never }[CommandType];

/** What a handler may answer: the result, a promise of it, or (a command that parks) ANSWERED_LATER. */
export type Answer<K extends CommandType> = ResultOf<K> | Promise<ResultOf<K>> | (K extends ParkingType ? typeof ANSWERED_LATER : never);
export type Handler<K extends CommandType> = (command: CommandOf<K>, scope: RequestScope) => Answer<K>;
/** One handler for each command of a family: an actor's part of the dispatch table. */
export type Handlers<K extends CommandType> = { readonly [P in K]: Handler<P> };
export type FamilyOf<F extends string> = Extract<CommandType, `${F}.${string}`>;

/** Every command type, in table order. */
export const COMMAND_TYPES = Object.keys(COMMAND_TABLE) as CommandType[];

function typesWhere(test: (rule: CommandRule<CommandType>) => boolean): ReadonlySet<CommandType> {
  return new Set(COMMAND_TYPES.filter((type) => test(COMMAND_TABLE[type] as CommandRule<CommandType>)));
}

/** Sent again once when their stream breaks. */
export const RESENDABLE = typesWhere((rule) => rule.resend);
/** Held open by a shard: asked for their answers at a graceful stop. */
export const PARKING = typesWhere((rule) => rule.parks);
/** Sent only by shards (slot moves, replication). */
export const SHARD_ONLY = typesWhere((rule) => rule.caller === 'shard');

export function feedKind(type: CommandType): FeedKind {
  return COMMAND_TABLE[type].feed;
}

/** The key a command is routed by, or null for commands that go to every shard or a named one. */
export function routeKey(command: Command): string | null {
  const route = COMMAND_TABLE[command.type].route as Route<CommandType>;
  return typeof route === 'function' ? route(command) : null;
}

/** Runs a command through the handler its type has in `handlers` (an actor's part of the dispatch table). */
export function runHandler<F extends CommandType, K extends F>(handlers: Handlers<F>, command: CommandOf<K>, scope: RequestScope): Answer<K> {
  const handler: Handler<K> | undefined = handlers[command.type as K];
  // A command of a newer front (a rolling upgrade) is refused, not crashed on.
  if (handler === undefined) throw new Error(`unknown command ${String(command.type)}`);
  return handler(command, scope);
}
