// Account administration (admin API and `mailcue admin`) and the account's own usage view.
import type { AccountView } from '../contract/model.js';
import { isPlanName, PLAN_NAMES, type PlanName } from '../config/plans.js';
import { fail } from '../errors/registry.js';
import { newAccountId, newCredential } from '../security/credentials.js';
import type { Cluster } from '../rpc/cluster.js';
import { sumUsage, type StorageUsage } from '../contract/results.js';

export function requirePlan(value: unknown): PlanName {
  if (!isPlanName(value)) fail('invalid_parameter', `plan must be one of ${PLAN_NAMES.join(', ')}`, { param: 'plan' });
  return value;
}

const ACCOUNT_ID = /^acc_[0-9a-f]{16}$/;

export function requireAccountId(value: unknown): string {
  if (typeof value !== 'string' || !ACCOUNT_ID.test(value)) fail('not_found', `No account ${String(value)}`);
  return value;
}

export async function createAccount(cluster: Cluster, plan: PlanName, name: string | null): Promise<AccountView & { api_key: string }> {
  const id = newAccountId();
  const key = newCredential('api_key', id);
  const view = await cluster.call({ type: 'account.create', id, name, plan, key, created_at: new Date().toISOString() });
  // The key is shown here once; the shard keeps only its hash and a sealed copy.
  return { ...view, api_key: key };
}

export async function setPlan(cluster: Cluster, accountId: string, plan: PlanName): Promise<AccountView> {
  const view = await cluster.call({ type: 'account.set_plan', accountId, plan });
  // The inboxes' shards sweep by the plan's retention: they learn the new one.
  await cluster.broadcast({ type: 'inbox.set_plan', accountId, plan });
  return view;
}

/** The account's storage: every shard's rows for the slots it serves, summed (DESIGN §7). */
export async function storageUsage(cluster: Cluster, accountId: string): Promise<StorageUsage> {
  return sumUsage((await cluster.broadcast({ type: 'inbox.usage', accountId })).flat());
}

export async function rotateKey(cluster: Cluster, accountId: string): Promise<AccountView & { api_key: string }> {
  const key = newCredential('api_key', accountId);
  const view = await cluster.call({ type: 'account.rotate_key', accountId, key });
  // Webhooks are signed with the API key (SEED.md), so their shards learn the new one.
  await cluster.broadcast({ type: 'webhook.rekey', accountId, key });
  return { ...view, api_key: key };
}

export function getAccount(cluster: Cluster, accountId: string): Promise<AccountView> {
  return cluster.call({ type: 'account.get', accountId });
}
