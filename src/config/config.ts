// Configuration: one defaults object, MAILCUE_* environment variables on top, validated once and
// frozen. Bad configuration fails at start with one clear line. The result is plain data so it
// can be handed to worker threads as workerData.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_PLANS, PLAN_NAMES, type Plan, type PlanName } from './plans.js';

export interface ShardAddress {
  readonly id: number;
  /** grpc-js target: "unix:/path/sock" or "host:port". */
  readonly target: string;
}

export interface Config {
  readonly host: string;
  readonly httpPort: number;
  readonly smtpPort: number;
  readonly dataDir: string;
  readonly shardCount: number;
  /** Static shard map of a cluster; empty in embedded mode (worker threads on unix sockets). */
  readonly shards: readonly ShardAddress[];
  readonly publicUrl: string;
  readonly mcpUrl: string;
  readonly domains: readonly string[];
  readonly mxHost: string;
  readonly dnsServers: readonly string[];
  /** How long the SMTP answer may wait for sender authentication before it is finished after the 250. */
  readonly authInlineMs: number;
  /** Sender authentication gives up (temperror for what is left) after this long. */
  readonly authTimeoutMs: number;
  readonly adminToken: string | null;
  readonly webhookAllowPrivate: boolean;
  readonly webhookCaFile: string | null;
  readonly webhookRetryDelaysMs: readonly number[];
  readonly webhookTimeoutMs: number;
  readonly maxMessageBytes: number;
  readonly agentConnectionMaxMs: number;
  readonly sessionIdleMs: number;
  readonly oauthCodeTtlMs: number;
  readonly allowedOrigins: readonly string[];
  readonly plans: Readonly<Record<PlanName, Plan>>;
  readonly masterKey: string | null;
  readonly logLevel: string;
  readonly poolThreads: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

function list(env: Env, name: string, fallback: readonly string[]): string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return [...fallback];
  return raw.split(',').map((s) => s.trim()).filter(Boolean);
}

function bool(env: Env, name: string): boolean {
  const raw = (env[name] ?? '').toLowerCase();
  if (raw === '' || raw === '0' || raw === 'false' || raw === 'no') return false;
  if (raw === '1' || raw === 'true' || raw === 'yes') return true;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

function url(name: string, raw: string): string {
  try {
    const u = new URL(raw);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
    return u.href.replace(/\/+$/, '');
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  }
}

/** Parses `0=host:port,1=unix:/path` into a shard map. */
export function parseShardMap(raw: string, name = 'MAILCUE_SHARDS'): ShardAddress[] {
  const shards = raw.split(',').map((s) => s.trim()).filter(Boolean).map((entry) => {
    const m = /^(\d+)=(.+)$/.exec(entry);
    if (!m) throw new ConfigError(`${name}: expected id=host:port, got "${entry}"`);
    return { id: Number(m[1]), target: m[2]! };
  });
  const ids = new Set(shards.map((s) => s.id));
  if (ids.size !== shards.length) throw new ConfigError(`${name}: duplicate shard id`);
  if (shards.length === 0) throw new ConfigError(`${name}: no shards`);
  return shards;
}

function plansFrom(env: Env): Record<PlanName, Plan> {
  const plans: Record<PlanName, Plan> = { ...DEFAULT_PLANS };
  const file = env.MAILCUE_PLANS_FILE;
  if (file) {
    let overrides: Record<string, Partial<Plan>>;
    try {
      overrides = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new ConfigError(`MAILCUE_PLANS_FILE: cannot read ${file}: ${(err as Error).message}`);
    }
    for (const [name, patch] of Object.entries(overrides)) {
      if (!(PLAN_NAMES as readonly string[]).includes(name)) throw new ConfigError(`MAILCUE_PLANS_FILE: unknown plan "${name}"`);
      plans[name as PlanName] = { ...plans[name as PlanName], ...patch, name: name as PlanName };
    }
  }
  const credits = env.MAILCUE_MONTHLY_CREDITS;
  if (credits) {
    for (const pair of credits.split(',')) {
      const [name, value] = pair.split('=').map((s) => s.trim());
      if (!(PLAN_NAMES as readonly string[]).includes(name ?? '') || !/^\d+$/.test(value ?? '')) {
        throw new ConfigError(`MAILCUE_MONTHLY_CREDITS: expected plan=number, got "${pair}"`);
      }
      plans[name as PlanName] = { ...plans[name as PlanName], monthlyCredits: Number(value) };
    }
  }
  return plans;
}

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/;

/**
 * MAILCUE_CONFIG names a JSON file of the same MAILCUE_* keys ({"MAILCUE_HTTP_PORT": 8080, ...});
 * the environment wins over it.
 */
function withConfigFile(env: Env): Env {
  const file = env.MAILCUE_CONFIG;
  if (!file) return env;
  let values: Record<string, unknown>;
  try {
    values = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`MAILCUE_CONFIG: cannot read ${file}: ${(err as Error).message}`);
  }
  const merged: Env = {};
  for (const [k, v] of Object.entries(values)) {
    if (!k.startsWith('MAILCUE_')) throw new ConfigError(`MAILCUE_CONFIG: unknown key "${k}" (keys are MAILCUE_* names)`);
    merged[k] = Array.isArray(v) ? v.join(',') : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
  }
  return { ...merged, ...env };
}

export function loadConfig(rawEnv: Env = process.env, overrides: Partial<Config> = {}): Config {
  const env = withConfigFile(rawEnv);
  const httpPort = int(env, 'MAILCUE_HTTP_PORT', 8080, 0, 65535);
  const publicUrl = url('MAILCUE_PUBLIC_URL', env.MAILCUE_PUBLIC_URL || `http://localhost:${httpPort}`);
  const domains = list(env, 'MAILCUE_DOMAINS', ['mailcue.test']).map((d) => d.toLowerCase());
  for (const d of domains) if (!HOSTNAME.test(d)) throw new ConfigError(`MAILCUE_DOMAINS: "${d}" is not a domain name`);
  const retry = list(env, 'MAILCUE_WEBHOOK_RETRY_DELAYS_MS', ['2000', '10000', '50000']).map((v) => {
    if (!/^\d+$/.test(v)) throw new ConfigError(`MAILCUE_WEBHOOK_RETRY_DELAYS_MS: "${v}" is not a number of milliseconds`);
    return Number(v);
  });
  const config: Config = {
    host: env.MAILCUE_HOST || '0.0.0.0',
    httpPort,
    smtpPort: int(env, 'MAILCUE_SMTP_PORT', 2525, 0, 65535),
    dataDir: path.resolve(env.MAILCUE_DATA_DIR || './data'),
    shardCount: int(env, 'MAILCUE_SHARD_COUNT', 2, 1, 64),
    shards: env.MAILCUE_SHARDS ? parseShardMap(env.MAILCUE_SHARDS) : [],
    publicUrl,
    mcpUrl: env.MAILCUE_MCP_URL ? url('MAILCUE_MCP_URL', env.MAILCUE_MCP_URL) : publicUrl,
    domains,
    mxHost: (env.MAILCUE_MX_HOST || 'mx.mailcue.test').toLowerCase(),
    dnsServers: list(env, 'MAILCUE_DNS_SERVERS', []),
    authInlineMs: int(env, 'MAILCUE_AUTH_INLINE_MS', 1_000, 0, 60_000),
    authTimeoutMs: int(env, 'MAILCUE_AUTH_TIMEOUT_MS', 10_000, 100, 120_000),
    adminToken: env.MAILCUE_ADMIN_TOKEN || null,
    webhookAllowPrivate: bool(env, 'MAILCUE_WEBHOOK_ALLOW_PRIVATE'),
    webhookCaFile: env.MAILCUE_WEBHOOK_CA_FILE || null,
    webhookRetryDelaysMs: retry,
    webhookTimeoutMs: int(env, 'MAILCUE_WEBHOOK_TIMEOUT_MS', 10_000, 1),
    maxMessageBytes: int(env, 'MAILCUE_MAX_MESSAGE_BYTES', 10 * 1024 * 1024, 1024),
    agentConnectionMaxMs: int(env, 'MAILCUE_AGENT_CONNECTION_MAX_MS', 60_000, 1000),
    sessionIdleMs: int(env, 'MAILCUE_SESSION_IDLE_MS', 300_000, 1000),
    oauthCodeTtlMs: int(env, 'MAILCUE_OAUTH_CODE_TTL_MS', 60_000, 100),
    allowedOrigins: list(env, 'MAILCUE_ALLOWED_ORIGINS', []),
    plans: plansFrom(env),
    masterKey: env.MAILCUE_MASTER_KEY || null,
    logLevel: env.MAILCUE_LOG_LEVEL || 'info',
    poolThreads: int(env, 'MAILCUE_POOL_THREADS', 0, 0, 64),
    ...overrides,
  };
  if (config.domains.length === 0) throw new ConfigError('MAILCUE_DOMAINS: at least one domain is required');
  return deepFreeze(config);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
