// End to end: `mailcue wait --timeout` longer than the server's 60 s cap on one long-poll. The
// first poll times out at 60 s on the server, the client asks again, and a code sent during the
// second poll is printed. And a wait that outlives a restart of the service. Slow by nature (just
// over a minute), so in a file of its own.
import test from 'ava';
import { runCli, tempConfigHome } from '../helpers/cli.js';
import { sendMail } from '../helpers/mail.js';
import { startService, type Service } from '../helpers/service.js';
import { parked, until } from '../helpers/wait.js';

let svc: Service;

test.before(async () => {
  svc = await startService({ restartable: true });
});
test.after.always(async () => {
  await svc?.stop();
});

/** Long-polls answered so far (any status), from the front's request counter. */
async function waitsAnswered(): Promise<number> {
  const text = await svc.metrics();
  let total = 0;
  for (const m of text.matchAll(/^mailcue_http_requests_total\{[^}]*route="[^"]*messages\/wait"[^}]*\} (\d+)/gm)) total += Number(m[1]);
  return total;
}

test.serial('cli wait - repeats the long-poll past the 60 s server cap and returns the code sent during the second poll', async (t) => {
  const key = (await svc.createAccount('free')).api_key;
  const inbox = ((await (await svc.api(key, 'POST', '/v1/inboxes', {})).json()) as { data: { address: string } }).data.address;
  const before = await waitsAnswered();
  const waiting = runCli(['wait', inbox, '--otp', '--timeout', '100'], { env: { MAILCUE_URL: svc.baseUrl, MAILCUE_API_KEY: key, XDG_CONFIG_HOME: tempConfigHome() } });
  // The first poll (60 s) has been answered timed out and the second one is parked.
  await until(async () => (await waitsAnswered()) === before + 1 && (await svc.parkedWaiters()) === 1, 'the 60 s poll answered and the second one parked', 90_000);
  t.is(await waitsAnswered(), before + 1, 'one long-poll answered (the 60 s one)');
  await sendMail(svc.smtpPort, { to: inbox, subject: 'Late code', text: 'Your verification code is 918273' });
  const r = await waiting;
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, '918273\n');
  t.is(await waitsAnswered(), before + 2);
});

test.serial('cli wait - rides out a restart of the service: polls again once it is back, and finds the code', async (t) => {
  const key = (await svc.createAccount('free')).api_key;
  const inbox = ((await (await svc.api(key, 'POST', '/v1/inboxes', {})).json()) as { data: { address: string } }).data.address;
  const waiting = runCli(['wait', inbox, '--otp', '--timeout', '100'], { env: { MAILCUE_URL: svc.baseUrl, MAILCUE_API_KEY: key, XDG_CONFIG_HOME: tempConfigHome() } });
  await parked(svc);
  await svc.restart(); // the parked poll is answered at shutdown, then connections are refused for a while
  await parked(svc);
  await sendMail(svc.smtpPort, { to: inbox, subject: 'After restart', text: 'Your verification code is 246810' });
  const r = await waiting;
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, '246810\n');
  t.is(r.stderr, '');
});
