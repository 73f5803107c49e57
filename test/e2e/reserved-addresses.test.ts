// End to end: role addresses on a service-owned domain are nobody's (DESIGN §7 "Reserved addresses"),
// whatever the case or sub-address; the same local parts stay free on an account's own domain.
import test from 'ava';
import { startService, type Service } from '../helpers/service.js';

type Json = Record<string, any>;
let svc: Service;

test.before(async () => {
  svc = await startService();
});
test.after.always(async () => {
  await svc?.stop();
});

test('reserved addresses - role local parts are refused on a service domain with 403 address_reserved', async (t) => {
  const { api_key } = await svc.createAccount('free');
  for (const local of ['postmaster', 'Admin', 'hostmaster', 'webmaster', 'abuse', 'root', 'security', 'ssladmin', 'ssl-admin', 'administrator', 'info', 'noc', 'Support', 'sales', 'marketing', 'www', 'ftp', 'news', 'usenet', 'uucp', 'admin+ca']) {
    const res = await svc.api(api_key, 'POST', '/v1/inboxes', { address: `${local}@mailcue.test` });
    t.is(res.status, 403, local);
    const body = (await res.json()) as Json;
    t.like(body, { success: false, error: 'address_reserved' }, local);
  }
  const ok = await svc.api(api_key, 'POST', '/v1/inboxes', { address: 'admins-team@mailcue.test' });
  t.is(ok.status, 201, 'a longer local part that only starts with a role name is free');
});

test('reserved addresses - an address freed by deletion is refused to another account (409 address_taken) and stays its owner\'s', async (t) => {
  const owner = (await svc.createAccount('free')).api_key;
  const stranger = (await svc.createAccount('free')).api_key;
  const address = `reset-${Date.now().toString(36)}@mailcue.test`;
  t.is((await svc.api(owner, 'POST', '/v1/inboxes', { address })).status, 201);
  t.is((await svc.api(owner, 'DELETE', `/v1/inboxes/${address}`)).status, 200);

  const taken = await svc.api(stranger, 'POST', '/v1/inboxes', { address });
  t.is(taken.status, 409);
  const body = (await taken.json()) as Json;
  t.like(body, { success: false, error: 'address_taken' });
  t.regex(body.message, /held for its previous owner until \d{4}-\d\d-\d\dT/);

  t.is((await svc.api(owner, 'POST', '/v1/inboxes', { address })).status, 201, 'the account that freed it may take it again');
});
