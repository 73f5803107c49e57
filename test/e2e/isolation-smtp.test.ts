// Attack class: SMTP input that costs the front memory or connections. DATA used to be buffered
// whole before the size check (a 200–400 MB DATA against a 10 MB limit raised memory by 400–540 MB);
// recipients, connections and in-flight bytes were unbounded; every client cost a reverse DNS
// lookup (issue 11). Raw sockets, since client libraries refuse to send what the server refuses.
import test from 'ava';
import { sendMail } from '../helpers/mail.js';
import { assertAlive, metricValue, MiB, parkVictim, rssBytes } from '../helpers/isolation.js';
import { startService, type Service } from '../helpers/service.js';
import { SmtpSocket } from '../helpers/smtp-socket.js';
import { until } from '../helpers/wait.js';

type Json = Record<string, any>;
let svc: Service;

test.before(async () => {
  svc = await startService();
});
test.after.always(async () => {
  await svc?.stop();
});

async function inbox(s: Service, key: string): Promise<string> {
  return ((await (await s.api(key, 'POST', '/v1/inboxes', {})).json()) as Json).data.address;
}

test.serial('isolation smtp - a 200 MB DATA against the 10 MB limit is discarded as it streams: 552, memory flat, others untouched', async (t) => {
  const victim = await parkVictim(svc);
  const { api_key: key } = await svc.createAccount('growth');
  const target = await inbox(svc, key);
  const pid = svc.processes[0]!.pid!;
  const before = rssBytes(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 50);

  const { smtp } = await SmtpSocket.open(svc.smtpPort);
  t.regex(await smtp.command('EHLO attacker.test'), /^250/);
  t.regex(await smtp.command('MAIL FROM:<a@attacker.test>'), /^250/);
  t.regex(await smtp.command(`RCPT TO:<${target}>`), /^250/);
  t.regex(await smtp.command('DATA'), /^354/);
  await smtp.write('Subject: huge\r\n\r\n');
  const line = `${'x'.repeat(998)}\r\n`;
  const chunk = Buffer.from(line.repeat(1024)); // ~1 MB
  for (let sent = 0; sent < 200 * MiB; sent += chunk.length) await smtp.write(chunk);
  await smtp.write('.\r\n');
  const answer = await smtp.reply();
  clearInterval(sampler);
  t.regex(answer, /^552 /);
  t.regex(await smtp.command('QUIT'), /^221/);
  smtp.close();

  const grown = peak - before;
  t.log(`peak RSS growth during the DATA: ${(grown / MiB).toFixed(1)} MiB`);
  // Streamed and discarded, the process grows by what V8 lets the chunks pile up to before a GC:
  // 45.6-68.2 MiB over five CI runs on 2026-11-28 (the old 64 MiB bound failed one). Kept whole,
  // the 200 MB would take 200 MiB and more.
  t.true(grown < 100 * MiB, `RSS grew by ${(grown / MiB).toFixed(1)} MiB`);
  const list = (await (await svc.api(key, 'GET', `/v1/inboxes/${target}/messages`)).json()) as Json;
  t.is(list.count, 0, 'nothing of it was stored');
  await victim.assertUnaffected(t);
  await assertAlive(t, svc);
});

test.serial('isolation smtp - no reverse DNS lookup of the client: the greeting names its bare IP', async (t) => {
  // smtp-server resolves each client's PTR name through the system resolver unless told not to;
  // the EHLO answer then names that host instead of the address literal.
  const { smtp } = await SmtpSocket.open(svc.smtpPort);
  const ehlo = await smtp.command('EHLO client.test');
  smtp.close();
  t.regex(ehlo, /Nice to meet you, \[127\.0\.0\.1\]/);
});

test.serial('isolation smtp - recipients, connections per IP and in-flight DATA bytes are capped, with the documented replies', async (t) => {
  const small = await startService({
    env: {
      MAILCUE_SMTP_MAX_RECIPIENTS: '3',
      MAILCUE_SMTP_MAX_CONNECTIONS_PER_IP: '4',
      MAILCUE_SMTP_MAX_INFLIGHT_BYTES: String(2 * MiB),
    },
  });
  try {
    const victim = await parkVictim(small, 2);
    const { api_key: key } = await small.createAccount('growth');
    const boxes = [await inbox(small, key), await inbox(small, key), await inbox(small, key), await inbox(small, key)];

    const { smtp } = await SmtpSocket.open(small.smtpPort);
    await smtp.command('EHLO attacker.test');
    await smtp.command('MAIL FROM:<a@attacker.test>');
    for (const box of boxes.slice(0, 3)) t.regex(await smtp.command(`RCPT TO:<${box}>`), /^250/);
    t.regex(await smtp.command(`RCPT TO:<${boxes[3]}>`), /^452 4\.5\.3/);

    // A message under the size limit but over what the front may hold at once: 451 4.3.2.
    t.regex(await smtp.command('DATA'), /^354/);
    await smtp.write('Subject: heavy\r\n\r\n');
    const line = Buffer.from(`${'y'.repeat(998)}\r\n`.repeat(1024));
    for (let i = 0; i < 3; i++) await smtp.write(line);
    await smtp.write('.\r\n');
    t.regex(await smtp.reply(), /^451 4\.3\.2/);

    // Three more connections fill this IP's four; the fifth is refused with 421.
    const held = [smtp];
    for (let i = 0; i < 3; i++) held.push((await SmtpSocket.open(small.smtpPort)).smtp);
    const refused = await SmtpSocket.open(small.smtpPort);
    t.regex(refused.greeting, /^421 /);
    refused.smtp.close();
    for (const s of held) s.close();

    // Closed connections give their slots back; a normal mail goes through.
    let sent: { response: string } | null = null;
    for (let i = 0; i < 50 && !sent; i++) {
      sent = await sendMail(small.smtpPort, { to: boxes[0], subject: 'ok', text: 'fine' }).catch(() => null);
      if (!sent) await new Promise((r) => setTimeout(r, 50));
    }
    t.regex(sent?.response ?? '', /^250/);
    await victim.assertUnaffected(t);
    await assertAlive(t, small);
  } finally {
    await small.stop();
  }
});

test.serial('isolation smtp - one client IP holds at most its share of the in-flight DATA budget; another IP still gets through', async (t) => {
  const small = await startService({
    env: { MAILCUE_SMTP_MAX_INFLIGHT_BYTES: String(4 * MiB), MAILCUE_SMTP_MAX_INFLIGHT_BYTES_PER_IP: String(MiB) },
  });
  try {
    const { api_key: key } = await small.createAccount('growth');
    const box = await inbox(small, key);
    const line = `${'z'.repeat(1022)}\r\n`;
    const begin = async (from: string) => {
      const { smtp } = await SmtpSocket.open(small.smtpPort, from);
      await smtp.command('EHLO client.test');
      await smtp.command('MAIL FROM:<s@sender.test>');
      t.regex(await smtp.command(`RCPT TO:<${box}>`), /^250/);
      t.regex(await smtp.command('DATA'), /^354/);
      await smtp.write('Subject: weight\r\n\r\n');
      return smtp;
    };
    const inflight = async () => metricValue(await small.metrics(), 'mailcue_smtp_inflight_bytes');

    // 127.0.0.2 streams 900 KiB of a message and holds it open: the front holds those bytes.
    const holder = await begin('127.0.0.2');
    await holder.write(line.repeat(900));
    await until(async () => (await inflight()) >= 900 * 1024, 'the first 900 KiB held');

    // The same IP on another connection: 300 KiB more is over its 1 MiB share, though the front has room.
    const greedy = await begin('127.0.0.2');
    await greedy.write(line.repeat(300));
    await greedy.write('.\r\n');
    t.regex(await greedy.reply(), /^451 4\.3\.2/);
    greedy.close();

    // Another IP sends as much as the holder holds: 250.
    const other = await begin('127.0.0.3');
    await other.write(line.repeat(900));
    await other.write('.\r\n');
    t.regex(await other.reply(), /^250/);
    other.close();

    await holder.write('.\r\n');
    t.regex(await holder.reply(), /^250/, 'the holder\'s own message completes');
    holder.close();
    // Held until delivery and sender authentication are done with the bytes, then given back.
    await until(async () => (await inflight()) === 0, 'the budget given back');
  } finally {
    await small.stop();
  }
});
