// `npm run bench -- soak [--quick] [--minutes N] [--rate OPS] [--keep-s S]`: does the data directory
// follow the live data (issue 37)? An embedded Mailcue takes `rate` operations a second (create an
// inbox, send it a ~740 B mail, read the list, and delete 80 % of the inboxes right after; the
// other 20 % are deleted once older than `keep-s`, so the live data levels off). Every sample
// reads the data dir's allocated bytes (st_blocks) and the live mail (raw bytes of the messages
// still stored, counted by this tool). Reported: the ratio dir / live at the end (target ≤ 1.5) and
// the growth of the dir over the last third, while the live data is level (target: flat). Live
// data is each kept mail's raw source plus the message as GET …/messages/{id} shows it. An empty
// data dir already takes 1-2 MB (LMDB's pages of each database), so only a long run's ratio tells.
// The report ends with each database's pages (db-usage.ts), so a dir that outgrows its data names why.
// Full: 60 minutes at 150 ops/s; quick: 2 minutes. Bounded in time and in requests in flight.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { numberArg } from '../lib/args.js';
import { dataDirUsage } from '../lib/db-usage.js';
import { Mailcue } from '../lib/mailcue.js';
import { smallMail } from '../lib/mails.js';
import { jsonRequest } from '../lib/net-util.js';
import { sendMails } from '../lib/probe.js';
import { benchSession, git, runTool, sleep, writeReport } from '../lib/proc.js';

const QUICK = process.argv.includes('--quick');
const MINUTES = numberArg('--minutes', QUICK ? 2 : 60);
const RATE = numberArg('--rate', 150);
const KEEP_S = numberArg('--keep-s', QUICK ? 30 : 900);
const SAMPLE_S = QUICK ? 5 : 30;
const IN_FLIGHT_MAX = 32;
/** Requests one cycle makes: create, mail, read, and (for 80 % right away, the rest later) delete. */
const OPS_PER_CYCLE = 4;
const RESULTS = path.resolve('bench/results/soak.json');

const { started, log, tmp } = benchSession('soak');

/** Bytes the files under `dir` take on disk (allocated blocks, not apparent size). */
function allocatedBytes(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, name.name);
    if (name.isDirectory()) total += allocatedBytes(p);
    else if (name.isFile()) total += statSync(p).blocks * 512;
  }
  return total;
}

async function main(): Promise<void> {
  const mc = await Mailcue.start({});
  try {
    const key = await mc.createAccount();
    const mailBytes = smallMail('x@mailcue.test', 'size', 0).data.length;
    const kept: { address: string; at: number; bytes: number }[] = [];
    let live = 0;
    let cycles = 0;
    let inFlight = 0;
    let errors = 0;
    let firstError: string | null = null;
    const samples: { t_s: number; dir_mb: number; live_mb: number; ratio: number | null; cycles: number }[] = [];
    const t0 = Date.now();
    const until = t0 + MINUTES * 60_000;
    const cycle = async (n: number) => {
      const address = `soak${n}@mailcue.test`;
      const made = await jsonRequest('POST', `${mc.base}/v1/inboxes`, { token: key, body: { address } });
      if (made.status !== 201) throw new Error(`create → ${made.status}`);
      await sendMails(mc.smtpPort, [smallMail(address, `s${n}`, n)]);
      const read = await jsonRequest('GET', `${mc.base}/v1/inboxes/${encodeURIComponent(address)}/messages?limit=1`, { token: key });
      if (read.status !== 200) throw new Error(`read → ${read.status}`);
      if (n % 5 !== 0) {
        const del = await jsonRequest('DELETE', `${mc.base}/v1/inboxes/${encodeURIComponent(address)}`, { token: key });
        if (del.status !== 200) throw new Error(`delete → ${del.status}`);
      } else {
        // Live data of a kept mail: its raw source plus the message as the API shows it (the
        // stored record's fields), read once.
        const id = (read.body.data as { id: string }[])[0]?.id;
        const full = id ? await jsonRequest('GET', `${mc.base}/v1/inboxes/${encodeURIComponent(address)}/messages/${id}`, { token: key }) : null;
        const bytes = mailBytes + (full?.status === 200 ? Buffer.byteLength(JSON.stringify(full.body.data)) : 0);
        kept.push({ address, at: Date.now(), bytes });
        live += bytes;
      }
    };
    const expire = async () => {
      while (kept.length > 0 && kept[0]!.at < Date.now() - KEEP_S * 1000) {
        const { address, bytes } = kept.shift()!;
        await jsonRequest('DELETE', `${mc.base}/v1/inboxes/${encodeURIComponent(address)}`, { token: key });
        live -= bytes;
      }
    };
    let nextSample = t0;
    const perTick = RATE / OPS_PER_CYCLE / 10;
    let owed = 0;
    while (Date.now() < until) {
      owed += perTick;
      while (owed >= 1 && inFlight < IN_FLIGHT_MAX) {
        owed--;
        inFlight++;
        const n = cycles++;
        void cycle(n).catch((err: Error) => { errors++; firstError ??= err.message; }).finally(() => inFlight--);
      }
      owed = Math.min(owed, IN_FLIGHT_MAX);
      if (Date.now() >= nextSample) {
        await expire();
        const dir = allocatedBytes(mc.dataDir);
        samples.push({ t_s: Math.round((Date.now() - t0) / 1000), dir_mb: Math.round(dir / 1e5) / 10, live_mb: Math.round(live / 1e5) / 10, ratio: live > 0 ? Math.round((dir / live) * 100) / 100 : null, cycles });
        log(`${samples.at(-1)!.t_s} s: dir ${samples.at(-1)!.dir_mb} MB, live ${samples.at(-1)!.live_mb} MB, ${cycles} cycles, ${errors} errors`);
        nextSample += SAMPLE_S * 1000;
      }
      await sleep(100);
    }
    while (inFlight > 0 && Date.now() < until + 30_000) await sleep(100);
    const last = samples.at(-1)!;
    const third = samples.filter((s) => s.t_s >= (MINUTES * 60 * 2) / 3);
    const slope = (pick: (s: (typeof samples)[number]) => number) => {
      if (third.length < 2) return null;
      const [a, b] = [third[0]!, third.at(-1)!];
      return Math.round(((pick(b) - pick(a)) / ((b.t_s - a.t_s) / 60)) * 100) / 100;
    };
    writeReport(RESULTS, {
      commit: git('rev-parse', 'HEAD'), date: new Date().toISOString(), quick: QUICK, minutes: MINUTES, rate_ops_per_s: RATE, keep_s: KEEP_S,
      achieved_ops_per_s: Math.round(((cycles * OPS_PER_CYCLE) / (MINUTES * 60)) * 10) / 10, cycles, errors, first_error: firstError, mail_bytes: mailBytes,
      dir_mb: last.dir_mb, live_mb: last.live_mb, ratio: last.ratio, target_ratio: 1.5, met: last.ratio !== null && last.ratio <= 1.5,
      last_third: { dir_mb_per_min: slope((s) => s.dir_mb), live_mb_per_min: slope((s) => s.live_mb) }, usage: dataDirUsage(mc.dataDir), samples, tmp,
    }, started, log);
  } finally {
    await mc.stop();
  }
}

runTool('soak', tmp, main);
