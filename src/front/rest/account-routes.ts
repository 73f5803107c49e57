// GET /v1/account: the caller's plan, limits and usage (DESIGN §3).
import type { Account } from '../../contract/shapes.js';
import type { Deps } from '../../services/deps.js';
import { admitRest, returnLeases } from '../auth.js';
import type { Router } from '../http/router.js';
import { ok } from './respond.js';
import { storageUsage } from '../../services/accounts.js';

export function accountRoutes(router: Router, deps: Deps, sessionsOpen: (accountId: string) => Promise<number>): void {
  router.add('get', '/v1/account', async (ex) => {
    const admission = await admitRest(deps, ex);
    // What this front holds in advance goes back first, so usage counts what was spent.
    await returnLeases(deps, deps.leases.takeAccount(admission.account.id));
    const [account, storage] = await Promise.all([
      deps.cluster.call({ type: 'account.usage', accountId: admission.account.id }),
      storageUsage(deps.cluster, admission.account.id),
    ]);
    const data: Account = { id: admission.account.id, ...account, usage: storage, sessions_open: await sessionsOpen(admission.account.id) };
    ok(ex, 200, { data });
  });
}
