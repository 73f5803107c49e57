// Admission leases (DESIGN §7, issue 18): a front that admits the same credential many times a
// second asks the account's shard for a block of admissions in advance and spends it locally, so
// a busy credential's request costs one shard round trip (its read) instead of two. The shard
// counts a lease when it grants it, so the account's limits hold in sum across fronts; what a lease
// leaves unspent goes back with the credential's next shard admission, on `/v1/account/usage`, or
// when the lease runs out. A lease is spent only while the credential is in the admitted cache,
// which rotations, plan changes and an unheard shard empty within a second.
import type { LeaseReturn, Meter } from '../contract/commands.js';
import type { Admission } from '../contract/results.js';
import { MailcueError, type ErrorCode } from '../errors/registry.js';
import { ADMITTED_MAX } from './admitted-credentials.js';

/**
 * A credential admitted by its shard this recently is busy here: its next admission asks for a
 * lease. Not one second: a front whose keys each come back every second or two (10,000 agents at
 * 6,500 reads/s) had no busy key, so every read paid a shard admission, which slowed the reads and
 * spaced each key out further; 5.6 % of admissions came from leases at 10,000 accounts, 99.8 % at 10.
 */
const BUSY_WITHIN_MS = 5_000;
const FIRST_WANT = 8;
const MAX_WANT = 512;
/** Stop spending this long before the shard's window ends: the clocks and the trip differ a little. */
const WINDOW_MARGIN_MS = 250;
/** Sessions a lease marks active before the shard must hear of them. */
const MAX_SESSIONS = 256;
/** Credentials whose asking is tracked: as many as the admitted cache holds. */
const MAX_TRACKED = ADMITTED_MAX;

type LeasedKind = Exclude<Meter, { kind: 'none' }>['kind'];
const LEASED_KINDS: readonly LeasedKind[] = ['rest', 'tool'];

/** The credits a request takes: a tool call's multiplier, nothing for a REST request. */
function creditsOf(meter: Meter): number {
  return meter.kind === 'tool' ? meter.credits : 0;
}

/** What the lease protocol adds to a credential's shard admission. */
export interface LeaseRequest {
  /** Admissions wanted in advance. */
  lease?: number;
  /** The unspent rest of a lease this front can no longer spend. */
  returned?: LeaseReturn;
}

/** Refusals that a lease still held here may answer instead. */
const LIMIT_CODES = new Set<ErrorCode>(['rate_limited', 'credits_exhausted']);

/** A lease, kept under its meter kind and credential hash. */
interface Lease {
  readonly accountId: string;
  /** The admission the lease came with: account, generation, limit. */
  admission: Admission;
  left: number;
  credits: number;
  /** What the next spent admission shows the caller: requests (or ops) and credits left. */
  remaining: number;
  creditsLeft: number | undefined;
  readonly minute: number;
  readonly month: string;
  readonly expiresAt: number;
  /** Admissions granted into it in all, for when to ask for the next block. */
  granted: number;
  readonly sessions: Set<string>;
}

/** How a credential (and meter kind) has been asking its shard. */
interface Asking {
  /** The last shard admission. */
  at: number;
  want: number;
  /** A lease request is on its way: others do not ask too. */
  inFlight: boolean;
  /** The shard granted the last request: ask for the next block before this one runs out. */
  refill: boolean;
}

/** A lease given back: where it goes and what it returns. */
export interface ReturnedLease {
  accountId: string;
  returned: LeaseReturn;
}

export class AdmissionLeases {
  /** By meter kind, then credential hash (no key is built per request). */
  private readonly leases: Record<LeasedKind, Map<string, Lease>> = { rest: new Map(), tool: new Map() };
  private readonly asks: Record<LeasedKind, Map<string, Asking>> = { rest: new Map(), tool: new Map() };
  /** Leases replaced by one of another window, to give back. */
  private pending: ReturnedLease[] = [];
  /** Admissions spent from leases (a metric). */
  spent = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * One admission of a credential. While `trusted()` (the credential is in the admitted cache) it
   * is spent from this front's lease when there is one; otherwise the account's shard is asked
   * through `ask`, with what the lease protocol adds, and the block it grants is kept. A refusal
   * while a lease of the key is still held here (the next block was asked for early) spends that:
   * it is the last of the limit.
   */
  async admit(hash: string, meter: Meter, session: string | undefined, trusted: () => boolean, ask: (extra: LeaseRequest) => Promise<Admission>): Promise<Admission> {
    if (trusted()) {
      const leased = this.spend(hash, meter, session);
      if (leased) return leased;
    }
    const extra = this.request(hash, meter);
    let admission: Admission;
    try {
      admission = await ask(extra);
    } catch (err) {
      this.answered(hash, meter, null, extra.lease !== undefined);
      if (err instanceof MailcueError && LIMIT_CODES.has(err.code) && trusted()) {
        const leased = this.spend(hash, meter, session, true);
        if (leased) return leased;
      }
      throw err;
    }
    this.answered(hash, meter, admission, extra.lease !== undefined);
    return admission;
  }

  /**
   * An admission spent from this front's lease of the credential, or undefined when the shard must
   * be asked. The caller checks first that the credential is still in the admitted cache. When a
   * quarter of the lease is left, one request goes to the shard for the next block (unless
   * `toTheEnd`: the shard refused, so what is left here is the last of the limit).
   */
  private spend(hash: string, meter: Meter, session?: string, toTheEnd = false): Admission | undefined {
    if (meter.kind === 'none') return undefined;
    const lease = this.leases[meter.kind].get(hash);
    const credits = creditsOf(meter);
    if (!lease || !this.usable(lease, credits)) return undefined;
    const ask = this.asks[meter.kind].get(hash);
    if (!toTheEnd && ask?.refill && !ask.inFlight && lease.left * 4 <= lease.granted) return undefined;
    if (session && !lease.sessions.has(session)) {
      if (lease.sessions.size >= MAX_SESSIONS) return undefined;
      lease.sessions.add(session);
    }
    lease.left--;
    lease.credits -= credits;
    lease.remaining--;
    if (lease.creditsLeft !== undefined) lease.creditsLeft -= credits;
    this.spent++;
    const { account, generation, rate, scope } = lease.admission;
    const admission: Admission = {
      account, generation, ...(scope ? { scope } : {}),
      rate: { limit: rate.limit, remaining: Math.max(0, lease.remaining), reset_s: Math.max(1, Math.ceil((lease.expiresAt + WINDOW_MARGIN_MS - this.now()) / 1000)) },
    };
    if (lease.creditsLeft !== undefined) admission.credits_left = lease.creditsLeft;
    return admission;
  }

  /**
   * What the credential's shard admission carries: a lease wanted when the credential is busy
   * here (one request at a time asks), and the rest of a lease this front can no longer spend.
   */
  private request(hash: string, meter: Meter): LeaseRequest {
    if (meter.kind === 'none') return {};
    const leases = this.leases[meter.kind];
    const asks = this.asks[meter.kind];
    const out: LeaseRequest = {};
    const lease = leases.get(hash);
    let ask = asks.get(hash);
    if (lease && !this.usable(lease, creditsOf(meter))) {
      leases.delete(hash);
      out.returned = returnOf(lease, meter.kind);
      // A lease that ended mostly unspent asks for half as much next time.
      if (ask && lease.left > lease.granted / 2) ask.want = Math.max(FIRST_WANT, ask.want / 2);
    }
    const now = this.now();
    if (!ask) {
      if (asks.size >= MAX_TRACKED) asks.delete(asks.keys().next().value!);
      ask = { at: now, want: FIRST_WANT, inFlight: false, refill: false };
      asks.set(hash, ask);
      return out;
    }
    if (now - ask.at < BUSY_WITHIN_MS && !ask.inFlight) {
      out.lease = ask.want;
      ask.inFlight = true;
      // Busy again before the next block is needed: the one after may be twice as large.
      ask.want = Math.min(MAX_WANT, ask.want * 2);
    }
    ask.at = now;
    return out;
  }

  /** After the shard answered the credential's admission (null when it refused or failed). */
  private answered(hash: string, meter: Meter, admission: Admission | null, asked: boolean): void {
    if (meter.kind === 'none') return;
    const leases = this.leases[meter.kind];
    const ask = this.asks[meter.kind].get(hash);
    if (ask && asked) {
      ask.inFlight = false;
      ask.refill = admission?.lease !== undefined;
    }
    if (!admission) return;
    const grant = admission.lease;
    const lease = leases.get(hash);
    if (lease && this.now() < lease.expiresAt && (!grant || (lease.minute === grant.minute && lease.month === grant.month))) {
      // The shard counts this lease's unspent admissions (and credits) as used; the caller's
      // answer, and the next spent one, show them as left.
      admission.rate.remaining += lease.left;
      if (admission.credits_left !== undefined) admission.credits_left += lease.credits;
      if (!grant) return;
      // The next block of the same window joins what is left of this one.
      lease.admission = admission;
      lease.remaining = admission.rate.remaining;
      lease.creditsLeft = admission.credits_left;
      lease.left += grant.admissions;
      lease.credits += grant.credits;
      lease.granted = lease.left;
      return;
    }
    if (!grant) return;
    if (lease) this.pending.push({ accountId: lease.accountId, returned: returnOf(lease, meter.kind) });
    leases.set(hash, {
      accountId: admission.account.id,
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

  private usable(lease: Lease, credits: number): boolean {
    return lease.left >= 1 && credits <= lease.credits && this.now() < lease.expiresAt;
  }

  /** Takes back the leases of an account (before its usage is read, or when it changed). */
  takeAccount(accountId: string): ReturnedLease[] {
    return this.take((lease) => lease.accountId === accountId, (r) => r.accountId === accountId);
  }

  /**
   * Takes back leases that ran out (their window ended, or they are spent) or that `stale` says
   * may no longer be spent (the credential left the admitted cache), and the replaced ones.
   */
  takeFinished(stale: (credentialHash: string) => boolean = () => false): ReturnedLease[] {
    const now = this.now();
    for (const asks of Object.values(this.asks)) for (const [hash, ask] of asks) if (now - ask.at >= BUSY_WITHIN_MS * 60) asks.delete(hash);
    return this.take((lease, hash) => now >= lease.expiresAt || lease.left <= 0 || stale(hash), () => true);
  }

  /** Removes the leases `which` picks and the replaced ones `pendingWhich` picks; what is worth giving back. */
  private take(which: (lease: Lease, hash: string) => boolean, pendingWhich: (r: ReturnedLease) => boolean): ReturnedLease[] {
    const out = this.pending.filter(pendingWhich);
    this.pending = this.pending.filter((r) => !pendingWhich(r));
    for (const kind of LEASED_KINDS) {
      const leases = this.leases[kind];
      for (const [hash, lease] of leases) {
        if (!which(lease, hash)) continue;
        leases.delete(hash);
        out.push({ accountId: lease.accountId, returned: returnOf(lease, kind) });
      }
    }
    return out.filter(worthReturning);
  }

  get size(): number {
    return this.leases.rest.size + this.leases.tool.size;
  }
}

function returnOf(lease: Lease, kind: LeasedKind): LeaseReturn {
  const rest = kind === 'rest' ? lease.left : 0;
  const ops = kind === 'tool' ? lease.left : 0;
  return { minute: lease.minute, month: lease.month, rest, ops, credits: lease.credits, sessions: [...lease.sessions] };
}

function worthReturning(r: ReturnedLease): boolean {
  const x = r.returned;
  return x.rest > 0 || x.ops > 0 || x.credits > 0 || x.sessions.length > 0;
}
