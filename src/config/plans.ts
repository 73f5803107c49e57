// The plan matrix of SEED.md plus the REST rate limits of DESIGN §3. Operators override any
// plan's numbers with a JSON file (MAILCUE_PLANS_FILE), e.g. to lift limits for benchmarks.

export const PLAN_NAMES = ['free', 'developer', 'startup', 'growth', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface Plan {
  readonly name: PlanName;
  /** Display name used in messages: "Growth". */
  readonly title: string;
  readonly toolExecution: boolean;
  readonly opsPerMinute: number;
  readonly concurrentSessions: number;
  /** Plans without tool execution: open discovery sessions allowed (DESIGN §7). */
  readonly discoverySessions: number;
  readonly restPerMinute: number;
  readonly customDomains: boolean;
  readonly webhooks: boolean;
  readonly monthlyCredits: number;
  /** USD per month where SEED.md gives one (Growth 49, Enterprise 149); null where it does not. */
  readonly priceUsdPerMonth: number | null;
  /** Storage governance (DESIGN §7 "Storage is governed"): inboxes an account may hold. */
  readonly maxInboxes: number;
  /** Messages one inbox may hold; mail to a full inbox answers 452 4.2.2 at RCPT. */
  readonly maxMessagesPerInbox: number;
  /** Bytes of mail (raw sizes, per inbox that holds it) an account may hold. */
  readonly maxStoredBytes: number;
  /** Messages older than this many seconds are deleted; an inbox may set a shorter one. */
  readonly retentionSeconds: number;
  /** Webhooks one inbox may have. */
  readonly webhooksPerInbox: number;
}

/** The numbers a plans file may set (MAILCUE_PLANS_FILE): each a whole number, at least its minimum. */
export const PLAN_NUMBERS: Readonly<Record<string, number>> = {
  opsPerMinute: 0, concurrentSessions: 0, discoverySessions: 0, restPerMinute: 0, monthlyCredits: 0,
  maxInboxes: 0, maxMessagesPerInbox: 0, maxStoredBytes: 0, retentionSeconds: 1, webhooksPerInbox: 0,
};

const MB = 1024 * 1024;
const DAY_S = 86_400;

/** Storage limits by plan: the free tier small, each paid tier a step up (docs/configuration.md). */
const STORAGE: Readonly<Record<PlanName, Pick<Plan, 'maxInboxes' | 'maxMessagesPerInbox' | 'maxStoredBytes' | 'retentionSeconds' | 'webhooksPerInbox'>>> = {
  free: { maxInboxes: 10, maxMessagesPerInbox: 100, maxStoredBytes: 50 * MB, retentionSeconds: DAY_S, webhooksPerInbox: 2 },
  developer: { maxInboxes: 50, maxMessagesPerInbox: 1_000, maxStoredBytes: 500 * MB, retentionSeconds: 7 * DAY_S, webhooksPerInbox: 5 },
  startup: { maxInboxes: 250, maxMessagesPerInbox: 5_000, maxStoredBytes: 2_048 * MB, retentionSeconds: 14 * DAY_S, webhooksPerInbox: 5 },
  growth: { maxInboxes: 1_000, maxMessagesPerInbox: 10_000, maxStoredBytes: 10_240 * MB, retentionSeconds: 30 * DAY_S, webhooksPerInbox: 10 },
  enterprise: { maxInboxes: 10_000, maxMessagesPerInbox: 50_000, maxStoredBytes: 102_400 * MB, retentionSeconds: 90 * DAY_S, webhooksPerInbox: 25 },
};

const base = { toolExecution: false, opsPerMinute: 0, concurrentSessions: 0, discoverySessions: 10, customDomains: false, webhooks: false, monthlyCredits: 0, priceUsdPerMonth: null };

export const DEFAULT_PLANS: Readonly<Record<PlanName, Plan>> = {
  free: { ...base, ...STORAGE.free, name: 'free', title: 'Free', restPerMinute: 60 },
  developer: { ...base, ...STORAGE.developer, name: 'developer', title: 'Developer', restPerMinute: 120 },
  startup: { ...base, ...STORAGE.startup, name: 'startup', title: 'Startup', restPerMinute: 300 },
  growth: {
    ...STORAGE.growth,
    name: 'growth', title: 'Growth', toolExecution: true, opsPerMinute: 60, concurrentSessions: 5, discoverySessions: 0,
    restPerMinute: 600, customDomains: true, webhooks: true, monthlyCredits: 100_000, priceUsdPerMonth: 49,
  },
  enterprise: {
    ...STORAGE.enterprise,
    name: 'enterprise', title: 'Enterprise', toolExecution: true, opsPerMinute: 200, concurrentSessions: 10, discoverySessions: 0,
    restPerMinute: 1200, customDomains: true, webhooks: true, monthlyCredits: 1_000_000, priceUsdPerMonth: 149,
  },
};

/** Open agent-tool sessions an account may hold: SEED.md's cap, or discovery sessions below Growth. */
export function sessionCap(plan: Plan): number {
  return plan.toolExecution ? plan.concurrentSessions : plan.discoverySessions;
}

export function isPlanName(value: unknown): value is PlanName {
  return typeof value === 'string' && (PLAN_NAMES as readonly string[]).includes(value);
}

/** Credit multipliers of SEED.md ("Limits"); every other tool costs 1. */
export const TOOL_CREDIT_MULTIPLIERS: Readonly<Record<string, number>> = {
  get_latest_email: 2,
  extract_otp: 3,
  create_and_wait_for_otp: 5,
  watch_email: 10,
  // The same wait as watch_email (issue 36), so it costs the same.
  wait_for_email: 10,
};

export function toolCredits(tool: string): number {
  return TOOL_CREDIT_MULTIPLIERS[tool] ?? 1;
}

/** A plan's limits as `GET /v1/account` shows them (DESIGN §3; storage ones DESIGN §7). */
export function planLimits(plan: Plan) {
  return {
    tool_execution: plan.toolExecution,
    ops_per_minute: plan.opsPerMinute,
    concurrent_sessions: plan.concurrentSessions,
    open_sessions_cap: sessionCap(plan),
    requests_per_minute: plan.restPerMinute,
    custom_domains: plan.customDomains,
    webhooks: plan.webhooks,
    monthly_credits: plan.monthlyCredits,
    price_usd_per_month: plan.priceUsdPerMonth,
    inboxes: plan.maxInboxes,
    messages_per_inbox: plan.maxMessagesPerInbox,
    stored_bytes: plan.maxStoredBytes,
    retention: plan.retentionSeconds,
    webhooks_per_inbox: plan.webhooksPerInbox,
  };
}
