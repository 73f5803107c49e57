// Identifiers: random ones for secrets and records, and time-ordered message ids so that "newer
// than msg_x" is a string comparison within an inbox.
import { randomFillSync } from 'node:crypto';

// Random bytes are cut from a pool of CSPRNG output, as crypto.randomUUID does: one system call
// per 4 KiB instead of one per id (a webhook fan-out makes an event id per delivery). No byte is
// handed out twice.
const pool = Buffer.allocUnsafe(4096);
let poolAt = pool.length;

/** `bytes` fresh random bytes, valid until the next call (copy them to keep them). */
function takeRandom(bytes: number): Buffer {
  if (bytes > pool.length) return randomFillSync(Buffer.allocUnsafe(bytes));
  if (poolAt + bytes > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  poolAt += bytes;
  return pool.subarray(poolAt - bytes, poolAt);
}

export function randomHex(bytes: number): string {
  return takeRandom(bytes).toString('hex');
}

const BASE36_TIME_WIDTH = 9; // 36^9 ms ≈ 3 000 years
let lastMs = 0;
let seq = 0;

/** `msg_<time><seq><random>`: fixed width, sorts by arrival on one shard (the inbox's owner). */
export function newMessageId(now = Date.now()): string {
  if (now <= lastMs) {
    seq++;
    now = lastMs;
  } else {
    lastMs = now;
    seq = 0;
  }
  const time = now.toString(36).padStart(BASE36_TIME_WIDTH, '0');
  const counter = seq.toString(36).padStart(4, '0');
  // The suffix only separates ids made in the same millisecond by different shards; it is not a
  // secret, so Math.random (far cheaper than the CSPRNG per message) is enough.
  const suffix = Math.floor(Math.random() * 0x1000000).toString(16).padStart(6, '0');
  return `msg_${time}${counter}${suffix}`;
}

/** The position before an inbox's first message: waiting from it, every message of the inbox is newer. */
export const INBOX_START = 'msg_0000000000000000000';

/**
 * An inbox's position "now" when it holds no message (issue 36): a valid message id that sorts after
 * every id this thread has made and before every id it will make. It reserves its (time, counter)
 * pair, so no message ever gets an id equal to it, even within the same millisecond.
 */
export function positionNow(now = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    seq = 0;
  } else {
    seq++;
  }
  return `msg_${lastMs.toString(36).padStart(BASE36_TIME_WIDTH, '0')}${seq.toString(36).padStart(4, '0')}ffffff`;
}

/**
 * The position at `now`: a valid message id (a cursor an answer may hand back to the caller) that
 * sorts after every id made before `now` and before every id made at or after it. Its time is the
 * millisecond before `now` with the highest counter, which no id ever reaches. A wait sent again
 * waits from its first send's position; retention deletes what is older than its cutoff's.
 */
export function positionAt(now: number): string {
  return `msg_${(now - 1).toString(36).padStart(BASE36_TIME_WIDTH, '0')}zzzzffffff`;
}

/** Lowercase letters and digits, easy to type and read back: inbox local parts. */
export function randomLocalPart(length = 12): string {
  const alphabet = 'abcdefghijkmnpqrstuvwxyz23456789';
  const bytes = takeRandom(length);
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[bytes[i]! % alphabet.length];
  return out;
}
