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
}

const base = { toolExecution: false, opsPerMinute: 0, concurrentSessions: 0, discoverySessions: 10, customDomains: false, webhooks: false, monthlyCredits: 0, priceUsdPerMonth: null };

export const DEFAULT_PLANS: Readonly<Record<PlanName, Plan>> = {
  free: { ...base, name: 'free', title: 'Free', restPerMinute: 60 },
  developer: { ...base, name: 'developer', title: 'Developer', restPerMinute: 120 },
  startup: { ...base, name: 'startup', title: 'Startup', restPerMinute: 300 },
  growth: {
    name: 'growth', title: 'Growth', toolExecution: true, opsPerMinute: 60, concurrentSessions: 5, discoverySessions: 0,
    restPerMinute: 600, customDomains: true, webhooks: true, monthlyCredits: 100_000, priceUsdPerMonth: 49,
  },
  enterprise: {
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
