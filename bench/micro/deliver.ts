// What storing one mail costs a shard: `inbox.deliver` of a parsed small bench mail, straight into
// ShardActors on a fresh LMDB env (durable commits, the oplog on), `--inflight` deliveries at a
// time as the SMTP ingress sends them. Reports deliveries/s and CPU µs per delivery of the whole
// process (the shard's thread plus lmdb's commit threads), so a storage change is weighed without
// SMTP, parsing or gRPC around it. Bounded in count and time.
// `--large`: the ~100 KB bench mails with an attachment instead of the small OTP ones.
//   npm run build && node --import tsx bench/micro/deliver.ts [--quick] [--large] [--inflight 5] [--rounds 3]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ShardActors } from '../../dist/actors/shard-actors.js';
import { loadConfig } from '../../dist/config/config.js';
import { parseMail } from '../../dist/mail/parse-mail.js';
import { Cancellation } from '../../dist/util/cancel.js';
import { largeMail, smallMail } from '../lib/mails.js';
import { numberArg } from '../lib/args.js';

const quick = process.argv.includes('--quick');
const inflight = numberArg('--inflight', 5);
const rounds = numberArg('--rounds', quick ? 1 : 3);
const large = process.argv.includes('--large');
const MAILS = (quick ? 3_000 : 12_000) / (large ? 4 : 1);
const WARMUP = (quick ? 1_000 : 4_000) / (large ? 4 : 1);
const INBOXES = 500;
const TIME_LIMIT_MS = 60_000;

const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-deliver-'));
const actors = new ShardActors(0, loadConfig({}), dir, 'cd'.repeat(32));
const run = (command: unknown) => actors.dispatch(command as never, { signal: new Cancellation(), deadline: 0 });

try {
  const accountId = 'acc_bench';
  await run({ type: 'account.create', id: accountId, name: null, plan: 'enterprise', key: 'mc_bench_key', created_at: new Date().toISOString() });
  const inboxes = Array.from({ length: INBOXES }, (_, i) => `box${i}@bench.test`);
  for (const address of inboxes) await run({ type: 'inbox.create', accountId, address, domain: 'bench.test' });
  // Raw bytes and parse result of real bench mails; each delivery gets its own digest, as SMTP gives.
  const samples = await Promise.all(Array.from({ length: 16 }, async (_, i) => {
    const raw = (large ? largeMail : smallMail)(inboxes[i]!, 'micro', i).data;
    return { raw, message: await parseMail(raw) };
  }));

  let seq = 0;
  async function deliverMany(count: number): Promise<{ rate: number; cpuUs: number }> {
    const cpu = process.cpuUsage();
    const start = performance.now();
    let next = 0;
    const worker = async () => {
      while (next < count && performance.now() - start < TIME_LIMIT_MS) {
        next++;
        const n = seq++;
        const sample = samples[n % samples.length]!;
        await run({ type: 'inbox.deliver', addresses: [inboxes[n % INBOXES]!], message: sample.message, raw: sample.raw, digest: `d${n}` });
      }
    };
    await Promise.all(Array.from({ length: inflight }, worker));
    const seconds = (performance.now() - start) / 1000;
    const used = process.cpuUsage(cpu);
    return { rate: next / seconds, cpuUs: (used.user + used.system) / next };
  }

  await deliverMany(WARMUP);
  for (let r = 1; r <= rounds; r++) {
    const { rate, cpuUs } = await deliverMany(MAILS);
    console.log(`round ${r}: ${Math.round(rate)} deliveries/s, ${cpuUs.toFixed(0)} µs CPU per delivery (${inflight} in flight)`);
  }
} finally {
  await actors.close();
  rmSync(dir, { recursive: true, force: true });
}
