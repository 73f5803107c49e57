// Used where a test drives a per-minute limit end to end through the real service; unit and
// component tests use the injected clock of test/component/account-limits.test.ts instead.
// Per-minute limits count in fixed windows aligned to the UTC minute; a test that makes N calls
// in one window first waits for a window with enough time left.
export async function freshWindow(secondsNeeded = 25): Promise<void> {
  const intoMinute = (Date.now() % 60_000) / 1000;
  if (60 - intoMinute < secondsNeeded) await new Promise((r) => setTimeout(r, (60 - intoMinute) * 1000 + 200));
}
