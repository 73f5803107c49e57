// smtp-ingest: 10 concurrent SMTP connections send 5,000 small mails (smtp-ingest) or 1,000
// ~100 KB mails with an attachment (smtp-ingest-100k) to the read inboxes; mails/s counted by 250
// replies; then every mail is looked up over REST (and the small ones' OTPs checked).
import { Generator } from '../lib/generator.js';
import type { MailKind } from '../lib/mails.js';
import { LARGE_ATTACHMENT_BYTES, otpFor } from '../lib/mails.js';
import { jsonRequest, mapLimit } from '../lib/net-util.js';
import type { Context, Scenario } from '../lib/scenario.js';
import { countedSmtpLoad } from '../lib/smtp-scenario.js';

interface Params {
  connections: number;
  mails: number;
  /**
   * Sent first and not counted: the JIT compiles the ingest path, as in a service that has run a
   * while. Five isolates (front, two shards, two pool threads) compile it each: after 2,000 mails
   * V8's compiler threads still took 14 % of the service's CPU samples, after 8,000 they are idle.
   */
  warmupMails: number;
}

/** Reads every read inbox and checks that each of the `total` mails tagged `tag` is there. */
async function verify(ctx: Context, kind: MailKind, tag: string, total: number): Promise<Record<string, unknown>> {
  const seen = new Uint8Array(total);
  let otpOk = 0;
  let attachments = 0;
  let sample: { inbox: string; id: string } | null = null;
  const re = new RegExp(`(?:code|report) ${tag}-(\\d+)$`);
  await mapLimit(ctx.readInboxes.length, 16, async (k) => {
    const inbox = ctx.readInboxes[k]!;
    const r = await jsonRequest('GET', `${ctx.mailcue.base}/v1/inboxes/${encodeURIComponent(inbox)}/messages?limit=100`, { token: ctx.key });
    if (r.status !== 200) throw new Error(`GET messages of ${inbox} → ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
    for (const m of r.body.data as Array<{ id: string; subject: string; otp: string | null; has_attachment: boolean }>) {
      const match = re.exec(m.subject);
      if (!match) continue;
      const i = Number(match[1]);
      if (i >= total) continue;
      seen[i] = 1;
      if (kind === 'small' && m.otp === otpFor(i)) otpOk++;
      if (kind === 'large' && m.has_attachment) {
        attachments++;
        sample ??= { inbox, id: m.id };
      }
    }
  });
  const found = seen.reduce((s, v) => s + v, 0);
  const out: Record<string, unknown> = { readable: found, missing: total - found };
  if (kind === 'small') out.otp_extracted = otpOk;
  if (kind === 'large') {
    out.with_attachment = attachments;
    if (sample) {
      const s = sample as { inbox: string; id: string };
      const r = await jsonRequest('GET', `${ctx.mailcue.base}/v1/inboxes/${encodeURIComponent(s.inbox)}/messages/${s.id}`, { token: ctx.key });
      out.sample_attachment_ok = r.status === 200 && r.body.data?.attachments?.[0]?.size === LARGE_ATTACHMENT_BYTES;
    }
  }
  return out;
}

function ingest(name: string, kind: MailKind, full: Params, quick: Params, title: string): Scenario<Params> {
  return {
    name,
    title,
    full,
    quick,
    timeLimitS: (q) => (q ? 30 : 120),
    async run(ctx, p) {
      const tag = `${kind}${Date.now() % 100000}`;
      const gen = await Generator.start('smtp-sender');
      try {
        const load = { host: '127.0.0.1', port: ctx.mailcue.smtpPort, connections: p.connections, kind, recipients: ctx.readInboxes };
        const { sent, fields } = await countedSmtpLoad(gen, () => ctx.mailcue.pids, { load, mails: p.mails, warmupMails: p.warmupMails, tag, timeLimitS: this.timeLimitS(ctx.quick) });
        return { ...fields, ...(await verify(ctx, kind, tag, sent)) };
      } finally {
        await gen.stop();
      }
    },
  };
}

export const smtpIngest = ingest('smtp-ingest', 'small', { connections: 10, mails: 5000, warmupMails: 8000 }, { connections: 10, mails: 1000, warmupMails: 300 },
  '10 SMTP connections, 2,000 small OTP mails to warm up, then 5,000 counted; mails/s by 250 replies, then every one read back');
export const smtpIngestLarge = ingest('smtp-ingest-100k', 'large', { connections: 10, mails: 1000, warmupMails: 200 }, { connections: 10, mails: 100, warmupMails: 20 },
  '10 SMTP connections, 200 ~100 KB mails with an attachment to warm up, then 1,000 counted; then every one read back');
