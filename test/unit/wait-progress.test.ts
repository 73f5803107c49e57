// The progress scheduler of parked waits (issue 36): at the default interval and at the largest
// one configuration allows, a client hears progress at least every 10 s, with increasing values.
import test from 'ava';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { nextProgress, PROGRESS_BOUND_MS, PROGRESS_DEFAULT_MS, PROGRESS_MAX_MS, PROGRESS_TICK_MS, ProgressTicker } from '../../src/front/mcp/wait-progress.js';

/** Visits every tick, each up to one tick late as on a busy event loop (a fixed pseudo-random pattern). */
function simulate(intervalMs: number, spanMs: number): { at: number; progress: number }[] {
  const start = 1_000_000;
  let now = start;
  const ticker = new ProgressTicker(() => now, PROGRESS_TICK_MS, false);
  const sent: { at: number; progress: number }[] = [];
  const stop = ticker.add(intervalMs, (progress) => sent.push({ at: now - start, progress }));
  let seed = 7;
  while (now < start + spanMs) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    now += PROGRESS_TICK_MS + (seed % PROGRESS_TICK_MS);
    ticker.tick();
  }
  stop();
  visitedAfterStop = ticker.size;
  return sent;
}
let visitedAfterStop = -1;

for (const intervalMs of [PROGRESS_DEFAULT_MS, PROGRESS_MAX_MS]) {
  test(`wait progress - every ${intervalMs} ms: never more than 10 s without a notification, values increasing`, (t) => {
    const sent = simulate(intervalMs, 60_000);
    t.true(sent.length >= Math.floor(60_000 / PROGRESS_BOUND_MS));
    let last = { at: 0, progress: 0 };
    for (const s of sent) {
      t.true(s.at - last.at <= PROGRESS_BOUND_MS, `a gap of ${s.at - last.at} ms before ${s.at}`);
      t.true(s.progress > last.progress, 'progress increases');
      t.true(Math.abs(s.progress - s.at / 1000) <= 0.1, 'progress is the seconds elapsed');
      last = s;
    }
    t.is(visitedAfterStop, 0, 'a stopped wait is no longer visited');
  });
}

test('wait progress - a value never repeats, even within the same tenth of a second', (t) => {
  t.is(nextProgress({ startedAt: 0, last: 5 }, 5_000), 5.1);
  t.is(nextProgress({ startedAt: 0, last: 0 }, 7_040), 7);
});

test('wait progress - the interval is configurable, defaults to 5 s and cannot exceed 9 s', (t) => {
  t.is(loadConfig({}).mcpProgressMs, PROGRESS_DEFAULT_MS);
  t.is(loadConfig({ MAILCUE_MCP_PROGRESS_MS: '1000' }).mcpProgressMs, 1000);
  t.is(loadConfig({ MAILCUE_MCP_PROGRESS_MS: String(PROGRESS_MAX_MS) }).mcpProgressMs, PROGRESS_MAX_MS);
  t.throws(() => loadConfig({ MAILCUE_MCP_PROGRESS_MS: String(PROGRESS_MAX_MS + 1) }), { instanceOf: ConfigError });
  t.true(PROGRESS_MAX_MS + PROGRESS_TICK_MS <= PROGRESS_BOUND_MS);
});
