// The admin API (bearer MAILCUE_ADMIN_TOKEN): create accounts, change plans, rotate keys.
import { timingSafeEqual } from 'node:crypto';
import { fail } from '../../errors/registry.js';
import * as accounts from '../../services/accounts.js';
import type { Deps } from '../../services/deps.js';
import { bearerToken } from '../auth.js';
import type { Exchange } from '../http/exchange.js';
import type { Router } from '../http/router.js';
import { ok } from './respond.js';

function requireAdmin(deps: Deps, ex: Exchange): void {
  const expected = deps.config.adminToken;
  const given = bearerToken(ex);
  if (!expected) fail('unauthorized', 'The admin API is disabled: set MAILCUE_ADMIN_TOKEN');
  const a = Buffer.from(given ?? '');
  const b = Buffer.from(expected);
  if (a.length !== b.length || !timingSafeEqual(a, b)) fail('unauthorized', 'Invalid admin token');
}

export function adminRoutes(router: Router, deps: Deps): void {
  router
    .add('post', '/admin/v1/accounts', async (ex) => {
      requireAdmin(deps, ex);
      const b = await ex.jsonObject();
      const name = b.name === undefined || b.name === null ? null : String(b.name);
      ok(ex, 201, { data: await accounts.createAccount(deps.cluster, accounts.requirePlan(b.plan), name) });
    })
    .add('get', '/admin/v1/accounts/:id', async (ex) => {
      requireAdmin(deps, ex);
      ok(ex, 200, { data: await accounts.getAccount(deps.cluster, accounts.requireAccountId(ex.params[0])) });
    })
    .add('patch', '/admin/v1/accounts/:id', async (ex) => {
      requireAdmin(deps, ex);
      const id = accounts.requireAccountId(ex.params[0]);
      const b = await ex.jsonObject();
      const view = await accounts.setPlan(deps.cluster, id, accounts.requirePlan(b.plan));
      // This front stops trusting the account's credentials (and spending their leases) before it
      // answers; the others do when the shard's notice reaches them.
      deps.admitted.forgetAccount(id);
      ok(ex, 200, { data: view });
    })
    .add('post', '/admin/v1/accounts/:id/rotate-key', async (ex) => {
      requireAdmin(deps, ex);
      const id = accounts.requireAccountId(ex.params[0]);
      const view = await accounts.rotateKey(deps.cluster, id);
      deps.admitted.forgetAccount(id);
      ok(ex, 200, { data: view });
    });
}
