// Attack class: what the service leaves readable. /metrics (per-route traffic, shard timings) was
// open on the public port and ./data was created 0755 with data.mdb 0644 (issue 11). The data dir
// is now 0700 with every file in it 0600, and /metrics lives on the loopback ops listener only.
import test from 'ava';
import { lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assertAlive, parkVictim } from '../helpers/isolation.js';
import { startService, type Service } from '../helpers/service.js';

let svc: Service;
const parent = mkdtempSync(path.join(os.tmpdir(), 'mailcue-rest-'));

test.before(async () => {
  // A data dir that does not exist yet: the service creates it.
  svc = await startService({ dataDir: path.join(parent, 'data') });
});
test.after.always(async () => {
  await svc?.stop();
  rmSync(parent, { recursive: true, force: true });
});

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return lstatSync(full).isDirectory() ? [full, ...walk(full)] : [full];
  });
}

test('isolation at rest - the data dir is 0700 and every file in it (LMDB, key, sockets) 0600', async (t) => {
  const victim = await parkVictim(svc);
  const { api_key: key } = await svc.createAccount('growth');
  t.is((await svc.api(key, 'POST', '/v1/inboxes', {})).status, 201);
  t.is(lstatSync(svc.dataDir).mode & 0o777, 0o700);
  const entries = walk(svc.dataDir);
  t.true(entries.some((e) => e.endsWith('data.mdb')), 'LMDB files were created');
  t.true(entries.some((e) => e.endsWith('.sock')), 'shard sockets were created');
  for (const entry of entries) {
    const stat = lstatSync(entry);
    t.is(stat.mode & 0o777, stat.isDirectory() ? 0o700 : 0o600, entry);
  }
  await victim.assertUnaffected(t);
  await assertAlive(t, svc);
});

test('isolation at rest - /metrics answers 404 on the public port and only on the ops listener, with the probes', async (t) => {
  const victim = await parkVictim(svc);
  const pub = await fetch(`${svc.baseUrl}/metrics`);
  t.is(pub.status, 404);
  t.is(((await pub.json()) as { error: string }).error, 'route_not_found');
  for (const probe of ['/livez', '/readyz', '/healthz']) t.is((await fetch(`${svc.baseUrl}${probe}`)).status, 200, probe);

  const ops = await fetch(`${svc.opsUrls[0]}/metrics`);
  t.is(ops.status, 200);
  t.regex(await ops.text(), /^mailcue_parked_waiters \d+/m);
  for (const probe of ['/livez', '/readyz']) t.is((await fetch(`${svc.opsUrls[0]}${probe}`)).status, 200, probe);
  t.is((await fetch(`${svc.opsUrls[0]}/v1/inboxes`)).status, 404, 'the ops listener serves nothing else');
  await victim.assertUnaffected(t);
  await assertAlive(t, svc);
});
