// Waiting on a condition the test can observe (a gauge, a receiver's log) instead of sleeping a
// guessed time: returns as soon as it holds, fails loudly if it never does.
import type { Service } from './service.js';

/** What a probe answers while the condition does not hold yet. */
type NotYet = false | null | undefined;

/**
 * Polls `probe` until it answers something other than false, null or undefined, and resolves with
 * that answer (`true` for a plain condition, the value found for a search); throws naming `what`
 * once `timeoutMs` has passed. The one polling wait of the tests: a probe that throws fails at once.
 */
export async function until<T>(probe: () => T | Promise<T>, what: string, timeoutMs = 30_000): Promise<Exclude<T, NotYet>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== false && value !== null && value !== undefined) return value as Exclude<T, NotYet>;
    if (Date.now() > end) throw new Error(`still waiting after ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export interface ParkedOptions {
  /** Wait for exactly `count` (waiters gone, say) rather than at least `count`. */
  exactly?: boolean;
  /** Which front's ops listener to read (a cluster may have several). */
  front?: number;
  timeoutMs?: number;
}

/**
 * Resolves with the parked-waiters gauge (DESIGN §2) once it reads at least `count` (or exactly
 * `count`): the latch a test sends its mail after, or sees its waiters leave by.
 */
export function parked(svc: Pick<Service, 'parkedWaiters'>, count = 1, { exactly = false, front, timeoutMs }: ParkedOptions = {}): Promise<number> {
  return until(async () => {
    const n = await svc.parkedWaiters(front);
    return (exactly ? n === count : n >= count) ? n : false;
  }, `${exactly ? 'exactly' : 'at least'} ${count} parked waiter(s)`, timeoutMs);
}

/**
 * Waits out the end of a UTC minute when less than 15 s of it are left, so that a test counting
 * one rate window's requests stays inside one window.
 */
export async function awayFromMinuteEnd(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 15_000) await new Promise((r) => setTimeout(r, left + 50));
}
