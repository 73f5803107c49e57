// Waiting on a condition the test can observe (a gauge, a receiver's log) instead of sleeping a
// guessed time: returns as soon as it holds, fails loudly if it never does.
import type { Service } from './service.js';

export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`still waiting after ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Resolves once `count` long-polls are parked (the parked-waiters gauge): the latch a test sends its mail after. */
export function parked(svc: Service, count = 1): Promise<void> {
  return until(async () => (await svc.parkedWaiters()) >= count, `${count} parked waiter(s)`);
}

/**
 * Waits out the end of a UTC minute when less than 15 s of it are left, so that a test counting
 * one rate window's requests stays inside one window.
 */
export async function awayFromMinuteEnd(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 15_000) await new Promise((r) => setTimeout(r, left + 50));
}
