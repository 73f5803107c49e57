// Inbox operations shared by REST and the agent tools.
import type { InboxPageBoundary } from '../contract/commands.js';
import type { InboxView } from '../contract/model.js';
import type { PlanName } from '../config/plans.js';
import { fail, MailcueError } from '../errors/registry.js';
import { randomLocalPart } from '../util/ids.js';
import type { Caller, Deps } from './deps.js';
import { isReservedLocalPart } from './reserved-addresses.js';
import { creatorOf, listFilter, requireCreate, withinScope } from './scope.js';
import { normalizeAddress, normalizeDomain, optionalBool, optionalRetention } from './validate.js';

export interface CreateInboxInput {
  address?: unknown;
  domain?: unknown;
  /** Waits ignore mail that fails sender authentication (issue 19). */
  require_auth?: unknown;
  /** Seconds the inbox keeps a message, at most its plan's retention; null or absent: the plan's. */
  retention?: unknown;
}

function checkRetention(deps: Deps, plan: PlanName, retention: number | null): void {
  const max = deps.config.plans[plan].retentionSeconds;
  if (retention !== null && retention > max) {
    fail('invalid_parameter', `retention must be at most ${max} seconds (the ${deps.config.plans[plan].title} plan's retention)`, { param: 'retention', max });
  }
}

/**
 * Takes one of the account's inbox slots (DESIGN §7). At the limit the slots are checked against
 * the inboxes that exist once (a crash between a delete and its release leaves a slot behind).
 */
async function reserveInbox(deps: Deps, caller: Caller, address: string): Promise<{ reserved: boolean; plan: PlanName }> {
  const reserve = () => deps.cluster.call({ type: 'account.inbox_reserve', accountId: caller.accountId, address });
  try {
    return await reserve();
  } catch (err) {
    if (!(err instanceof MailcueError && err.code === 'limit_reached')) throw err;
    const existing: string[] = [];
    for (let after: InboxPageBoundary | null = null; ;) {
      const page = await listInboxPage(deps, caller, INBOX_PAGE_MAX, after);
      existing.push(...page.data.map((i) => i.address));
      if (page.next_cursor === null) break;
      after = page.data[page.data.length - 1]!;
    }
    await deps.cluster.call({ type: 'account.inbox_reconcile', accountId: caller.accountId, addresses: existing });
    return reserve();
  }
}

function releaseInboxes(deps: Deps, caller: Caller, addresses: string[]): Promise<unknown> {
  if (addresses.length === 0) return Promise.resolve();
  return deps.cluster.call({ type: 'account.inbox_release', accountId: caller.accountId, addresses });
}

/** Service-owned domains, or a custom domain verified by this account. */
export async function domainAllowed(deps: Deps, caller: Caller, domain: string): Promise<boolean> {
  if (deps.config.domains.includes(domain)) return true;
  return deps.cluster.call({ type: 'domain.verified_for', domain, accountId: caller.accountId });
}

export async function createInbox(deps: Deps, caller: Caller, input: CreateInboxInput): Promise<InboxView> {
  const requireAuth = optionalBool(input.require_auth, 'require_auth');
  const retention = optionalRetention(input.retention);
  let address: string;
  let domain: string;
  if (input.address !== undefined && input.address !== null && input.address !== '') {
    const parsed = normalizeAddress(input.address);
    if (!parsed) fail('invalid_address', `"${String(input.address)}" is not a valid email address`);
    ({ address, domain } = parsed);
    requireCreate(caller, address);
    if (deps.config.domains.includes(domain) && isReservedLocalPart(address.slice(0, address.lastIndexOf('@')))) {
      fail('address_reserved', `${address} is a role address (postmaster, abuse, admin, …) reserved on this service's domains; choose another`);
    }
    if (input.domain !== undefined && input.domain !== null && normalizeDomain(input.domain) !== domain) {
      fail('invalid_address', 'address and domain disagree');
    }
  } else {
    const requested = input.domain === undefined || input.domain === null || input.domain === '' ? deps.config.domains[0]! : normalizeDomain(input.domain);
    if (!requested) fail('invalid_domain', `"${String(input.domain)}" is not a valid domain name`);
    domain = requested;
    requireCreate(caller, null);
    address = `${randomLocalPart()}@${domain}`;
  }
  if (!(await domainAllowed(deps, caller, domain))) {
    fail('domain_not_verified', `The domain ${domain} is not one of this service's domains or a verified custom domain of your account`);
  }
  const { reserved, plan } = await reserveInbox(deps, caller, address);
  const createdBy = creatorOf(caller);
  try {
    checkRetention(deps, plan, retention);
    return await deps.cluster.call({
      type: 'inbox.create', accountId: caller.accountId, address, domain, requireAuth, plan, retention, ...(createdBy ? { createdBy } : {}),
    });
  } catch (err) {
    if (reserved) await releaseInboxes(deps, caller, [address]);
    throw err;
  }
}

/** The inbox's settable policy: require_auth and its own retention (null: back to the plan's). */
export async function updateInbox(deps: Deps, caller: Caller, address: string, input: { require_auth?: unknown; retention?: unknown }): Promise<InboxView> {
  if (input.require_auth === undefined && input.retention === undefined) {
    fail('invalid_parameter', 'Missing required parameter: require_auth or retention', { param: 'require_auth' });
  }
  const requireAuth = input.require_auth === undefined ? undefined : optionalBool(input.require_auth, 'require_auth');
  const retention = input.retention === undefined ? undefined : optionalRetention(input.retention);
  if (retention != null) {
    const { plan } = await deps.cluster.call({ type: 'account.get', accountId: caller.accountId });
    checkRetention(deps, plan, retention);
  }
  return withinScope(deps, caller, address, 'write', () => deps.cluster.call({ type: 'inbox.update', accountId: caller.accountId, address, requireAuth, retention }));
}

/** Inboxes a page holds at most, and by default (GET /v1/inboxes, list_inboxes). */
export const INBOX_PAGE_MAX = 1000;

export interface InboxPage {
  data: InboxView[];
  /** Pass as `cursor` for the next page; null when this page is the last. */
  next_cursor: string | null;
}

/** Creation order, then address, compared by code unit: the order of the shards' index (their keys sort so). */
function byCreation(a: InboxPageBoundary, b: InboxPageBoundary): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
  return a.address < b.address ? -1 : a.address > b.address ? 1 : 0;
}

/** An opaque page cursor: the last inbox shown, which the next page starts after. */
export function encodeInboxCursor(last: InboxPageBoundary): string {
  return Buffer.from(JSON.stringify([last.created_at, last.address])).toString('base64url');
}

export function decodeInboxCursor(cursor: unknown): InboxPageBoundary | null {
  if (cursor === undefined || cursor === null || cursor === '') return null;
  try {
    const parts: unknown = JSON.parse(Buffer.from(String(cursor), 'base64url').toString('utf8'));
    if (Array.isArray(parts) && parts.length === 2 && typeof parts[0] === 'string' && typeof parts[1] === 'string') return { created_at: parts[0], address: parts[1] };
  } catch {
    /* not one of ours */
  }
  fail('invalid_parameter', 'cursor must be a next_cursor of an earlier page', { param: 'cursor' });
}

/**
 * One page of the account's inboxes, oldest first: each shard reads at most `limit` + 1 from its
 * index after the cursor, so a page costs the same however many inboxes the account has (issue 37).
 */
export async function listInboxPage(deps: Deps, caller: Caller, limit = INBOX_PAGE_MAX, after: InboxPageBoundary | null = null): Promise<InboxPage> {
  const only = listFilter(caller);
  const perShard = await deps.cluster.broadcast({ type: 'inbox.list', accountId: caller.accountId, limit: limit + 1, after, ...(only ? { only } : {}) });
  const all = perShard.flat().sort(byCreation);
  const data = all.slice(0, limit);
  return { data, next_cursor: all.length > limit ? encodeInboxCursor(data[data.length - 1]!) : null };
}

/** The first page of the account's inboxes (up to INBOX_PAGE_MAX): list_inboxes and resources/list. */
export async function listInboxes(deps: Deps, caller: Caller): Promise<InboxView[]> {
  return (await listInboxPage(deps, caller)).data;
}

export function getInbox(deps: Deps, caller: Caller, address: string): Promise<InboxView> {
  return withinScope(deps, caller, address, 'read', () => deps.cluster.call({ type: 'inbox.get', accountId: caller.accountId, address }));
}

export async function deleteInbox(deps: Deps, caller: Caller, address: string): Promise<{ address: string }> {
  const deleted = await withinScope(deps, caller, address, 'write', () => deps.cluster.call({ type: 'inbox.delete', accountId: caller.accountId, address }));
  await releaseInboxes(deps, caller, [address]);
  return deleted;
}

/** Inboxes another operation removed (a custom domain's) give their slots back. */
export function inboxesRemoved(deps: Deps, caller: Caller, addresses: string[]): Promise<unknown> {
  return releaseInboxes(deps, caller, addresses);
}
