// REST /v1/inboxes and their messages (DESIGN §3). Thin: parse, call a service, answer.
import * as inboxes from '../../services/inboxes.js';
import * as messages from '../../services/messages.js';
import type { Deps } from '../../services/deps.js';
import { callerOf } from '../../services/scope.js';
import { intInRange, normalizeAddress, optionalBool, optionalSince, requireMessageId, waitSince } from '../../services/validate.js';
import { fail } from '../../errors/registry.js';
import { admitRest, admitRestAndRead, admitWaiting } from '../auth.js';
import type { Exchange } from '../http/exchange.js';
import type { Router } from '../http/router.js';
import { detached } from '../../util/detached.js';
import type { Sink } from '../../util/sink.js';
import type { WaitResult } from '../../contract/results.js';
import { ok, okJsonFields } from './respond.js';

const WAIT_DEFAULT_S = 30;
const SEARCH_MAX_CHARS = 200;

async function caller(deps: Deps, ex: Exchange) {
  return callerOf(await admitRest(deps, ex));
}

/** The inbox named by the path; a malformed address can name no inbox of the caller's. */
function address(ex: Exchange): string {
  const parsed = normalizeAddress(ex.params[0]);
  if (!parsed) fail('inbox_not_found', `Inbox ${ex.params[0]} not found`);
  return parsed.address;
}

/**
 * A parked GET …/messages/wait: the whole of what the front keeps for it besides the Exchange.
 * The shard client settles it in its reply loop, so it never throws there.
 */
class ParkedWait implements Sink {
  constructor(private readonly ex: Exchange, private readonly since: string | null) {}

  /** `cursor`: the `since` of the next wait, so that it neither misses nor repeats a mail (issue 36). */
  resolve(result: WaitResult): void {
    try {
      const cursor = result.cursor ?? result.message?.id ?? this.since;
      ok(this.ex, 200, result.timed_out ? { timed_out: true, data: null, cursor } : { timed_out: false, data: result.message, cursor });
    } catch (err) {
      this.ex.fail(err);
    }
  }

  reject(err: Error): void {
    this.ex.fail(err);
  }
}

export function inboxRoutes(router: Router, deps: Deps): void {
  router
    .add('post', '/v1/inboxes', async (ex) => {
      const who = await caller(deps, ex);
      const body = await ex.jsonObject();
      ok(ex, 201, { data: await inboxes.createInbox(deps, who, { address: body.address, domain: body.domain, require_auth: body.require_auth, retention: body.retention }) });
    })
    .add('patch', '/v1/inboxes/:address', async (ex) => {
      const who = await caller(deps, ex);
      const body = await ex.jsonObject();
      ok(ex, 200, { data: await inboxes.updateInbox(deps, who, address(ex), { require_auth: body.require_auth, retention: body.retention }) });
    })
    .add('get', '/v1/inboxes', async (ex) => {
      const page = await admitRestAndRead(deps, ex, (who) => {
        const limit = intInRange(ex.query.get('limit'), 'limit', 1, inboxes.INBOX_PAGE_MAX, inboxes.INBOX_PAGE_MAX);
        if (!Number.isInteger(limit)) fail('invalid_parameter', `limit must be a whole number from 1 to ${inboxes.INBOX_PAGE_MAX}`, { param: 'limit' });
        return inboxes.listInboxPage(deps, who, limit, inboxes.decodeInboxCursor(ex.query.get('cursor')));
      });
      // `next_cursor` only where another page follows, as `next_before` on message lists.
      ok(ex, 200, page.next_cursor === null ? { count: page.data.length, data: page.data } : { count: page.data.length, data: page.data, next_cursor: page.next_cursor });
    })
    .add('get', '/v1/inboxes/:address', async (ex) => {
      ok(ex, 200, { data: await admitRestAndRead(deps, ex, (who) => inboxes.getInbox(deps, who, address(ex))) });
    })
    .add('del', '/v1/inboxes/:address', async (ex) => {
      const who = await caller(deps, ex);
      const { address: gone } = await inboxes.deleteInbox(deps, who, address(ex));
      ok(ex, 200, { message: `Inbox ${gone} deleted` });
    })
    .add('get', '/v1/inboxes/:address/messages', async (ex) => {
      const data = await admitRestAndRead(deps, ex, (who) => {
        const query = ex.query;
        const limit = intInRange(query.get('limit'), 'limit', 1, 100, 10);
        if (!Number.isInteger(limit)) fail('invalid_parameter', 'limit must be a whole number from 1 to 100', { param: 'limit' });
        const unreadOnly = optionalBool(query.get('unread_only'), 'unread_only');
        const before = optionalSince(query.get('before'), 'before');
        const q = query.get('q') || null;
        if (q !== null && q.length > SEARCH_MAX_CHARS) fail('invalid_parameter', `q must be at most ${SEARCH_MAX_CHARS} characters`, { param: 'q' });
        return messages.listMessagesJson(deps, who, address(ex), limit, unreadOnly, { before, query: q });
      });
      okJsonFields(ex, 200, data);
    })
    .add('get', '/v1/inboxes/:address/messages/wait', async (ex) => {
      const query = ex.query;
      // The retry budget is the wait asked for (the default if the value is bad: that is refused once admitted).
      const asked = Number(query.get('timeout'));
      const budgetS = Number.isInteger(asked) && asked >= 10 && asked <= 60 ? asked : WAIT_DEFAULT_S;
      const { value: admission, spentMs } = await admitWaiting(() => admitRest(deps, ex), budgetS * 1000, () => ex.signal.aborted);
      const who = callerOf(admission);
      const timeoutS = intInRange(query.get('timeout'), 'timeout', 10, 60, WAIT_DEFAULT_S);
      const since = waitSince(query.get('since'));
      const inbox = address(ex);
      // The handler returns here; the answer comes from the ParkedWait when the shard settles it.
      ex.releaseRequest();
      // A copy of the address in storage of its own: the parked command keeps it.
      messages.parkWait(deps, who, detached(inbox), { since, timeoutMs: Math.max(0, timeoutS * 1000 - spentMs), match: 'any', signal: ex.signal }, new ParkedWait(ex, since));
    })
    .add('get', '/v1/inboxes/:address/messages/:id', async (ex) => {
      const who = await caller(deps, ex);
      const m = await messages.getMessage(deps, who, address(ex), requireMessageId(ex.params[1], 'id'));
      ok(ex, 200, { data: messages.fullMessageView(m) });
    })
    .add('get', '/v1/inboxes/:address/messages/:id/raw', async (ex) => {
      const raw = await admitRestAndRead(deps, ex, (who) => messages.rawMessage(deps, who, address(ex), requireMessageId(ex.params[1], 'id')));
      ex.send(200, raw, 'message/rfc822');
    })
    .add('get', '/v1/inboxes/:address/messages/:id/attachments/:n', async (ex) => {
      const who = await caller(deps, ex);
      const n = ex.params[2] ?? '';
      if (!/^\d+$/.test(n)) fail('attachment_not_found', `No attachment ${n}`);
      const a = await messages.messageAttachment(deps, who, address(ex), requireMessageId(ex.params[1], 'id'), Number(n));
      const disposition = a.filename ? `attachment; filename*=UTF-8''${encodeURIComponent(a.filename)}` : 'attachment';
      ex.send(200, a.content, a.content_type, [['Content-Disposition', disposition]]);
    })
    .add('del', '/v1/inboxes/:address/messages/:id', async (ex) => {
      const who = await caller(deps, ex);
      const { id } = await messages.deleteMessage(deps, who, address(ex), requireMessageId(ex.params[1], 'id'));
      ok(ex, 200, { message: `Message ${id} deleted` });
    });
}
