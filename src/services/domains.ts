// Custom domains (SEED.md "Custom domains"), shared by REST and the agent tools: add with the DNS
// records to publish, verify by live DNS lookup, list, and delete with the inboxes at the domain.
import type { DomainRecord } from '../contract/model.js';
import type { CustomDomain, DnsRecord } from '../contract/shapes.js';
import { fail, MailcueError } from '../errors/registry.js';
import { makeResolver } from '../webhooks/resolver.js';
import type { Caller, Deps } from './deps.js';
import { requireAccountWide } from './scope.js';
import { lookupDomain } from './dns-check.js';
import { inboxesRemoved } from './inboxes.js';
import { normalizeDomain } from './validate.js';

export const MAX_CUSTOM_DOMAINS = 10;
const SERVICE_NAME = 'mailcue';

export type { CustomDomain, DnsRecord } from '../contract/shapes.js';

export function view(deps: Deps, r: DomainRecord): CustomDomain {
  return {
    domain: r.domain,
    verified: r.verified,
    mx_record: deps.config.mxHost,
    txt_record: `${SERVICE_NAME}-verification=${r.token}`,
    added_at: r.added_at,
  };
}

export function dnsRecords(d: CustomDomain, withTtl: boolean): DnsRecord[] {
  const ttl = withTtl ? { ttl: 'Auto' as const } : {};
  return [
    { type: 'MX', hostname: '@', value: d.mx_record, priority: '10', ...ttl },
    { type: 'TXT', hostname: '@', value: d.txt_record, ...ttl },
  ];
}

function valueKind(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : typeof value;
}

export function requireDomain(value: unknown): string {
  const domain = normalizeDomain(value);
  // Only a string is echoed back: any other value may be as large or as deep as its sender made it.
  if (!domain) fail('invalid_domain', typeof value === 'string' ? `"${value.slice(0, 300)}" is not a valid domain name` : `domain must be a string, got ${valueKind(value)}`);
  return domain;
}

/** A path or tool argument naming a domain: malformed names cannot be on the account. */
export function existingDomainName(value: unknown): string {
  const domain = normalizeDomain(value);
  if (!domain) fail('domain_not_found', `The domain ${typeof value === 'string' ? value.slice(0, 300) : valueKind(value)} is not on your account`);
  return domain;
}

export async function listDomains(deps: Deps, caller: Caller): Promise<CustomDomain[]> {
  const perShard = await deps.cluster.broadcast({ type: 'domain.list', accountId: caller.accountId });
  return perShard.flat().sort((a, b) => a.added_at.localeCompare(b.added_at)).map((r) => view(deps, r));
}

export interface AddedDomain {
  created: boolean;
  domain: CustomDomain & { dns_records: DnsRecord[]; next_step: string };
}

export async function addDomain(deps: Deps, caller: Caller, input: unknown): Promise<AddedDomain> {
  requireAccountWide(caller, 'add custom domains');
  const name = requireDomain(input);
  if (deps.config.domains.includes(name)) fail('domain_taken', `${name} is one of this service's own domains`);
  // The slot is taken on the account's shard, so concurrent adds cannot pass the limit together.
  const { reserved } = await deps.cluster.call({
    type: 'account.domain_reserve', accountId: caller.accountId, domain: name, max: MAX_CUSTOM_DOMAINS,
  });
  let added: { created: boolean; record: DomainRecord };
  try {
    added = await deps.cluster.call({ type: 'domain.add', accountId: caller.accountId, domain: name });
  } catch (err) {
    if (reserved) await deps.cluster.call({ type: 'account.domain_release', accountId: caller.accountId, domain: name });
    throw err;
  }
  const { created, record } = added;
  const d = view(deps, record);
  return { created, domain: { ...d, dns_records: dnsRecords(d, true), next_step: `POST /v1/custom-domains/${name}/verify` } };
}

export async function verifyDomain(deps: Deps, caller: Caller, input: unknown): Promise<CustomDomain> {
  requireAccountWide(caller, 'verify custom domains');
  const name = existingDomainName(input);
  const record = await deps.cluster.call({ type: 'domain.get', accountId: caller.accountId, domain: name });
  if (record.verified) return view(deps, record);
  const d = view(deps, record);
  const found = await lookupDomain(makeResolver(deps.config.dnsServers), name);
  const missing: string[] = [];
  if (!found.mx.includes(d.mx_record)) missing.push(`MX record pointing to ${d.mx_record}`);
  if (!found.txt.includes(d.txt_record)) missing.push(`TXT record "${d.txt_record}"`);
  if (missing.length > 0) {
    fail('verification_failed', `DNS verification failed for ${name}: missing ${missing.join(' and ')}`, {
      verified: false,
      hint: 'Add both records at @ at your DNS provider; propagation can take up to 48 hours',
      dns_records_needed: dnsRecords(d, false),
    });
  }
  return view(deps, await deps.cluster.call({ type: 'domain.mark_verified', accountId: caller.accountId, domain: name }));
}

export async function deleteDomain(deps: Deps, caller: Caller, input: unknown): Promise<{ domain: string; inboxes_removed: string[] }> {
  requireAccountWide(caller, 'delete custom domains');
  const name = existingDomainName(input);
  // The domain goes first, so no new inbox can be registered under it while its inboxes go.
  let found = true;
  try {
    await deps.cluster.call({ type: 'domain.delete', accountId: caller.accountId, domain: name });
  } catch (err) {
    if (!(err instanceof MailcueError && err.code === 'domain_not_found')) throw err;
    found = false;
  }
  // The slot goes too, even when a crash left it without its domain record.
  const held = await deps.cluster.call({ type: 'account.domain_release', accountId: caller.accountId, domain: name });
  if (!found && !held) fail('domain_not_found', `The domain ${name} is not on your account`);
  const removed = (await deps.cluster.broadcast({ type: 'inbox.delete_by_domain', accountId: caller.accountId, domain: name })).flat().sort();
  await inboxesRemoved(deps, caller, removed);
  return { domain: name, inboxes_removed: removed };
}
