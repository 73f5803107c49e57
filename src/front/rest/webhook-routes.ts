// REST /v1/webhooks (SEED.md "Webhooks (REST)", DESIGN §3). Growth or Enterprise only.
import type { Deps } from '../../services/deps.js';
import * as webhooks from '../../services/webhooks.js';
import type { Router } from '../http/router.js';
import { requireFeature } from './domain-routes.js';
import { ok } from './respond.js';

export function webhookRoutes(router: Router, deps: Deps): void {
  router
    .add('post', '/v1/webhooks', async (ex) => {
      const caller = await requireFeature(deps, ex, 'webhooks');
      const body = await ex.jsonObject();
      const { created, webhook } = await webhooks.registerWebhook(deps, caller, { url: body.url, inbox: body.inbox });
      ok(ex, created ? 201 : 200, { id: webhook.id, inbox: webhook.inbox, url: webhook.url });
    })
    .add('get', '/v1/webhooks', async (ex) => {
      const caller = await requireFeature(deps, ex, 'webhooks');
      const data = await webhooks.listWebhooks(deps, caller, ex.query.get('status') === 'all');
      ok(ex, 200, { count: data.length, data });
    })
    .add('del', '/v1/webhooks/:id', async (ex) => {
      const caller = await requireFeature(deps, ex, 'webhooks');
      const id = await webhooks.deleteWebhook(deps, caller, ex.params[0]);
      ok(ex, 200, { message: `Webhook ${id} deleted` });
    })
    .add('get', '/v1/webhooks/:id/deliveries', async (ex) => {
      const caller = await requireFeature(deps, ex, 'webhooks');
      const data = await webhooks.webhookDeliveries(deps, caller, ex.params[0]);
      ok(ex, 200, { count: data.length, data });
    });
}
