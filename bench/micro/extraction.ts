// Parse + extraction throughput on the OTP corpus, on one thread and through the piscina pool,
// and the time of the worst pathological inputs. Bounded in count and time.
//   npm run build && node --import tsx bench/micro/extraction.ts [--quick]
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseMail } from '../../dist/mail/parse-mail.js';
import { extract } from '../../dist/extract/index.js';
import { WorkPool } from '../../dist/pool/work-pool.js';

const quick = process.argv.includes('--quick');
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const corpusDir = `${ROOT}/test/fixtures/otp-corpus`;
const corpus = readdirSync(corpusDir).filter((f) => f.endsWith('.eml')).map((f) => readFileSync(`${corpusDir}/${f}`));
const SECONDS = quick ? 2 : 6;
const MAX_MESSAGES = 200_000;

async function singleThread(): Promise<number> {
  let n = 0;
  const start = performance.now();
  const end = start + SECONDS * 1000;
  while (performance.now() < end && n < MAX_MESSAGES) {
    await parseMail(corpus[n % corpus.length]!);
    n++;
  }
  return n / ((performance.now() - start) / 1000);
}

async function throughPool(): Promise<{ rate: number; threads: number }> {
  const pool = new WorkPool();
  // Warm every thread before measuring.
  await Promise.all(corpus.map((raw) => pool.parse(raw)));
  let n = 0;
  const start = performance.now();
  const end = start + SECONDS * 1000;
  await Promise.all(Array.from({ length: 64 }, async () => {
    while (performance.now() < end && n < MAX_MESSAGES) {
      await pool.parse(corpus[n % corpus.length]!);
      n++;
    }
  }));
  const rate = n / ((performance.now() - start) / 1000);
  const threads = pool.threads;
  await pool.close();
  return { rate, threads };
}

function mime(html: string): Buffer {
  return Buffer.from(`From: a@example.com\r\nTo: b@mailcue.test\r\nSubject: pathological\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${html}`);
}

async function pathological() {
  const cases: [string, string][] = [
    ['10 MB of nested <div>', '<div>'.repeat(2_000_000)],
    ['5 MB of &amp; entities', '&amp;'.repeat(1_000_000)],
    ['10 MB of text without a code', 'lorem ipsum dolor sit amet '.repeat(380_000)],
    ['1 MB of digits', '1234 '.repeat(200_000)],
  ];
  const out = [];
  for (const [name, html] of cases) {
    let t = performance.now();
    extract({ subject: 'x', text: null, html });
    const extractMs = performance.now() - t;
    t = performance.now();
    await parseMail(mime(html));
    const parseMs = performance.now() - t;
    out.push({ name, extract_ms: +extractMs.toFixed(1), parse_and_extract_ms: +parseMs.toFixed(1) });
  }
  return out;
}

const single = await singleThread();
const pooled = await throughPool();
const worst = await pathological();
const result = {
  date: new Date().toISOString(), node: process.version, cpu: os.cpus()[0]?.model, quick, corpus_messages: corpus.length,
  single_thread_msgs_per_s: Math.round(single), pool_msgs_per_s: Math.round(pooled.rate), pool_threads: pooled.threads, pathological: worst,
};
mkdirSync(`${ROOT}/bench/results`, { recursive: true });
writeFileSync(`${ROOT}/bench/results/extraction.json`, JSON.stringify(result, null, 2) + '\n');
console.log(`parse + extraction, corpus of ${corpus.length}: ${result.single_thread_msgs_per_s} msgs/s on one thread, ${result.pool_msgs_per_s} msgs/s through the pool (${pooled.threads} threads)`);
console.table(worst);
