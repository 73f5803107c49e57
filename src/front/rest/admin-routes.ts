// The admin API (bearer MAILCUE_ADMIN_TOKEN): create accounts, change plans, rotate keys.
import { timingSafeEqual } from 'node:crypto';
import { fail } from '../../errors/registry.js';
import * as accounts from '../../services/accounts.js';
import type { Deps } from '../../services/deps.js';
import { clientKey } from '../../security/client-key.js';
import { bearerToken } from '../auth.js';
import type { Exchange } from '../http/exchange.js';
import type { Router } from '../http/router.js';
import { ok } from './respond.js';

/** Failed admin attempts one client (IPv4 address, IPv6 /64) may make per UTC minute (issue 33). */
export const ADMIN_FAILURES_PER_MINUTE = 10;

/**
 * Failed admin attempts per client in fixed windows aligned to the UTC minute: past the limit
 * every admin call from that client answers 429 with Retry-After until the next window, so the
 * token cannot be guessed at line rate. Bounded: once full, unseen clients share one count.
 */
class AdminFailures {
  private minute = -1;
  private readonly counts = new Map<string, number>();

  private window(now: number): void {
    const minute = Math.floor(now / 60_000);
    if (minute === this.minute) return;
    this.minute = minute;
    this.counts.clear();
  }

  /** Seconds to wait when the client is over the limit, else 0. */
  blocked(client: string, now = Date.now()): number {
    this.window(now);
    return (this.counts.get(client) ?? 0) >= ADMIN_FAILURES_PER_MINUTE ? Math.max(1, Math.ceil((60_000 - (now % 60_000)) / 1000)) : 0;
  }

  failed(client: string, now = Date.now()): void {
    this.window(now);
    const key = this.counts.has(client) || this.counts.size < 50_000 ? client : '';
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }
}

const failures = new AdminFailures();

function requireAdmin(deps: Deps, ex: Exchange): void {
  const expected = deps.config.adminToken;
  const given = bearerToken(ex);
  if (!expected) fail('unauthorized', 'The admin API is disabled: set MAILCUE_ADMIN_TOKEN');
  const client = clientKey(ex.remoteAddress);
  const wait = failures.blocked(client);
  if (wait > 0) fail('rate_limited', `Too many failed admin attempts from this address (${ADMIN_FAILURES_PER_MINUTE} per minute)`, { retry_after_s: wait });
  const a = Buffer.from(given ?? '');
  const b = Buffer.from(expected);
  if (a.length !== b.length || !timingSafeEqual(a, b)) {
    failures.failed(client);
    fail('unauthorized', 'Invalid admin token');
  }
}

export function adminRoutes(router: Router, deps: Deps): void {
  router
    .add('post', '/admin/v1/accounts', async (ex) => {
      requireAdmin(deps, ex);
      const b = await ex.jsonObject();
      const name = b.name === undefined || b.name === null ? null : String(b.name);
      ok(ex, 201, { data: await accounts.createAccount(deps.cluster, accounts.requirePlan(b.plan), name) });
    })
    .add('get', '/admin/v1/accounts/:id', async (ex) => {
      requireAdmin(deps, ex);
      ok(ex, 200, { data: await accounts.getAccount(deps.cluster, accounts.requireAccountId(ex.params[0])) });
    })
    .add('patch', '/admin/v1/accounts/:id', async (ex) => {
      requireAdmin(deps, ex);
      const id = accounts.requireAccountId(ex.params[0]);
      const b = await ex.jsonObject();
      const view = await accounts.setPlan(deps.cluster, id, accounts.requirePlan(b.plan));
      // This front stops trusting the account's credentials (and spending their leases) before it
      // answers; the others do when the shard's notice reaches them.
      deps.admitted.forgetAccount(id);
      ok(ex, 200, { data: view });
    })
    .add('post', '/admin/v1/accounts/:id/rotate-key', async (ex) => {
      requireAdmin(deps, ex);
      const id = accounts.requireAccountId(ex.params[0]);
      const view = await accounts.rotateKey(deps.cluster, id);
      deps.admitted.forgetAccount(id);
      ok(ex, 200, { data: view });
    });
}
