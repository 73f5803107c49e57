// Webhooks (SEED.md "Webhooks (REST)"): register, list, delete, delivery history. Urls must be
// https and publicly reachable; the inbox must belong to the caller.
import type { DeliveryLog } from '../contract/model.js';
import type { Webhook } from '../contract/shapes.js';
import { fail } from '../errors/registry.js';
import type { PlanName } from '../config/plans.js';
import { resolveTarget } from '../security/address-policy.js';
import { makeResolver } from '../webhooks/resolver.js';
import type { Caller, Deps } from './deps.js';
import { inScope, requireInbox, requireWrite } from './scope.js';
import { normalizeAddress } from './validate.js';

const WEBHOOK_ID = /^wh_[0-9a-f]{24}$/;

/** A webhook as the list shows it (src/contract/shapes.ts). */
export type WebhookListing = Webhook;

async function requireUrl(deps: Deps, value: unknown): Promise<string> {
  if (typeof value !== 'string' || value === '') fail('invalid_url', 'url is required and must be an https URL');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    fail('invalid_url', `"${value}" is not a valid URL`);
  }
  if (url.protocol !== 'https:') fail('invalid_url', 'url must use https');
  if (url.username || url.password) fail('invalid_url', 'url must not carry credentials');
  try {
    await resolveTarget(makeResolver(deps.config.dnsServers), url.hostname, deps.config.webhookAllowPrivate);
  } catch (err) {
    fail('invalid_url', `url must be publicly reachable over HTTPS: ${(err as Error).message}`);
  }
  return url.href;
}

export async function registerWebhook(deps: Deps, caller: Caller, input: { url?: unknown; inbox?: unknown }) {
  if (input.inbox === undefined || input.inbox === null || input.inbox === '') fail('invalid_parameter', 'Missing required field: inbox', { param: 'inbox' });
  const inbox = normalizeAddress(input.inbox)?.address;
  if (!inbox) fail('invalid_parameter', 'inbox must be an email address', { param: 'inbox' });
  await requireInbox(deps, caller, inbox, 'write');
  const url = await requireUrl(deps, input.url);
  // Sealed under the master key: this front passes the signing key on without being able to read it.
  const [keySealed, account] = await Promise.all([
    deps.cluster.call({ type: 'account.sealed_key', accountId: caller.accountId }),
    deps.cluster.call({ type: 'account.get', accountId: caller.accountId }),
  ]);
  const max = deps.config.plans[account.plan].webhooksPerInbox;
  return deps.cluster.call({ type: 'webhook.register', accountId: caller.accountId, inbox, url, keySealed, max });
}

export async function listWebhooks(deps: Deps, caller: Caller, all: boolean): Promise<WebhookListing[]> {
  const perShard = await deps.cluster.broadcast({ type: 'webhook.list', accountId: caller.accountId, all });
  let found = perShard.flat();
  // A scoped key sees the webhooks of its own inboxes only.
  if (caller.scope) {
    const visible = await Promise.all(found.map((w) => inScope(deps, caller, w.inbox).catch(() => false)));
    found = found.filter((_, i) => visible[i]);
  }
  return found
    .sort((a, b) => a.created_at.localeCompare(b.created_at))
    .map((w) => ({
      _id: w.id, inbox: w.inbox, url: w.url, createdAt: w.created_at, failureCount: w.failure_count, ...(all ? { disabled: w.disabled } : {}),
    }));
}

function requireId(value: unknown): string {
  if (typeof value !== 'string' || !WEBHOOK_ID.test(value)) fail('not_found', `Webhook ${String(value)} not found`);
  return value;
}

/** A scoped key reaches a webhook only through its inbox: one of another inbox is not found. */
async function requireWebhookInScope(deps: Deps, caller: Caller, id: string): Promise<void> {
  if (!caller.scope) return;
  if (!(await listWebhooks(deps, caller, true)).some((w) => w._id === id)) fail('not_found', `Webhook ${id} not found`);
}

export async function deleteWebhook(deps: Deps, caller: Caller, idValue: unknown): Promise<string> {
  const id = requireId(idValue);
  requireWrite(caller, 'delete webhooks');
  await requireWebhookInScope(deps, caller, id);
  const deleted = await deps.cluster.broadcast({ type: 'webhook.delete', accountId: caller.accountId, id });
  if (!deleted.some(Boolean)) fail('not_found', `Webhook ${id} not found`);
  return id;
}

export async function webhookDeliveries(deps: Deps, caller: Caller, idValue: unknown): Promise<DeliveryLog[]> {
  const id = requireId(idValue);
  await requireWebhookInScope(deps, caller, id);
  const found = (await deps.cluster.broadcast({ type: 'webhook.deliveries', accountId: caller.accountId, id })).find((d) => d !== null);
  if (!found) fail('not_found', `Webhook ${id} not found`);
  return found;
}
