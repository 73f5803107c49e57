// GET /v1/account: the caller's plan, limits and usage (DESIGN §3).
import type { Deps } from '../../services/deps.js';
import { admitRest, returnLeases } from '../auth.js';
import type { Router } from '../http/router.js';
import { ok } from './respond.js';

export function accountRoutes(router: Router, deps: Deps, sessionsOpen: (accountId: string) => Promise<number>): void {
  router.add('get', '/v1/account', async (ex) => {
    const admission = await admitRest(deps, ex);
    // What this front holds in advance goes back first, so usage counts what was spent.
    await returnLeases(deps, deps.leases.takeAccount(admission.account.id));
    const usage = await deps.cluster.call({ type: 'account.usage', accountId: admission.account.id });
    ok(ex, 200, { data: { id: admission.account.id, ...usage, sessions_open: await sessionsOpen(admission.account.id) } });
  });
}
