// REST /v1/keys (issue 36): the account's scoped keys. Thin: parse, call a service, answer. Only
// the account's own API key (or a token it granted) manages keys; a scoped key gets 403 scope_denied.
import type { Deps } from '../../services/deps.js';
import * as keys from '../../services/keys.js';
import { callerOf } from '../../services/scope.js';
import { admitRest } from '../auth.js';
import type { Router } from '../http/router.js';
import { ok } from './respond.js';

export function keyRoutes(router: Router, deps: Deps): void {
  router
    .add('post', '/v1/keys', async (ex) => {
      const caller = callerOf(await admitRest(deps, ex));
      const body = await ex.jsonObject();
      const data = await keys.createKey(deps, caller, body);
      ok(ex, 201, { message: 'Key created. Its secret (key) is shown only now: store it safely.', data });
    })
    .add('get', '/v1/keys', async (ex) => {
      const data = await keys.listKeys(deps, callerOf(await admitRest(deps, ex)));
      ok(ex, 200, { count: data.length, data });
    })
    .add('post', '/v1/keys/:id/rotate', async (ex) => {
      const data = await keys.rotateKey(deps, callerOf(await admitRest(deps, ex)), ex.params[0]);
      ok(ex, 200, { message: 'Key rotated: the old secret and everything it granted no longer work. The new secret is shown only now.', data });
    })
    .add('del', '/v1/keys/:id', async (ex) => {
      const id = await keys.deleteKey(deps, callerOf(await admitRest(deps, ex)), ex.params[0]);
      ok(ex, 200, { message: `Key ${id} deleted; its tokens and sessions are revoked` });
    });
}
