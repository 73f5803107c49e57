// The long-polls of an inbox (DESIGN.md §4 waits, issue 36 cursors): a wait answers the first
// matching message newer than its cursor, at once if one is stored, else when one is delivered
// (the waiter parks in the shard's WaiterRegistry until then or its deadline).
import { answersAuthWait } from '../contract/authentication.js';
import type { WaitMatch } from '../contract/commands.js';
import type { CommandOf } from '../contract/command-table.js';
import { toSummary, type MessageRecord } from '../contract/model.js';
import { ANSWERED_LATER, type RequestScope, type WaitResult } from '../contract/results.js';
import { positionNow } from '../util/ids.js';
import { promised, type Sink } from '../util/sink.js';
import type { ActorContext } from './context.js';
import { answersMatch, type WaitOutcome, type Waiter, type WaiterRegistry } from './waiters.js';

/** A parked long-poll answers this long before the request's own deadline on the front. */
const WAIT_ANSWER_MARGIN_MS = 1_000;

export function newestMessage(ctx: ActorContext, address: string): MessageRecord | undefined {
  for (const message of ctx.store.messages.newestFirst(address, null, 1)) return message;
  return undefined;
}

/** The first message newer than `since` that matches, if one is already stored. */
function firstAfter(ctx: ActorContext, address: string, since: string, match: WaitMatch, requireAuth: boolean): MessageRecord | undefined {
  const { messages } = ctx.store;
  // Every match but 'any' wants a code or a link: those messages have their own index.
  for (const value of match === 'any' ? messages.after(address, since) : messages.codedAfter(address, since)) {
    if (requireAuth && !answersAuthWait(value.authentication)) continue;
    if (answersMatch(match, value)) return value;
  }
  return undefined;
}

/**
 * Where "now" is in an inbox (a wait without `since`, or with "now"): its newest message id, or,
 * while it holds none, a position after every id made so far (issue 36: a position, not a magic id).
 */
function position(ctx: ActorContext, address: string): string {
  return newestMessage(ctx, address)?.id ?? positionNow(ctx.now());
}

/**
 * A wait answers the first matching message newer than its cursor: `since`, or the inbox's
 * position now. Every answer carries the cursor to wait from next (the message's id, or on a
 * timeout the cursor it waited from), so a re-issued wait never misses and never repeats a mail.
 */
export function waitForMail(ctx: ActorContext, cmd: CommandOf<'message.wait'>, scope: RequestScope, requireAuth: boolean): WaitResult | Promise<WaitResult> | typeof ANSWERED_LATER {
  const since = cmd.since ?? position(ctx, cmd.address);
  const found = firstAfter(ctx, cmd.address, since, cmd.match, requireAuth);
  if (found) return { timed_out: false, message: toSummary(found), cursor: found.id };
  if (scope.signal.aborted) return { timed_out: true, message: null, cursor: since };
  // A long-poll sent again after its stream broke keeps its first deadline: it answers (timed
  // out) before the front gives up on it.
  const now = ctx.now();
  let until = now + cmd.timeoutMs;
  if (scope.deadline) until = Math.min(until, scope.deadline - WAIT_ANSWER_MARGIN_MS);
  // Its cursor is a position, so a message whose sender check settles later answers it exactly
  // when it is newer than the cursor: no separate "parked at" bound is needed.
  const waiter = new PendingWait(ctx.waiters, cmd.address, cmd.match, since, until, requireAuth);
  let answer: Promise<WaitResult> | typeof ANSWERED_LATER = ANSWERED_LATER;
  if (scope.reply) waiter.sink = scope.reply;
  else answer = promised<WaitResult>((sink) => (waiter.sink = sink));
  ctx.waiters.park(waiter);
  // A cancelled long-poll frees its waiter at once; nobody reads the answer.
  scope.signal.addEventListener('abort', waiter);
  return answer;
}

/** One parked long-poll: the little a waiter keeps (tens of thousands may be parked at once). */
class PendingWait implements Waiter {
  /** Where the answer goes: the request's own reply, or a promise's resolve and reject. */
  sink: Sink | null = null;

  constructor(
    private readonly registry: WaiterRegistry,
    readonly address: string,
    readonly match: WaitMatch,
    readonly since: string,
    readonly deadline: number,
    readonly requireAuth: boolean,
  ) {}

  /** The caller cancelled: the waiter leaves at once, answered as timed out. */
  handleEvent(): void {
    if (this.registry.remove(this)) this.settle('timeout');
  }

  settle(outcome: WaitOutcome): void {
    const sink = this.sink!;
    if (outcome === 'timeout') sink.resolve({ timed_out: true, message: null, cursor: this.since });
    else if (outcome instanceof Error) sink.reject(outcome);
    else sink.resolve({ timed_out: false, message: toSummary(outcome), cursor: outcome.id });
  }
}
