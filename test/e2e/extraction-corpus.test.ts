// End to end: every email of the labelled corpus (test/fixtures/otp-corpus, a copy of
// shared/otp-corpus) goes over real SMTP, byte for byte (nodemailer's raw option), into a running
// service; its otp and verification_link are then read back over REST, both from the inbox's
// message list (summary) and from GET …/messages/{id} (full view, with the extraction reasons).
import test from 'ava';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sendMail } from '../helpers/mail.js';
import { startService, type Service } from '../helpers/service.js';

interface Label {
  otp: string | null;
  verification_link: string | null;
  note: string;
}
type Json = Record<string, any>;

const dir = fileURLToPath(new URL('../fixtures/otp-corpus/', import.meta.url));
const labels = JSON.parse(readFileSync(`${dir}labels.json`, 'utf8')) as Record<string, Label>;
const files = readdirSync(dir).filter((f) => f.endsWith('.eml')).sort();

let svc: Service;
let key: string;

test.before(async () => {
  svc = await startService();
  key = (await svc.createAccount('enterprise')).api_key;
});
test.after.always(async () => {
  await svc?.stop();
});

async function get(path: string): Promise<Json> {
  const res = await svc.api(key, 'GET', path);
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Json;
}

test('extraction corpus - every email over SMTP gives its labelled otp and verification_link over REST', async (t) => {
  t.timeout(240_000);
  t.is(files.length, Object.keys(labels).length);
  t.true(files.length >= 159);
  const created = await svc.api(key, 'POST', '/v1/inboxes', {});
  t.is(created.status, 201);
  const inbox = ((await created.json()) as Json).data.address as string;
  const path = `/v1/inboxes/${encodeURIComponent(inbox)}/messages`;

  const wrong: string[] = [];
  let seen = 0;
  for (const file of files) {
    const label = labels[file]!;
    const raw = readFileSync(dir + file);
    const sent = await sendMail(svc.smtpPort, { envelope: { from: 'corpus@example.com', to: [inbox] }, raw });
    t.deepEqual(sent.rejected, [], file);
    // The SMTP reply comes after the shard committed the message: it is the newest one now.
    const list = await get(`${path}?limit=1`);
    seen++;
    const summary = list.data[0] as Json;
    const full = (await get(`${path}/${summary.id}`)).data as Json;
    const want = { otp: label.otp, verification_link: label.verification_link };
    const fromSummary = { otp: summary.otp, verification_link: summary.verification_link };
    const fromFull = { otp: full.otp, verification_link: full.verification_link };
    if (JSON.stringify(fromSummary) !== JSON.stringify(want) || JSON.stringify(fromFull) !== JSON.stringify(want)) {
      wrong.push(`${file}: got ${JSON.stringify(fromFull)}, want ${JSON.stringify(want)} (${label.note})`);
    }
    // The full view says why; the summary keeps its shape.
    t.is(typeof full.extraction?.otp_reason, 'string', file);
    t.is(typeof full.extraction?.link_reason, 'string', file);
    t.true(full.extraction.otp_reason.length > 0 && full.extraction.link_reason.length > 0, file);
    t.false('extraction' in summary, file);
  }
  t.is(seen, files.length);
  t.deepEqual(wrong, [], `${files.length - wrong.length}/${files.length} right`);
  t.log(`${files.length - wrong.length}/${files.length} emails right through SMTP → parse → extract → REST`);
});
