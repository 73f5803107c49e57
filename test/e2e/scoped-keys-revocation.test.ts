// Attack: keep using a scoped key after it was deleted or rotated, through a front that has it
// cached and leased (DESIGN §7: revocations reach every front within 1 s). Two fronts, two shards:
// the key, a token it granted and an MCP session it opened are made busy on front 2; the key is
// deleted (or rotated) through front 1; front 2 must refuse all of them within a second.
import test from 'ava';
import { metricValue } from '../helpers/isolation.js';
import { rawInitialize, rawMcp } from '../helpers/mcp.js';
import { startService, type Service } from '../helpers/service.js';

type Json = Record<string, any>;
let svc: Service;
const REVOKED_WITHIN_MS = 1_000;

test.before(async () => {
  svc = await startService({ clusterShards: 2, fronts: 2 });
});
test.after.always(async () => {
  await svc?.stop();
});

const get = (url: string, token: string, path = '/v1/inboxes') => fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } }).then(async (r) => {
  await r.arrayBuffer();
  return r.status;
});

async function newKey(url: string, apiKey: string): Promise<Json> {
  const res = await fetch(`${url}/v1/keys`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: '{}' });
  return ((await res.json()) as Json).data;
}

async function clientToken(url: string, key: Json): Promise<string> {
  const res = await fetch(`${url}/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: key.id, client_secret: key.key }),
  });
  return ((await res.json()) as Json).access_token;
}

/** Busy on this front: admitted here many times a second, so it is cached and leased. */
async function warm(url: string, tokens: string[]): Promise<void> {
  for (let i = 0; i < 12; i++) for (const token of tokens) if ((await get(url, token)) !== 200) throw new Error('not admitted while warming');
}

/** Polls until every credential is refused on `url`; answers how long after `since` that was. */
async function refusedAfter(url: string, tokens: string[], since: number): Promise<number> {
  const deadline = since + 10_000;
  for (;;) {
    const statuses = await Promise.all(tokens.map((token) => get(url, token)));
    if (statuses.every((s) => s === 401)) return Date.now() - since;
    if (Date.now() > deadline) throw new Error(`still admitted 10 s after the revocation: ${statuses.join(',')}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const leasesSpent = async (front: number) => metricValue(await svc.metrics(front), 'mailcue_leased_admissions');

test('key revocation - deleting a key refuses it, its token and its session on the other front within 1 s', async (t) => {
  const [front1, front2] = svc.frontUrls as [string, string];
  const account = await svc.createAccount('enterprise');
  const key = await newKey(front1, account.api_key);
  const token = await clientToken(front2, key);
  const session = await rawInitialize(front2, key.key);
  const spentBefore = await leasesSpent(1);
  await warm(front2, [key.key, token]);
  const spentAfter = await leasesSpent(1);
  t.true(spentAfter > spentBefore, 'front 2 spends leases for the busy key: only the push can stop it');
  const sessionsBefore = ((await (await fetch(`${front1}/v1/account`, { headers: { authorization: `Bearer ${account.api_key}` } })).json()) as Json).data.sessions_open;
  t.is(sessionsBefore, 1);

  const deleted = await fetch(`${front1}/v1/keys/${key.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${account.api_key}` } });
  const at = Date.now();
  t.is(deleted.status, 200);
  const took = await refusedAfter(front2, [key.key, token], at);
  t.log(`refused on the other front ${took} ms after the delete answered`);
  t.true(took < REVOKED_WITHIN_MS, `${took} ms`);
  const call = await rawMcp(front2, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${account.api_key}`, 'mcp-session-id': session });
  t.is(call.status, 404, 'the session the key opened is gone');
  const usage = (await (await fetch(`${front1}/v1/account`, { headers: { authorization: `Bearer ${account.api_key}` } })).json()) as Json;
  t.is(usage.data.sessions_open, 0, 'the shard freed its slot');
  t.is(await get(front2, account.api_key), 200, 'the account key is untouched');
});

test('key revocation - rotating a key refuses the old secret and its token on the other front within 1 s; the new one works', async (t) => {
  const [front1, front2] = svc.frontUrls as [string, string];
  const account = await svc.createAccount('enterprise');
  const key = await newKey(front2, account.api_key);
  const token = await clientToken(front1, key);
  await warm(front1, [key.key, token]);
  const rotated = await fetch(`${front2}/v1/keys/${key.id}/rotate`, { method: 'POST', headers: { authorization: `Bearer ${account.api_key}` } });
  const at = Date.now();
  t.is(rotated.status, 200);
  const fresh = ((await rotated.json()) as Json).data.key as string;
  const took = await refusedAfter(front1, [key.key, token], at);
  t.log(`refused on the other front ${took} ms after the rotation answered`);
  t.true(took < REVOKED_WITHIN_MS, `${took} ms`);
  t.is(await get(front1, fresh), 200);
  t.is(await get(front1, await clientToken(front1, { id: key.id, key: fresh })), 200);
});
