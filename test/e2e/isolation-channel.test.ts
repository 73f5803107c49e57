// Attack class: one request that is too large for the front↔shard channel. One ~9.6 MB message to
// 36 of the sender's own inboxes, and twenty parallel raw reads of it, used to put more than 64 MiB
// into one gRPC stream message; grpc-js failed the stream and every call on it, so another
// account's parked long-polls ended with 503 (issue 11). No stream message may now pass 4 MiB.
import test from 'ava';
import { sendMail } from '../helpers/mail.js';
import { assertAlive, MiB, parkVictim, rssBytes } from '../helpers/isolation.js';
import { startService, type Service } from '../helpers/service.js';

type Json = Record<string, any>;
let svc: Service;

test.before(async () => {
  svc = await startService();
});
test.after.always(async () => {
  await svc?.stop();
});

test('isolation channel - a 9.6 MB mail to 36 inboxes and 20 parallel raw reads of it leave another account untouched', async (t) => {
  const victim = await parkVictim(svc);
  const pid = svc.processes[0]!.pid!;
  const rssBefore = rssBytes(pid);

  const { api_key: key } = await svc.createAccount('growth');
  const inboxes: string[] = [];
  for (let i = 0; i < 36; i++) inboxes.push(((await (await svc.api(key, 'POST', '/v1/inboxes', {})).json()) as Json).data.address);
  // Base64 lines of a large attachment: ~9.6 MB on the wire, under the 10 MiB limit.
  const payload = Buffer.alloc(7 * MiB, 'attack-');
  const sent = await sendMail(svc.smtpPort, { to: inboxes, subject: 'big', text: 'hello', attachments: [{ filename: 'big.bin', content: payload }] });
  t.regex(sent.response, /^250/);

  t.log(`after ingest ${((rssBytes(pid) - rssBefore) / MiB).toFixed(0)} MiB`);
  const list = (await (await svc.api(key, 'GET', `/v1/inboxes/${inboxes[0]}/messages`)).json()) as Json;
  const id = list.data[0].id;
  const readRound = async (): Promise<void> => {
    const readStart = Date.now();
    const reads = await Promise.all(
      Array.from({ length: 20 }, () => svc.api(key, 'GET', `/v1/inboxes/${inboxes[0]}/messages/${id}/raw`).then(async (r) => ({ status: r.status, size: (await r.arrayBuffer()).byteLength }))),
    );
    t.log(`20 raw reads in ${Date.now() - readStart} ms`);
    for (const r of reads) {
      t.is(r.status, 200);
      t.true(r.size > 9 * MiB && r.size < 10 * MiB, `raw size ${r.size}`);
    }
  };
  await readRound();
  await victim.assertUnaffected(t);
  await assertAlive(t, svc);

  // RSS after one round is mostly garbage four V8 isolates have not collected yet: it varies by
  // hundreds of MiB from run to run, and on a busy machine so does each later round's (-5 to 256
  // MiB seen over two). So memory is judged by repetition: reads that kept what they read would
  // add at least a whole round's 190 MB each time, 950 MB over five more rounds; GC lag does not
  // grow with the number of rounds.
  const afterFirst = rssBytes(pid);
  t.log(`RSS grew by ${((afterFirst - rssBefore) / MiB).toFixed(0)} MiB over the mail and the first round`);
  // Garbage too, so only a loose bound: 1.5 GiB (up to 690 MiB seen on a busy machine).
  t.true(afterFirst - rssBefore < 1536 * MiB, 'the mail and the first round stayed within 1.5 GiB');
  for (let round = 0; round < 5; round++) await readRound();
  const grown = rssBytes(pid) - afterFirst;
  t.log(`five more rounds grew RSS by ${(grown / MiB).toFixed(0)} MiB`);
  t.true(grown < 475 * MiB, `five more rounds grew RSS by ${(grown / MiB).toFixed(0)} MiB`);
});
