// FairQueue (issue 33): one key's backlog waits behind its own work, keys are served in turn, and
// one key never holds more than its cap of slots.
import test from 'ava';
import { FairQueue } from '../../src/pool/fair-queue.js';

/** A task that runs until the test releases it; records its start. */
function gate(log: string[], name: string): { task: () => Promise<string>; release: () => void } {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return { task: async () => { log.push(name); await done; return name; }, release: () => release() };
}

test('fair queue - a second key waits behind one task of a key with a backlog, not behind the backlog', async (t) => {
  const q = new FairQueue(1);
  const started: string[] = [];
  const gates = ['a1', 'a2', 'a3', 'a4', 'b1', 'a5', 'c1', 'b2'].map((n) => ({ n, ...gate(started, n) }));
  const results = gates.map((g) => q.run(g.n[0]!, g.task));
  for (let i = 0; i < gates.length; i++) {
    // Release whatever runs now; the queue starts the next in turn.
    const running = started[started.length - 1]!;
    gates.find((g) => g.n === running)!.release();
    await results[gates.findIndex((g) => g.n === running)];
    await new Promise((r) => setImmediate(r));
  }
  t.deepEqual(started, ['a1', 'a2', 'b1', 'c1', 'a3', 'b2', 'a4', 'a5']);
  t.is(q.waiting, 0);
});

test('fair queue - one key holds at most its cap of slots; another key starts at once', async (t) => {
  const q = new FairQueue(4, 2);
  const started: string[] = [];
  const gates = ['a1', 'a2', 'a3', 'b1'].map((n) => ({ n, ...gate(started, n) }));
  const results = gates.map((g) => q.run(g.n[0]!, g.task));
  t.deepEqual(started, ['a1', 'a2', 'b1']);
  t.is(q.waiting, 1);
  gates[0]!.release();
  await results[0];
  await new Promise((r) => setImmediate(r));
  t.deepEqual(started, ['a1', 'a2', 'b1', 'a3']);
  for (const g of gates) g.release();
  t.deepEqual(await Promise.all(results), ['a1', 'a2', 'a3', 'b1']);
});

test('fair queue - a task that throws fails alone and frees its slot', async (t) => {
  const q = new FairQueue(1);
  const bad = q.run('a', () => { throw new Error('boom'); });
  const good = q.run('b', async () => 'ok');
  await t.throwsAsync(bad, { message: 'boom' });
  t.is(await good, 'ok');
});
