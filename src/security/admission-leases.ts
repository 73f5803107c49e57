// Admission leases (DESIGN §7, issue 18): a front that admits the same credential many times a
// second asks the account's shard for a block of admissions in advance and spends it locally, so
// a busy credential's request costs one shard round trip (its read) instead of two. The shard
// counts a lease when it grants it, so the account's limits hold in sum across fronts; what a lease
// leaves unspent goes back with the credential's next shard admission, on `/v1/account/usage`, or
// when the lease runs out. A lease is spent only while the credential is in the admitted cache,
// which rotations, plan changes and an unheard shard empty within a second.
import type { LeaseReturn, Meter } from '../contract/commands.js';
import type { Admission } from '../contract/results.js';

/** A credential admitted by its shard this recently is busy here: its next admission asks for a lease. */
const BUSY_WITHIN_MS = 1_000;
const FIRST_WANT = 8;
const MAX_WANT = 512;
/** Stop spending this long before the shard's window ends: the clocks and the trip differ a little. */
const WINDOW_MARGIN_MS = 250;
/** Sessions a lease marks active before the shard must hear of them. */
const MAX_SESSIONS = 256;
const MAX_TRACKED = 10_000;

type LeasedMeter = Exclude<Meter, { kind: 'none' }>;

interface Lease {
  readonly hash: string;
  readonly accountId: string;
  readonly kind: LeasedMeter['kind'];
  /** The admission the lease came with: account, generation, limit. */
  readonly admission: Admission;
  left: number;
  credits: number;
  /** What the next spent admission shows the caller: requests (or ops) and credits left. */
  remaining: number;
  creditsLeft: number | undefined;
  readonly minute: number;
  readonly month: string;
  readonly expiresAt: number;
  readonly granted: number;
  readonly sessions: Set<string>;
}

/** A lease given back: where it goes and what it returns. */
export interface ReturnedLease {
  accountId: string;
  returned: LeaseReturn;
}

export class AdmissionLeases {
  private readonly leases = new Map<string, Lease>();
  /** When each credential (and meter kind) was last admitted by its shard, and what it asks for next. */
  private readonly asks = new Map<string, { at: number; want: number }>();
  /** Leases replaced by a newer one of the same credential, to give back. */
  private pending: ReturnedLease[] = [];
  /** Admissions spent from leases (a metric). */
  spent = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * An admission spent from this front's lease of the credential, or undefined when the shard must
   * be asked. The caller checks first that the credential is still in the admitted cache.
   */
  spend(hash: string, meter: Meter, session?: string): Admission | undefined {
    if (meter.kind === 'none') return undefined;
    const lease = this.leases.get(key(hash, meter.kind));
    if (!lease || lease.left < 1 || this.now() >= lease.expiresAt) return undefined;
    const credits = meter.kind === 'tool' ? meter.credits : 0;
    if (credits > lease.credits) return undefined;
    if (session && !lease.sessions.has(session)) {
      if (lease.sessions.size >= MAX_SESSIONS) return undefined;
      lease.sessions.add(session);
    }
    lease.left--;
    lease.credits -= credits;
    lease.remaining--;
    if (lease.creditsLeft !== undefined) lease.creditsLeft -= credits;
    this.spent++;
    const { account, generation, rate } = lease.admission;
    const admission: Admission = {
      account, generation,
      rate: { limit: rate.limit, remaining: Math.max(0, lease.remaining), reset_s: Math.max(1, Math.ceil((lease.expiresAt + WINDOW_MARGIN_MS - this.now()) / 1000)) },
    };
    if (lease.creditsLeft !== undefined) admission.credits_left = lease.creditsLeft;
    return admission;
  }

  /**
   * What the credential's shard admission carries: a lease wanted when the credential is busy
   * here, and the unspent rest of its previous lease, which this front no longer spends.
   */
  request(hash: string, meter: Meter): { lease?: number; returned?: LeaseReturn } {
    if (meter.kind === 'none') return {};
    const k = key(hash, meter.kind);
    const out: { lease?: number; returned?: LeaseReturn } = {};
    const lease = this.leases.get(k);
    const ask = this.asks.get(k);
    if (lease) {
      this.leases.delete(k);
      out.returned = returnOf(lease);
      // A lease spent in full asks for twice as much next time; one mostly left over, half.
      if (ask) ask.want = lease.left === 0 ? Math.min(MAX_WANT, ask.want * 2) : lease.left > lease.granted / 2 ? Math.max(FIRST_WANT, ask.want / 2) : ask.want;
    }
    const now = this.now();
    if (ask && now - ask.at < BUSY_WITHIN_MS) out.lease = ask.want;
    if (ask) ask.at = now;
    else {
      if (this.asks.size >= MAX_TRACKED) this.asks.delete(this.asks.keys().next().value!);
      this.asks.set(k, { at: now, want: FIRST_WANT });
    }
    return out;
  }

  /** After the shard admitted the credential: keeps the lease it granted, if any. */
  granted(hash: string, meter: Meter, admission: Admission): void {
    const grant = admission.lease;
    if (!grant || meter.kind === 'none') return;
    const k = key(hash, meter.kind);
    // Requests that went to the shard together each bring a lease: the newest is kept, and the
    // one it replaces goes back with the next admission.
    const previous = this.leases.get(k);
    if (previous) this.pending.push({ accountId: previous.accountId, returned: returnOf(previous) });
    this.leases.set(k, {
      hash,
      accountId: admission.account.id,
      kind: meter.kind,
      admission,
      left: grant.admissions,
      credits: grant.credits,
      remaining: admission.rate.remaining,
      creditsLeft: admission.credits_left,
      minute: grant.minute,
      month: grant.month,
      expiresAt: this.now() + grant.window_ms - WINDOW_MARGIN_MS,
      granted: grant.admissions,
      sessions: new Set(),
    });
  }

  /** Takes back the leases of an account (before its usage is read, or when it changed). */
  takeAccount(accountId: string): ReturnedLease[] {
    const out = this.pending.filter((r) => r.accountId === accountId);
    this.pending = this.pending.filter((r) => r.accountId !== accountId);
    for (const [k, lease] of this.leases) {
      if (lease.accountId !== accountId) continue;
      this.leases.delete(k);
      out.push({ accountId, returned: returnOf(lease) });
    }
    return out.filter(worthReturning);
  }

  /**
   * Takes back leases that ran out (their window ended, or they are spent) or that `stale` says
   * may no longer be spent (the credential left the admitted cache), and the replaced ones.
   */
  takeFinished(stale: (credentialHash: string) => boolean = () => false): ReturnedLease[] {
    const now = this.now();
    const out = this.pending;
    this.pending = [];
    for (const [k, lease] of this.leases) {
      if (now < lease.expiresAt && lease.left > 0 && !stale(lease.hash)) continue;
      this.leases.delete(k);
      out.push({ accountId: lease.accountId, returned: returnOf(lease) });
    }
    for (const [k, ask] of this.asks) if (now - ask.at >= BUSY_WITHIN_MS * 60) this.asks.delete(k);
    return out.filter(worthReturning);
  }

  get size(): number {
    return this.leases.size;
  }
}

function key(hash: string, kind: LeasedMeter['kind']): string {
  return kind === 'rest' ? hash : `${hash}:tool`;
}

function returnOf(lease: Lease): LeaseReturn {
  const rest = lease.kind === 'rest' ? lease.left : 0;
  const ops = lease.kind === 'tool' ? lease.left : 0;
  return { minute: lease.minute, month: lease.month, rest, ops, credits: lease.credits, sessions: [...lease.sessions] };
}

function worthReturning(r: ReturnedLease): boolean {
  const x = r.returned;
  return x.rest > 0 || x.ops > 0 || x.credits > 0 || x.sessions.length > 0;
}
