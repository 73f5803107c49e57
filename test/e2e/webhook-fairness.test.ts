// Attack: a greedy tenant with a receiver that never answers and a long backlog of notifications
// (issue 33, DESIGN §7 "Shared workers are fair"). The webhook senders of a shard were first come,
// first served: the backlog held every sender for the per-attempt timeout and another tenant's
// notification waited behind it. Now each account has its share and waits behind its own work.
import test from 'ava';
import { sendMail } from '../helpers/mail.js';
import { startReceiver, type Receiver } from '../helpers/https-receiver.js';
import { startService, type Service } from '../helpers/service.js';
import { until } from '../helpers/wait.js';

type Json = Record<string, any>;
let svc: Service;
let receiver: Receiver;
const TIMEOUT_MS = 8_000;
/** More notifications than the shard has senders, all to a receiver that never answers. */
const BACKLOG = 300;

test.before(async () => {
  receiver = await startReceiver();
  svc = await startService({
    env: {
      MAILCUE_WEBHOOK_CA_FILE: receiver.caFile, MAILCUE_WEBHOOK_ALLOW_PRIVATE: 'true', MAILCUE_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      // One shard: every notification of both tenants goes through the same senders.
      MAILCUE_SHARD_COUNT: '1',
    },
  });
});
test.after.always(async () => {
  await svc?.stop();
  await receiver?.close();
});

async function tenant(path: string): Promise<{ key: string; inbox: string }> {
  const { api_key: key } = await svc.createAccount('growth');
  const inbox = ((await (await svc.api(key, 'POST', '/v1/inboxes', {})).json()) as Json).data.address as string;
  const res = await svc.api(key, 'POST', '/v1/webhooks', { inbox, url: receiver.url.replace('/hook', path) });
  if (res.status !== 201) throw new Error(`webhook: ${res.status} ${await res.text()}`);
  return { key, inbox };
}

test('webhook fairness - a greedy tenant with a hanging receiver and a long backlog does not hold back another tenant\'s notification', async (t) => {
  const greedy = await tenant('/greedy');
  const other = await tenant('/other');
  // The receiver checks signatures with the greedy tenant's key: its requests hang; the other
  // tenant's are answered 401 at once, which is still a delivery that arrived.
  receiver.key = greedy.key;
  receiver.scripts['/greedy'] = Array.from({ length: BACKLOG * 2 }, () => 'hang' as const);
  for (let i = 0; i < BACKLOG; i += 20) {
    await Promise.all(Array.from({ length: Math.min(20, BACKLOG - i) }, (_, j) => sendMail(svc.smtpPort, { to: greedy.inbox, subject: `flood ${i + j}`, text: 'x' })));
  }
  // The greedy tenant's attempts are on the wire and hang.
  await until(() => receiver.deliveries.filter((d) => d.url === '/greedy').length >= 20, 'greedy attempts reach the receiver', 30_000);
  const sentAt = Date.now();
  await sendMail(svc.smtpPort, { to: other.inbox, subject: 'mine', text: 'y' });
  await until(() => receiver.deliveries.some((d) => d.url === '/other'), 'the other tenant\'s notification', 30_000);
  const arrived = receiver.deliveries.find((d) => d.url === '/other')!.at;
  const waited = arrived - sentAt;
  t.log(`the other tenant's notification arrived ${waited} ms after its mail was sent`);
  t.true(waited < TIMEOUT_MS / 2, `waited ${waited} ms behind the greedy tenant's backlog (attempt timeout ${TIMEOUT_MS} ms)`);
  // Attempts that reached the receiver less than a timeout before are still hanging: in flight.
  const greedyInFlight = receiver.deliveries.filter((d) => d.url === '/greedy' && d.at > arrived - TIMEOUT_MS + 1000 && d.at <= arrived).length;
  t.true(greedyInFlight <= 32, `the greedy tenant holds ${greedyInFlight} senders; its share is 32`);
});
