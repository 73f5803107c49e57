// Waiting on a condition the test can observe (a gauge, a receiver's log) instead of sleeping a
// guessed time: returns as soon as it holds, fails loudly if it never does.
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`still waiting after ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The service's mailcue_parked_waiters gauge: long-polls parked on its shards right now. */
export async function parkedWaiters(baseUrl: string): Promise<number> {
  const metrics = await (await fetch(`${baseUrl}/metrics`)).text();
  return Number(/^mailcue_parked_waiters (\d+)/m.exec(metrics)![1]);
}

/** Resolves once `count` long-polls are parked: the latch a test sends its mail after. */
export function parked(baseUrl: string, count = 1): Promise<void> {
  return until(async () => (await parkedWaiters(baseUrl)) >= count, `${count} parked waiter(s)`);
}
