// Attack: keep using what a rotated-out key handed out (DESIGN §7 "Credentials"). After a key
// rotation every access token, refresh token, authorization code and MCP session of the old key is
// refused at once on both front tiers of a cluster; refreshing never extends a grant.
import test from 'ava';
import { metricValue, parkVictim, serviceRss } from '../helpers/isolation.js';
import { rawInitialize, rawMcp } from '../helpers/mcp.js';
import { authorizationCode, redeem, refresh } from '../helpers/oauth.js';
import { startService, type Service } from '../helpers/service.js';
import { until } from '../helpers/wait.js';

type Json = Record<string, any>;
let svc: Service;

test.before(async () => {
  svc = await startService({ clusterShards: 2, fronts: 2 });
});
test.after.always(async () => {
  await svc?.stop();
});

const tools = (url: string, token: string, session: string) =>
  rawMcp(url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_inboxes', arguments: {} } }, { authorization: `Bearer ${token}`, 'mcp-session-id': session });

test('credentials - a rotation revokes every token, refresh token, code and session of the old key on both fronts', async (t) => {
  const [front1, front2] = svc.frontUrls as [string, string];
  const account = await svc.createAccount('enterprise');
  const oldKey = account.api_key;
  const bystander = await parkVictim(svc);
  // Two grants per front: one redeemed (access + refresh token), one code left unredeemed.
  const issued = [];
  for (const url of [front1, front2]) {
    const redeemed = await redeem(url, oldKey, await authorizationCode(url, oldKey));
    t.is(redeemed.status, 200);
    issued.push({ url, access: redeemed.body.access_token as string, refresh: redeemed.body.refresh_token as string, code: await authorizationCode(url, oldKey) });
  }
  // Sessions on both fronts, opened with the key and with a token; a legacy SSE stream on front 2.
  const sessions = [
    { url: front1, id: await rawInitialize(front1, oldKey) },
    { url: front2, id: await rawInitialize(front2, issued[1]!.access) },
    { url: front1, id: await rawInitialize(front1, issued[0]!.access) },
  ];
  for (const s of sessions) t.is((await tools(s.url, oldKey, s.id)).status, 200);
  const sse = await fetch(`${front2}/sse`, { headers: { authorization: `Bearer ${oldKey}`, accept: 'text/event-stream' } });
  t.is(sse.status, 200);
  const sseClosed = sse.text();
  const rotations = (front: number) => svc.metrics(front).then((text) => metricValue(text, 'mailcue_notices_total', 'kind="rotated"'));
  const rotationsBefore = [await rotations(0), await rotations(1)];

  const rotatedAt = Date.now();
  const rotated = await svc.admin('POST', `/admin/v1/accounts/${account.id}/rotate-key`);
  t.is(rotated.status, 200);
  const newKey = ((await rotated.json()) as Json).data.api_key as string;
  // The push closes the old legacy stream on the other front. (Refusal itself does not wait for
  // it: every check below is made by the account's shard, at once.)
  await sseClosed;
  t.log(`legacy SSE stream on the other front closed ${Date.now() - rotatedAt} ms after the rotation was sent`);

  // Refused at once, on both fronts: the account's shard checks every one of these.
  for (const url of [front1, front2]) {
    t.is((await fetch(`${url}/v1/inboxes`, { headers: { authorization: `Bearer ${oldKey}` } })).status, 401, url);
    for (const grant of issued) {
      const viaToken = await rawMcp(url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }, {
        authorization: `Bearer ${grant.access}`,
      });
      t.is(viaToken.status, 401, 'access token');
      t.like(await viaToken.json(), { error: { code: -32002 } });
    }
  }
  for (const grant of issued) {
    // Each front tries the other front's refresh token and code: a refused one is also consumed.
    const other = grant.url === front1 ? front2 : front1;
    t.like(await refresh(other, grant.refresh), { status: 400, body: { error: 'invalid_grant' } }, 'refresh token');
    t.like(await redeem(other, oldKey, grant.code), { status: 401, body: { error: 'invalid_client' } }, 'code with the old key');
  }
  // A fresh code for the new key is fine, but the old key's codes stay dead even with the new key.
  t.like(await redeem(front2, newKey, issued[0]!.code), { status: 400, body: { error: 'invalid_grant' } });
  t.like(await redeem(front2, newKey, await authorizationCode(front2, newKey)), { status: 200 });
  // The old sessions are gone everywhere, even for a caller holding the new key.
  for (const s of sessions) {
    const res = await tools(s.url, newKey, s.id);
    t.is(res.status, 404, s.url);
    t.like(await res.json(), { error: { code: -32000, message: 'Session not found' } });
  }
  // The notice reached every front.
  for (const front of [0, 1]) t.is(await rotations(front), rotationsBefore[front]! + 1, `front ${front}`);
  const usage = (await (await fetch(`${front1}/v1/account`, { headers: { authorization: `Bearer ${newKey}` } })).json()) as Json;
  t.is(usage.data.sessions_open, 0, 'the shard freed the old sessions');
  const rss = serviceRss(svc);
  t.true(rss > 0);
  await bystander.assertUnaffected(t);
});

test('credentials - refreshing never extends a grant: its refresh tokens end with it', async (t) => {
  const short = await startService({ env: { MAILCUE_OAUTH_GRANT_TTL_MS: '10000' } });
  try {
    const { api_key } = await short.createAccount('growth');
    const first = await redeem(short.baseUrl, api_key, await authorizationCode(short.baseUrl, api_key));
    // The grant began before this answer arrived: waiting from here passes its end for sure.
    const grantedAt = Date.now();
    t.is(first.status, 200);
    t.true(first.body.expires_in <= 10, 'no access token outlives its grant');
    const second = await refresh(short.baseUrl, first.body.refresh_token);
    t.is(second.status, 200);
    t.true(second.body.expires_in <= 10);
    // Past the grant's absolute end (an end fixed at redemption, not a race), the newest refresh
    // token, issued well inside the grant, is refused, and so is its access token.
    await new Promise((r) => setTimeout(r, Math.max(0, grantedAt + 10_500 - Date.now())));
    t.like(await refresh(short.baseUrl, second.body.refresh_token), { status: 400, body: { error: 'invalid_grant' } });
    t.is((await rawMcp(short.baseUrl, { jsonrpc: '2.0', id: 1, method: 'ping' }, { authorization: `Bearer ${second.body.access_token}` })).status, 401);
  } finally {
    await short.stop();
  }
});

test('credentials - expired codes and tokens are purged from the shards', async (t) => {
  const short = await startService({ env: { MAILCUE_OAUTH_CODE_TTL_MS: '3000', MAILCUE_PURGE_INTERVAL_MS: '200' } });
  try {
    const { api_key } = await short.createAccount('growth');
    const records = async () => metricValue(await short.metrics(), 'mailcue_oauth_records');
    for (let i = 0; i < 5; i++) await authorizationCode(short.baseUrl, api_key);
    t.is(await records(), 5, 'five live codes are stored');
    await until(async () => (await records()) === 0, 'the expired codes to be purged');
    const live = await redeem(short.baseUrl, api_key, await authorizationCode(short.baseUrl, api_key));
    t.is(live.status, 200);
    // An access and a refresh token that have not expired are kept.
    await until(async () => (await records()) === 2, 'the live access and refresh token, kept');
  } finally {
    await short.stop();
  }
});
