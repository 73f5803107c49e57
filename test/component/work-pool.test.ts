// Component: the parse pool on real worker threads. Mails that end in one event-loop turn cross
// in one batch; each still gets its own result, and a big one goes alone.
import test from 'ava';
import { until } from '../helpers/wait.js';
// The built pool: its threads load dist/pool/tasks.js (npm test builds first); typed by its source.
const { WorkPool } = (await import('../../dist/pool/work-pool.js' as string)) as typeof import('../../src/pool/work-pool.js');

function mail(subject: string, body: string): Buffer {
  return Buffer.from(`From: a@sender.test\r\nTo: b@mailcue.test\r\nSubject: ${subject}\r\nContent-Type: text/plain\r\n\r\n${body}\r\n`);
}

test('mails parsed in the same turn each get their own message, in any mix of sizes', async (t) => {
  const pool = new WorkPool(2);
  try {
    const big = 'x'.repeat(100_000);
    const raws = Array.from({ length: 20 }, (_, i) => mail(`Code ${i}`, i === 7 ? `${big}\r\nYour code is ${100000 + i}` : `Your code is ${100000 + i}`));
    const parsed = await Promise.all(raws.map((raw) => pool.parse(raw)));
    t.deepEqual(parsed.map((m: { subject: string }) => m.subject), raws.map((_, i) => `Code ${i}`));
    t.deepEqual(parsed.map((m: { otp: string | null }) => m.otp), raws.map((_, i) => String(100000 + i)));
  } finally {
    await pool.close();
  }
});

test('a task over its time bound is refused with the bound named', async (t) => {
  const pool = new WorkPool(1, () => undefined, 30);
  try {
    // Parsing 8 MB of text takes well over 30 ms; the thread running it is replaced.
    const slow = pool.parse(mail('Slow', 'lorem ipsum dolor sit amet '.repeat(300_000)));
    const err = await t.throwsAsync(slow);
    t.is(err?.name, 'AbortError');
    t.regex(String((err?.cause as Error | undefined)?.message), /parse task ran over its 30 ms bound/);
  } finally {
    await pool.close();
  }
});

test('one account\'s backlog waits behind its own work: another account\'s mail is parsed after at most one of it', async (t) => {
  const pool = new WorkPool(1);
  try {
    const done: string[] = [];
    const heavy = Array.from({ length: 5 }, (_, i) => pool.parse(mail(`A${i}`, `${'lorem ipsum '.repeat(100_000)}\r\nYour code is 11111${i}`), 'account-a').then((m: { subject: string }) => done.push(m.subject)));
    // B's mail comes after A's whole backlog was queued.
    await new Promise((r) => setImmediate(r));
    const light = pool.parse(mail('B0', 'Your code is 222222'), 'account-b').then((m) => {
      done.push(m.subject);
      return m;
    });
    t.is((await light).otp, '222222');
    await Promise.all(heavy);
    t.true(done.indexOf('B0') <= 2, `B's mail came out at ${done.indexOf('B0')} in ${done.join(', ')}`);
  } finally {
    await pool.close();
  }
});

test.serial('one account never holds every thread: another\'s large mail starts beside its backlog, not after', async (t) => {
  const pool = new WorkPool(2);
  try {
    const done: string[] = [];
    const body = (code: string) => `Your code is ${code}\r\n${'lorem ipsum '.repeat(150_000)}`;
    // Both threads up first (the large-mail pool starts its threads on demand).
    await Promise.all(['warm-1', 'warm-2'].map((account) => pool.parse(mail('Warm', body('999999')), account)));
    const backlog = Array.from({ length: 4 }, (_, i) => pool.parse(mail(`A${i}`, body(`11111${i}`)), 'account-a').then((m: { subject: string }) => done.push(m.subject)));
    await new Promise((r) => setImmediate(r));
    const other = pool.parse(mail('B0', body('222222')), 'account-b').then((m) => {
      done.push(m.subject);
      return m;
    });
    // Read as each mail is handed over, not from the order they end in (which the kernel's
    // scheduling of the two threads decides): A runs on one thread and queues the rest of its
    // backlog; B's mail starts at once on the other. Had A taken both threads, A would queue 2
    // and B would wait behind A0 and A1.
    t.is(pool.waitingOf('account-a'), 3);
    t.is(pool.waitingOf('account-b'), 0);
    t.is((await other).otp, '222222');
    await Promise.all(backlog);
    t.is(done.length, 5);
  } finally {
    await pool.close();
  }
});

/** The nice value of each thread of this process (Linux: field 19 of /proc/self/task/<tid>/stat). */
async function niceness(): Promise<number[]> {
  const { readdirSync, readFileSync } = await import('node:fs');
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

test.serial('large mails parse on threads below the event loop\'s priority; small ones do not', async (t) => {
  if (process.platform !== 'linux') return t.pass('thread niceness is read from Linux /proc');
  const pool = new WorkPool(1);
  try {
    t.is((await pool.parse(mail('Small', 'Your code is 333333'))).otp, '333333');
    // The sender-check thread lowers itself once its module has loaded, which may be after the small
    // mail is parsed; the small mail's thread stays at the event loop's priority.
    const lowered = async () => (await niceness()).filter((n) => n === 10).length;
    const before = await until(async () => ((await lowered()) === 1 ? 1 : null), 'the sender-check thread at nice 10');
    t.is((await pool.parse(mail('Large', `Your code is 444444\r\n${'x'.repeat(300_000)}`))).otp, '444444');
    t.is(await lowered(), before + 1, 'one heavy thread, at nice 10');
    t.is((await niceness())[0], 0, 'the event loop keeps its priority');
  } finally {
    await pool.close();
  }
});
