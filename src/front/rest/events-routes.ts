// GET /v1/events: the account's changes as server-sent events, so the dashboard updates the moment
// mail arrives. The front parks one `feed.watch` per shard (account-feed.ts) and re-parks it after
// each answer with the shard's cursor, so nothing is missed between wakes. A stream lives at most
// EVENTS_STREAM_MAX_MS: the client reconnects, which admits its key again (a rotated key ends it).
import type { ChangesAnswer } from '../../contract/results.js';
import type { Deps } from '../../services/deps.js';
import { fail } from '../../errors/registry.js';
import { Cancellation } from '../../util/cancel.js';
import type { ShardClient } from '../../rpc/shard-client.js';
import { admitRest } from '../auth.js';
import type { Exchange } from '../http/exchange.js';
import type { Router } from '../http/router.js';

const EVENTS_STREAM_MAX_MS = 55_000;
/** One parked watch per shard answers empty after this, and the stream sends a keep-alive. */
const WATCH_MS = 15_000;
const WATCH_MARGIN_MS = 5_000;
/** How long the client waits before reconnecting (the SSE `retry` field). */
const RETRY_MS = 1_000;

const SSE_HEADERS: [string, string][] = [
  ['Content-Type', 'text/event-stream; charset=utf-8'],
  ['Cache-Control', 'no-store'],
  ['X-Accel-Buffering', 'no'],
];

function event(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

async function follow(ex: Exchange, shard: ShardClient, accountId: string, first: ChangesAnswer, until: number, signal: Cancellation): Promise<void> {
  let cursor = first;
  while (!ex.closed && !signal.aborted) {
    const left = until - Date.now();
    if (left <= 0) return;
    const timeoutMs = Math.min(WATCH_MS, left);
    cursor = await shard.call(
      { type: 'feed.watch', accountId, since: cursor.seq, epoch: cursor.epoch, timeoutMs },
      { signal, timeoutMs: timeoutMs + WATCH_MARGIN_MS },
    );
    if (cursor.reset) ex.write(event('reset', {}));
    else if (cursor.changes.length > 0) ex.write(event('change', { changes: cursor.changes }));
    else ex.write(': keepalive\n\n');
  }
}

export function eventsRoutes(router: Router, deps: Deps): void {
  router.add('get', '/v1/events', async (ex) => {
    const admission = await admitRest(deps, ex);
    const accountId = admission.account.id;
    // The feed names every inbox that changes: not for a key limited to some of them.
    if (admission.scope && admission.scope.inboxes !== null) fail('scope_denied', 'This key is limited to some inboxes: it cannot follow the whole account\'s changes');
    const shards = deps.cluster.shards;
    const stop = new Cancellation();
    ex.signal.addEventListener('abort', () => stop.abort());
    // The cursors come first, so a client that reloads what it shows on `ready` misses nothing.
    const cursors = await Promise.all(shards.map((s) => s.call({ type: 'feed.watch', accountId, since: null, epoch: null, timeoutMs: 0 })));
    ex.startStream(200, SSE_HEADERS);
    ex.write(`retry: ${RETRY_MS}\n${event('ready', {})}`);
    const until = Date.now() + EVENTS_STREAM_MAX_MS;
    try {
      // The first watch to end (deadline or a lost shard) ends the stream; the client reconnects.
      await Promise.race(shards.map((s, i) => follow(ex, s, accountId, cursors[i]!, until, stop)));
    } catch {
      // A shard that failed mid-stream: the client's reconnect starts again from `ready`.
    } finally {
      stop.abort();
      ex.end();
    }
  });
}
