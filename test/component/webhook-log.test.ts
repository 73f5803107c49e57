// Component: a webhook's delivery log on a real LMDB env keeps its newest entries only (trimmed
// every 32 writes, so never more than 31 beyond them), newest first, and trimming one webhook's log
// leaves another's alone.
import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openShardStore } from '../../src/storage/shard-store.js';

const at = '2026-11-24T00:00:00.000Z';

test('webhook log - logging past the limit drops the oldest entries, newest first, per webhook', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-webhooklog-'));
  const store = openShardStore(dir);
  t.teardown(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await store.transaction(() => {
    for (const id of ['wh_a', 'wh_b']) {
      store.webhooks.create({ id, account_id: 'acc_log', inbox: `${id}@x.test`, url: 'https://h.example/', created_at: at, failure_count: 0, disabled: false });
    }
  });
  const keep = 10;
  const written = 70;
  for (let i = 0; i < written; i++) {
    await store.transaction(() => {
      store.webhooks.logDelivery('wh_a', 1_000 + i, `evt_${i}`, 0, { at, status: 200 + i, latency_ms: i, error: null }, keep);
      if (i < 3) store.webhooks.logDelivery('wh_b', 1_000 + i, `evt_b${i}`, 0, { at, status: 500, latency_ms: i, error: 'HTTP 500' }, keep);
    });
  }
  const a = store.webhooks.deliveries('wh_a', keep);
  t.deepEqual(a.map((d) => d.status), Array.from({ length: keep }, (_, k) => 200 + written - 1 - k));
  // Trimmed at the 1st, 33rd and 65th write: the newest 10 then, and the 5 written since.
  t.is(store.webhooks.deliveries('wh_a', 1000).length, keep + 5);
  t.is(store.webhooks.deliveries('wh_b', 1000).length, 3);
});
