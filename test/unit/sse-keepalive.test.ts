// Unit: SSE streams opened together do not write their keep-alives in the same tick. The first of
// each falls in the second half of the 15 s interval, so idle watchdogs still hear one in time.
import test from 'ava';
import { KEEPALIVE_MS, SseStream, visitOpenStreams } from '../../src/front/mcp/sse-stream.js';
import type { Exchange } from '../../src/front/http/exchange.js';

function fakeExchange(writes: string[]): Exchange {
  return { startStream: () => undefined, write: (text: string) => void writes.push(text), end: () => undefined, signal: new EventTarget() } as unknown as Exchange;
}

test('sse keep-alives - 400 streams opened at once spread their first keep-alive over half the interval', (t) => {
  const counts: number[] = [];
  const writes: string[][] = [];
  const t0 = Date.now();
  const streams = Array.from({ length: 400 }, () => {
    const w: string[] = [];
    writes.push(w);
    return new SseStream(fakeExchange(w), [], 10 * 60_000);
  });
  try {
    const TICK = 250;
    for (let at = t0; at <= t0 + KEEPALIVE_MS + TICK; at += TICK) {
      const before = writes.reduce((n, w) => n + w.length, 0);
      visitOpenStreams(at);
      counts.push(writes.reduce((n, w) => n + w.length, 0) - before);
    }
    t.true(writes.every((w) => w.filter((x) => x === ': keepalive\n\n').length === 1), 'each stream wrote one keep-alive within the interval');
    const firstHalf = counts.slice(0, Math.floor(KEEPALIVE_MS / 2 / TICK)).reduce((a, b) => a + b, 0);
    t.is(firstHalf, 0, 'none before half the interval');
    // 400 over 30 ticks is about 13 per tick; all in one tick is what the spreading prevents.
    t.true(Math.max(...counts) <= 40, `at most ${Math.max(...counts)} in one tick`);
  } finally {
    for (const s of streams) s.close();
  }
});
