// REST /v1/custom-domains (SEED.md "Custom domains (REST)"). Growth or Enterprise only.
import { fail } from '../../errors/registry.js';
import type { Caller, Deps } from '../../services/deps.js';
import { callerOf } from '../../services/scope.js';
import * as domains from '../../services/domains.js';
import { admitRest } from '../auth.js';
import type { Exchange } from '../http/exchange.js';
import type { Router } from '../http/router.js';
import { ok } from './respond.js';

/** The plan gate shared by custom domains and webhooks: 403 plan_required with upgrade_url. */
export async function requireFeature(deps: Deps, ex: Exchange, feature: 'customDomains' | 'webhooks'): Promise<Caller> {
  const admission = await admitRest(deps, ex);
  const plan = deps.config.plans[admission.account.plan];
  if (!plan[feature]) {
    const what = feature === 'customDomains' ? 'Custom domains are' : 'Webhooks are';
    fail('plan_required', `${what} not available on the ${plan.title} plan; Growth or Enterprise is required`, {
      upgrade_url: `${deps.config.publicUrl}/upgrade`,
    });
  }
  return callerOf(admission);
}

export function domainRoutes(router: Router, deps: Deps): void {
  router
    .add('get', '/v1/custom-domains', async (ex) => {
      const caller = await requireFeature(deps, ex, 'customDomains');
      const data = await domains.listDomains(deps, caller);
      ok(ex, 200, { count: data.length, data });
    })
    .add('post', '/v1/custom-domains', async (ex) => {
      const caller = await requireFeature(deps, ex, 'customDomains');
      const body = await ex.jsonObject();
      if (body.domain === undefined || body.domain === null) fail('invalid_domain', 'Missing required field: domain');
      const { created, domain } = await domains.addDomain(deps, caller, body.domain);
      ok(ex, created ? 201 : 200, {
        message: created
          ? `Domain ${domain.domain} added. Publish the DNS records, then verify it.`
          : `Domain ${domain.domain} already exists on your account`,
        data: domain,
      });
    })
    .add('post', '/v1/custom-domains/:domain/verify', async (ex) => {
      const caller = await requireFeature(deps, ex, 'customDomains');
      const data = await domains.verifyDomain(deps, caller, ex.params[0]);
      ok(ex, 200, { verified: true, message: `Domain ${data.domain} is verified; inboxes can now be created at it`, data });
    })
    .add('del', '/v1/custom-domains/:domain', async (ex) => {
      const caller = await requireFeature(deps, ex, 'customDomains');
      const { domain, inboxes_removed } = await domains.deleteDomain(deps, caller, ex.params[0]);
      ok(ex, 200, { message: `Domain ${domain} deleted`, inboxes_removed });
    });
}
