// Inbox operations shared by REST and the agent tools.
import type { InboxView } from '../contract/model.js';
import { fail } from '../errors/registry.js';
import { randomLocalPart } from '../util/ids.js';
import type { Caller, Deps } from './deps.js';
import { normalizeAddress, normalizeDomain, optionalBool } from './validate.js';

export interface CreateInboxInput {
  address?: unknown;
  domain?: unknown;
  /** Waits ignore mail that fails sender authentication (issue 19). */
  require_auth?: unknown;
}

/** Service-owned domains, or a custom domain verified by this account. */
export async function domainAllowed(deps: Deps, caller: Caller, domain: string): Promise<boolean> {
  if (deps.config.domains.includes(domain)) return true;
  return deps.cluster.call({ type: 'domain.verified_for', domain, accountId: caller.accountId });
}

export async function createInbox(deps: Deps, caller: Caller, input: CreateInboxInput): Promise<InboxView> {
  const requireAuth = optionalBool(input.require_auth, 'require_auth');
  let address: string;
  let domain: string;
  if (input.address !== undefined && input.address !== null && input.address !== '') {
    const parsed = normalizeAddress(input.address);
    if (!parsed) fail('invalid_address', `"${String(input.address)}" is not a valid email address`);
    ({ address, domain } = parsed);
    if (input.domain !== undefined && input.domain !== null && normalizeDomain(input.domain) !== domain) {
      fail('invalid_address', 'address and domain disagree');
    }
  } else {
    const requested = input.domain === undefined || input.domain === null || input.domain === '' ? deps.config.domains[0]! : normalizeDomain(input.domain);
    if (!requested) fail('invalid_domain', `"${String(input.domain)}" is not a valid domain name`);
    domain = requested;
    address = `${randomLocalPart()}@${domain}`;
  }
  if (!(await domainAllowed(deps, caller, domain))) {
    fail('domain_not_verified', `The domain ${domain} is not one of this service's domains or a verified custom domain of your account`);
  }
  return deps.cluster.call({ type: 'inbox.create', accountId: caller.accountId, address, domain, requireAuth });
}

/** The inbox's settable policy; today only require_auth. */
export function updateInbox(deps: Deps, caller: Caller, address: string, input: { require_auth?: unknown }): Promise<InboxView> {
  if (input.require_auth === undefined) fail('invalid_parameter', 'Missing required parameter: require_auth', { param: 'require_auth' });
  const requireAuth = optionalBool(input.require_auth, 'require_auth');
  return deps.cluster.call({ type: 'inbox.update', accountId: caller.accountId, address, requireAuth });
}

export async function listInboxes(deps: Deps, caller: Caller): Promise<InboxView[]> {
  const perShard = await deps.cluster.broadcast({ type: 'inbox.list', accountId: caller.accountId });
  return perShard.flat().sort((a, b) => a.created_at.localeCompare(b.created_at) || a.address.localeCompare(b.address));
}

export function getInbox(deps: Deps, caller: Caller, address: string): Promise<InboxView> {
  return deps.cluster.call({ type: 'inbox.get', accountId: caller.accountId, address });
}

export function deleteInbox(deps: Deps, caller: Caller, address: string): Promise<{ address: string }> {
  return deps.cluster.call({ type: 'inbox.delete', accountId: caller.accountId, address });
}
