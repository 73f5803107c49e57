// AccountActor: plan, API key, credits and the per-minute windows of one account. It is the single
// place where admission is decided, so every front tier in front of the same shards enforces one
// shared limit. Records are cached in memory because admission must read its own writes at once.
// Its scoped keys (account-keys.ts) and open sessions (account-sessions.ts) are kept beside it.
import { planLimits, sessionCap, type Plan } from '../config/plans.js';
import { fail } from '../errors/registry.js';
import { hashesEqual, sha256Hex } from '../security/credentials.js';
import type { LeaseReturn, Meter } from '../contract/commands.js';
import type { CommandOf, FamilyOf, Handlers } from '../contract/command-table.js';
import { scopeOf, type KeyScope, type ScopedKeyRecord } from '../contract/keys.js';
import type { ActorContext } from './context.js';
import type { InboxAllowanceType } from './inbox-allowance.js';
import { toAccountView, type AccountRecord, type AccountView } from '../contract/model.js';
import type { AccountNotice, Admission, AdmissionLease } from '../contract/results.js';
import { releaseDomain, reserveDomain } from './account-domains.js';
import { AccountKeys } from './account-keys.js';
import { AccountSessions } from './account-sessions.js';
import { leaseSize, toolLeaseSize } from './lease-size.js';

/** What admission needs of a live access token: the scoped key that granted it, if one did. */
export interface TokenGrant {
  key_id?: string;
  key_generation?: number;
}

interface Window {
  minute: number;
  rest: number;
  ops: number;
}

export function generationOf(record: AccountRecord): number {
  return record.key_generation ?? 0;
}

export function utcMonth(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

/** Credit counters reach disk at most this often: a crash forgets at most this much metering. */
const CREDIT_FLUSH_MS = 250;

export class AccountActor {
  private readonly cache = new Map<string, AccountRecord>();
  private readonly windows = new Map<string, Window>();
  private readonly dirty = new Set<string>();
  private flushTimer: NodeJS.Timeout | null = null;
  private month = { until: 0, name: '' };
  /** Open agent-tool sessions per account. */
  readonly sessions: AccountSessions;
  readonly keys: AccountKeys;

  /**
   * Told after a rotation or plan change has committed, and when a session ends; the shard server
   * pushes it to the fronts.
   */
  readonly changed: ((notice: AccountNotice) => void)[] = [];

  /** OAuth access tokens live with their account on this shard; the OAuth actor owns them and answers a live one's grant. */
  constructor(
    private readonly ctx: ActorContext,
    private readonly accessToken: (accountId: string, hash: string, generation: number) => TokenGrant | null,
  ) {
    this.sessions = new AccountSessions(ctx.now, (accountId, sessionId) =>
      this.tell({ account_id: accountId, kind: 'session_closed', generation: 0, session_id: sessionId }));
    this.keys = new AccountKeys((id) => this.load(id), (id, change, notice) => this.write(id, change, notice), ctx.now);
  }

  /** The account actor's part of the dispatch table (src/contract/command-table.ts). */
  readonly handlers: Handlers<Exclude<FamilyOf<'account'>, InboxAllowanceType>> = {
    'account.create': (cmd) => this.create(cmd),
    'account.get': (cmd) => toAccountView(this.load(cmd.accountId)),
    'account.set_plan': (cmd) => this.update(cmd.accountId, (r) => ({ ...r, plan: cmd.plan }), 'plan'),
    'account.rotate_key': (cmd) => {
      // A new generation revokes every token, code and session of the old key at once (DESIGN §7).
      this.sessions.closeAccount(cmd.accountId);
      return this.update(
        cmd.accountId,
        (r) => ({ ...r, key_hash: sha256Hex(cmd.key), key_sealed: this.ctx.sealer.seal(cmd.key), key_generation: generationOf(r) + 1 }),
        'rotated',
      );
    },
    'account.admit': (cmd) => {
      if (cmd.returned) this.takeBack(cmd.accountId, cmd.returned);
      if (cmd.session) this.sessions.touch(cmd.accountId, cmd.session);
      return this.admit(cmd.accountId, cmd.credentialHash, cmd.credential, cmd.meter, cmd.lease ?? 0);
    },
    'account.lease_return': (cmd) => {
      this.takeBack(cmd.accountId, cmd.returned);
      return null;
    },
    'account.session_open': (cmd) => this.sessions.open(cmd.accountId, this.plan(this.load(cmd.accountId)), cmd.sessionId, cmd.idleMs, cmd.session),
    'account.session_find': (cmd) => this.sessions.find(cmd.accountId, cmd.sessionId),
    'account.session_close': (cmd) => {
      // Every front drops its copy: the session may have been served by several.
      if (this.sessions.close(cmd.accountId, cmd.sessionId)) {
        this.tell({ account_id: cmd.accountId, kind: 'session_closed', generation: 0, session_id: cmd.sessionId });
      }
      return null;
    },
    'account.sessions': (cmd) => this.sessions.count(cmd.accountId),
    'account.key_create': (cmd) => this.keys.create(cmd.accountId, cmd.key),
    'account.key_list': (cmd) => this.keys.list(cmd.accountId),
    'account.key_rotate': (cmd) => this.keys.rotate(cmd.accountId, cmd.keyId, cmd.hash),
    'account.key_delete': (cmd) => this.keys.delete(cmd.accountId, cmd.keyId),
    'account.domain_reserve': (cmd) => reserveDomain(this.ctx, cmd.accountId, cmd.domain, cmd.max),
    'account.domain_release': (cmd) => releaseDomain(this.ctx, cmd.accountId, cmd.domain),
    'account.usage': (cmd) => this.usage(cmd.accountId),
    'account.sealed_key': (cmd) => this.load(cmd.accountId).key_sealed,
  };

  plan(record: AccountRecord): Plan {
    return this.ctx.config.plans[record.plan];
  }

  /** The plan of an account on this shard (an unknown account fails not_found). */
  planOf(accountId: string): Plan {
    return this.plan(this.load(accountId));
  }

  private async create(cmd: CommandOf<'account.create'>): Promise<AccountView> {
    const record: AccountRecord = {
      id: cmd.id,
      name: cmd.name,
      plan: cmd.plan,
      key_hash: sha256Hex(cmd.key),
      key_sealed: this.ctx.sealer.seal(cmd.key),
      created_at: cmd.created_at,
      credits_month: utcMonth(this.ctx.now()),
      credits_used: 0,
    };
    await this.ctx.store.transaction(() => {
      if (this.ctx.store.accounts.get(cmd.id)) fail('internal', 'account id collision');
      void this.ctx.store.accounts.put(record);
    });
    this.cache.set(record.id, record);
    return toAccountView(record);
  }

  private load(id: string): AccountRecord {
    let record = this.cache.get(id);
    if (!record) {
      record = this.ctx.store.accounts.get(id);
      if (!record) fail('not_found', `No account ${id}`);
      this.cache.set(id, record);
    }
    return record;
  }

  private async update(id: string, change: (r: AccountRecord) => AccountRecord, kind: AccountNotice['kind']): Promise<AccountView> {
    const next = await this.write(id, change, (r) => ({ account_id: id, kind, generation: generationOf(r), session_id: '' }));
    return toAccountView(next);
  }

  /** Writes a changed record, then tells the fronts what `notice` says (nothing for null). */
  private async write(id: string, change: (r: AccountRecord) => AccountRecord, notice: (next: AccountRecord) => AccountNotice | null): Promise<AccountRecord> {
    const next = change(this.load(id));
    this.cache.set(id, next);
    this.dirty.delete(id);
    await this.ctx.store.accounts.put(next);
    const told = notice(next);
    if (told?.kind === 'key_revoked') this.sessions.closeKey(id, told.key_id!);
    if (told) this.tell(told);
    return next;
  }

  /** A scoped key by its secret's hash (the client-credentials grant, a scoped key as client_id). */
  keyBySecret(accountId: string, hash: string): ScopedKeyRecord | undefined {
    const record = this.cache.get(accountId) ?? this.ctx.store.accounts.get(accountId);
    return record ? this.keys.bySecret(record, hash) : undefined;
  }

  /** The unexpired scoped key of that id, whatever its generation. */
  key(accountId: string, keyId: string): ScopedKeyRecord | undefined {
    const record = this.cache.get(accountId) ?? this.ctx.store.accounts.get(accountId);
    return record ? this.keys.byId(record, keyId) : undefined;
  }

  /** The credential generation of an account, or -1 when there is no such account. */
  generation(id: string): number {
    try {
      return generationOf(this.load(id));
    } catch {
      return -1;
    }
  }

  private window(id: string): Window {
    const minute = Math.floor(this.ctx.now() / 60_000);
    let w = this.windows.get(id);
    if (!w || w.minute !== minute) {
      w = { minute, rest: 0, ops: 0 };
      this.windows.set(id, w);
    }
    return w;
  }

  private resetSeconds(): number {
    return Math.max(1, Math.ceil((60_000 - (this.ctx.now() % 60_000)) / 1000));
  }

  private currentMonth(): string {
    const now = this.ctx.now();
    if (now >= this.month.until) {
      const d = new Date(now);
      this.month = { name: utcMonth(now), until: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
    }
    return this.month.name;
  }

  /** Writes changed credit counters in one batch instead of one put per tool call. */
  private persistLater(accountId: string): void {
    this.dirty.add(accountId);
    this.flushTimer ??= setTimeout(() => this.flush(), CREDIT_FLUSH_MS);
  }

  /** Forgets cached accounts `which` picks (their slot moved): the next load reads the store. */
  evictWhere(which: (accountId: string) => boolean): void {
    this.flush();
    for (const id of [...this.cache.keys()]) if (which(id)) this.cache.delete(id);
    for (const id of [...this.windows.keys()]) if (which(id)) this.windows.delete(id);
  }

  flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    for (const id of this.dirty) {
      const record = this.cache.get(id);
      if (record) void this.ctx.store.accounts.put(record);
    }
    this.dirty.clear();
  }

  /** Fresh credits at the start of each UTC month. */
  private currentCredits(record: AccountRecord): AccountRecord {
    const month = this.currentMonth();
    if (record.credits_month === month) return record;
    const next = { ...record, credits_month: month, credits_used: 0 };
    this.cache.set(record.id, next);
    this.persistLater(record.id);
    return next;
  }

  private tell(notice: AccountNotice): void {
    for (const listener of this.changed) listener(notice);
  }

  /** Drops idle sessions and past minute windows of every account; answers how many went. */
  purge(): number {
    const minute = Math.floor(this.ctx.now() / 60_000);
    let removed = this.sessions.purge();
    for (const [accountId, w] of this.windows) {
      if (w.minute === minute) continue;
      this.windows.delete(accountId);
      removed++;
    }
    return removed;
  }

  get openSessions(): number {
    return this.sessions.size;
  }

  /** A front's unspent lease: counts of a past window or month are moot, sessions are marked active. */
  private takeBack(accountId: string, returned: LeaseReturn): void {
    for (const session of returned.sessions) this.sessions.touch(accountId, session);
    const w = this.windows.get(accountId);
    if (w && w.minute === returned.minute) {
      w.rest = Math.max(0, w.rest - returned.rest);
      w.ops = Math.max(0, w.ops - returned.ops);
    }
    if (returned.credits > 0 && returned.month === this.currentMonth()) {
      const record = this.cache.get(accountId);
      if (!record || record.credits_month !== returned.month) return;
      this.cache.set(accountId, { ...record, credits_used: Math.max(0, record.credits_used - returned.credits) });
      this.persistLater(accountId);
    }
  }

  private lease(w: Window, admissions: number, credits: number): AdmissionLease {
    return { admissions, credits, minute: w.minute, month: this.currentMonth(), window_ms: 60_000 - (this.ctx.now() % 60_000) };
  }

  /**
   * Admits one request and meters it. `leaseWanted` > 0 asks for that many more admissions in
   * advance for the asking front; the shard counts them now and grants a share of what is left.
   */
  admit(accountId: string, credentialHash: string, credential: 'api_key' | 'scoped_key' | 'access_token', meter: Meter, leaseWanted = 0): Admission {
    let record: AccountRecord;
    try {
      record = this.load(accountId);
    } catch {
      fail('unauthorized', 'The API key is invalid');
    }
    const scope = this.credentialScope(record, credentialHash, credential);
    const admission = this.metered(record, meter, leaseWanted);
    if (scope) admission.scope = scope;
    return admission;
  }

  /** Checks a credential against the account; answers its scope (undefined: the whole account). */
  private credentialScope(record: AccountRecord, hash: string, credential: 'api_key' | 'scoped_key' | 'access_token'): KeyScope | undefined {
    if (credential === 'api_key') {
      if (!hashesEqual(record.key_hash, hash)) fail('unauthorized', 'The API key is invalid');
      return undefined;
    }
    if (credential === 'scoped_key') {
      const key = this.keys.bySecret(record, hash);
      if (!key) fail('unauthorized', 'The API key is invalid, revoked or expired');
      return scopeOf(key);
    }
    const grant = credential === 'access_token' ? this.accessToken(record.id, hash, generationOf(record)) : null;
    if (!grant) fail('unauthorized', 'The access token is invalid or expired');
    if (grant.key_id === undefined) return undefined;
    const key = this.keys.byId(record, grant.key_id);
    if (key?.generation !== (grant.key_generation ?? 0)) fail('unauthorized', 'The access token was revoked with the key that granted it');
    return scopeOf(key!);
  }

  private metered(record: AccountRecord, meter: Meter, leaseWanted: number): Admission {
    const accountId = record.id;
    const plan = this.plan(record);
    const w = this.window(accountId);
    const reset_s = this.resetSeconds();
    if (meter.kind === 'tool') {
      if (!plan.toolExecution) {
        fail('plan_required', `MCP is not available on the ${plan.title} plan`, { upgrade: 'Growth required', plan: plan.name });
      }
      if (w.ops >= plan.opsPerMinute) {
        fail('rate_limited', `Rate limit exceeded (${plan.opsPerMinute} ops per minute on ${plan.title})`, {
          retry_after_s: reset_s, limit: plan.opsPerMinute, remaining: 0, reset_s,
        });
      }
      record = this.currentCredits(record);
      const left = plan.monthlyCredits - record.credits_used;
      if (meter.credits > left) {
        fail('credits_exhausted', 'Monthly credit allocation exhausted', { credits_left: Math.max(0, left) });
      }
      w.ops++;
      const credits_left = left - meter.credits;
      const granted = toolLeaseSize(leaseWanted, plan.opsPerMinute - w.ops, credits_left, meter.credits);
      w.ops += granted;
      const next = { ...record, credits_used: record.credits_used + meter.credits * (1 + granted) };
      this.cache.set(accountId, next);
      this.persistLater(accountId);
      const admission: Admission = {
        account: toAccountView(next), generation: generationOf(next), rate: { limit: plan.opsPerMinute, remaining: plan.opsPerMinute - w.ops + granted, reset_s }, credits_left,
      };
      if (granted > 0) admission.lease = this.lease(w, granted, granted * meter.credits);
      return admission;
    }
    let granted = 0;
    if (meter.kind === 'rest') {
      if (w.rest >= plan.restPerMinute) {
        fail('rate_limited', `Rate limit exceeded (${plan.restPerMinute} requests per minute on ${plan.title})`, {
          retry_after_s: reset_s, limit: plan.restPerMinute, remaining: 0, reset_s,
        });
      }
      w.rest++;
      granted = leaseSize(leaseWanted, plan.restPerMinute - w.rest);
      w.rest += granted;
    }
    const admission: Admission = {
      account: toAccountView(record), generation: generationOf(record), rate: { limit: plan.restPerMinute, remaining: Math.max(0, plan.restPerMinute - w.rest + granted), reset_s },
    };
    if (granted > 0) admission.lease = this.lease(w, granted, 0);
    return admission;
  }

  private usage(accountId: string) {
    const record = this.currentCredits(this.load(accountId));
    const plan = this.plan(record);
    const w = this.window(accountId);
    return {
      plan: plan.name,
      limits: planLimits(plan),
      ops_this_minute: w.ops,
      requests_this_minute: w.rest,
      credits_used: record.credits_used,
      credits_left: Math.max(0, plan.monthlyCredits - record.credits_used),
    };
  }
}
