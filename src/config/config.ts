// Configuration: one defaults object, MAILCUE_* environment variables on top, validated once and
// frozen. Bad configuration fails at start with one clear line. The result is plain data so it
// can be handed to worker threads as workerData.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_PLANS, PLAN_NAMES, PLAN_NUMBERS, type Plan, type PlanName } from './plans.js';

export interface ShardAddress {
  readonly id: number;
  /** grpc-js target: "unix:/path/sock" or "host:port". */
  readonly target: string;
  /** Embedded worker shards route by slot (DESIGN.md §8); a static MAILCUE_SHARDS map keeps its hash ring. */
  readonly bySlot?: boolean;
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
  /** SMTP bounds (DESIGN §7): recipients per message, connections, DATA bytes held at once. */
  readonly smtpMaxRecipients: number;
  readonly smtpMaxConnections: number;
  readonly smtpMaxConnectionsPerIp: number;
  readonly smtpMaxInflightBytes: number;
  /** The share of the in-flight DATA bytes one client (IPv4 address, IPv6 /64) may hold. */
  readonly smtpMaxInflightBytesPerIp: number;
  /** The ops listener (/metrics, /livez, /readyz); port 0 picks a free one (logged). */
  readonly opsHost: string;
  readonly opsPort: number;
  readonly agentConnectionMaxMs: number;
  readonly sessionIdleMs: number;
  /** How often a parked wait called with a progressToken sends notifications/progress (at most 9 s: clients get one every 10 s at worst). */
  readonly mcpProgressMs: number;
  /** The SSE `retry:` a resumable agent-tool stream tells its client: how soon to reconnect with Last-Event-ID. */
  readonly mcpRetryMs: number;
  readonly oauthCodeTtlMs: number;
  /** Absolute lifetime of an OAuth grant: its refresh tokens never outlive it (30 days). */
  readonly oauthGrantTtlMs: number;
  /** How often each shard purges expired codes, tokens and sessions. */
  readonly purgeIntervalMs: number;
  /** How often each shard deletes messages past their retention (in bounded batches). */
  readonly retentionIntervalMs: number;
  /** GET /authorize calls per client IP per minute, on each front. */
  readonly authorizePerIpPerMinute: number;
  readonly allowedOrigins: readonly string[];
  readonly plans: Readonly<Record<PlanName, Plan>>;
  readonly masterKey: string | null;
  readonly logLevel: string;
  readonly poolThreads: number;
  /** The time bound of one parse task in the pool (tests turn it down). */
  readonly parseTimeoutMs: number;
  /** Event loops serving HTTP on the one port (MAILCUE_FRONT_THREADS); the first also runs SMTP. */
  readonly frontThreads: number;
  /** Where a process writes the ports it bound (MAILCUE_PORTS_FILE), for launchers that start it on port 0. */
  readonly portsFile: string | null;
  /** Cluster mode (DESIGN.md §8) when non-empty: etcd v3 endpoints. */
  readonly etcdEndpoints: readonly string[];
  /** Every etcd key of this cluster lives under it; ends with "/". */
  readonly etcdPrefix: string;
  /** TTL of a shard's membership lease, in seconds. */
  readonly leaseTtlS: number;
  /**
   * Copies of every slot in a cluster: one primary and `replicas - 1` followers (DESIGN.md §8).
   * null (MAILCUE_REPLICAS unset): 3 where there are three or more shards, else the number of shards.
   */
  readonly replicas: number | null;
  /** In-sync copies a write needs (MAILCUE_MIN_INSYNC); null: 2 where replicas ≥ 2, else 1. */
  readonly minInsync: number | null;
  /** 'all': a write is acknowledged once every live follower committed it; 'primary': once the primary did. */
  readonly replicationAck: 'all' | 'primary';
  /** PEM files for mutual TLS between cluster processes; all three or none. */
  readonly tls: TlsFiles | null;
  /** Name checked against the shards' certificates instead of the dialled host (one shared certificate). */
  readonly tlsServerName: string | null;
}

export interface TlsFiles {
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

/** Every default in one place; the environment (or MAILCUE_CONFIG) overrides any of them. */
export const DEFAULTS = Object.freeze({
  host: '0.0.0.0',
  httpPort: 8080,
  smtpPort: 2525,
  dataDir: './data',
  shardCount: 2,
  domains: Object.freeze(['mailcue.test']),
  mxHost: 'mx.mailcue.test',
  webhookRetryDelaysMs: Object.freeze([2_000, 10_000, 50_000]),
  webhookTimeoutMs: 10_000,
  maxMessageBytes: 10 * 1024 * 1024,
  smtpMaxRecipients: 100,
  smtpMaxConnections: 1000,
  smtpMaxConnectionsPerIp: 50,
  /** In-flight DATA bytes across every SMTP connection of one front (DESIGN §7). */
  smtpMaxInflightBytes: 128 * 1024 * 1024,
  opsHost: '127.0.0.1',
  opsPort: 9464,
  agentConnectionMaxMs: 60_000,
  // Issue 36: a session with no request and no open stream for 60 s ends and frees its plan slot.
  sessionIdleMs: 60_000,
  mcpProgressMs: 5_000,
  mcpRetryMs: 1_000,
  oauthCodeTtlMs: 60_000,
  logLevel: 'info',
  /** 0: the pool sizes itself from the CPU count. */
  poolThreads: 0,
  frontThreads: 1,
});

export class ConfigError extends Error {}

/** The shortest admin token accepted (issue 33): a guessable one would hand out every account. */
export const ADMIN_TOKEN_MIN_CHARS = 32;

function adminToken(raw: string | undefined): string | null {
  if (!raw) return null;
  if (raw.length < ADMIN_TOKEN_MIN_CHARS || /\s/.test(raw) || /^change[-_]?me/i.test(raw)) {
    throw new ConfigError(`MAILCUE_ADMIN_TOKEN must be at least ${ADMIN_TOKEN_MIN_CHARS} characters without spaces and not a placeholder (e.g. openssl rand -hex 24); got ${raw.length}`);
  }
  return raw;
}

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
      for (const [field, value] of Object.entries(patch ?? {})) {
        const min = PLAN_NUMBERS[field];
        if (min !== undefined && (!Number.isSafeInteger(value) || (value as number) < min)) {
          throw new ConfigError(`MAILCUE_PLANS_FILE: ${name}.${field} must be a whole number of at least ${min}, got ${JSON.stringify(value)}`);
        }
      }
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

function tlsFiles(env: Env): TlsFiles | null {
  const names = ['MAILCUE_TLS_CA', 'MAILCUE_TLS_CERT', 'MAILCUE_TLS_KEY'] as const;
  const set = names.filter((n) => env[n]);
  if (set.length === 0) return null;
  if (set.length < 3) throw new ConfigError(`mutual TLS needs ${names.join(', ')} together; missing ${names.filter((n) => !env[n]).join(', ')}`);
  return { ca: path.resolve(env.MAILCUE_TLS_CA!), cert: path.resolve(env.MAILCUE_TLS_CERT!), key: path.resolve(env.MAILCUE_TLS_KEY!) };
}

function replicationAck(env: Env): 'all' | 'primary' {
  const value = env.MAILCUE_REPLICATION_ACK || 'all';
  if (value !== 'all' && value !== 'primary') throw new ConfigError(`MAILCUE_REPLICATION_ACK must be "all" or "primary", not ${JSON.stringify(value)}`);
  return value;
}

function etcdPrefix(env: Env): string {
  const raw = env.MAILCUE_ETCD_PREFIX || '/mailcue/';
  if (/\s/.test(raw)) throw new ConfigError(`MAILCUE_ETCD_PREFIX must not contain spaces, got "${raw}"`);
  return raw.endsWith('/') ? raw : `${raw}/`;
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
  const httpPort = int(env, 'MAILCUE_HTTP_PORT', DEFAULTS.httpPort, 0, 65535);
  const publicUrl = url('MAILCUE_PUBLIC_URL', env.MAILCUE_PUBLIC_URL || `http://localhost:${httpPort}`);
  const domains = list(env, 'MAILCUE_DOMAINS', DEFAULTS.domains).map((d) => d.toLowerCase());
  for (const d of domains) if (!HOSTNAME.test(d)) throw new ConfigError(`MAILCUE_DOMAINS: "${d}" is not a domain name`);
  const retry = list(env, 'MAILCUE_WEBHOOK_RETRY_DELAYS_MS', DEFAULTS.webhookRetryDelaysMs.map(String)).map((v) => {
    if (!/^\d+$/.test(v)) throw new ConfigError(`MAILCUE_WEBHOOK_RETRY_DELAYS_MS: "${v}" is not a number of milliseconds`);
    return Number(v);
  });
  const config: Config = {
    host: env.MAILCUE_HOST || DEFAULTS.host,
    httpPort,
    smtpPort: int(env, 'MAILCUE_SMTP_PORT', DEFAULTS.smtpPort, 0, 65535),
    dataDir: path.resolve(env.MAILCUE_DATA_DIR || DEFAULTS.dataDir),
    shardCount: int(env, 'MAILCUE_SHARD_COUNT', DEFAULTS.shardCount, 1, 64),
    shards: env.MAILCUE_SHARDS ? parseShardMap(env.MAILCUE_SHARDS) : [],
    publicUrl,
    mcpUrl: env.MAILCUE_MCP_URL ? url('MAILCUE_MCP_URL', env.MAILCUE_MCP_URL) : publicUrl,
    domains,
    mxHost: (env.MAILCUE_MX_HOST || DEFAULTS.mxHost).toLowerCase(),
    dnsServers: list(env, 'MAILCUE_DNS_SERVERS', []),
    authInlineMs: int(env, 'MAILCUE_AUTH_INLINE_MS', 1_000, 0, 60_000),
    authTimeoutMs: int(env, 'MAILCUE_AUTH_TIMEOUT_MS', 10_000, 100, 120_000),
    adminToken: adminToken(env.MAILCUE_ADMIN_TOKEN),
    webhookAllowPrivate: bool(env, 'MAILCUE_WEBHOOK_ALLOW_PRIVATE'),
    webhookCaFile: env.MAILCUE_WEBHOOK_CA_FILE || null,
    webhookRetryDelaysMs: retry,
    webhookTimeoutMs: int(env, 'MAILCUE_WEBHOOK_TIMEOUT_MS', DEFAULTS.webhookTimeoutMs, 1),
    maxMessageBytes: int(env, 'MAILCUE_MAX_MESSAGE_BYTES', DEFAULTS.maxMessageBytes, 1024),
    smtpMaxRecipients: int(env, 'MAILCUE_SMTP_MAX_RECIPIENTS', DEFAULTS.smtpMaxRecipients, 1),
    smtpMaxConnections: int(env, 'MAILCUE_SMTP_MAX_CONNECTIONS', DEFAULTS.smtpMaxConnections, 1),
    smtpMaxConnectionsPerIp: int(env, 'MAILCUE_SMTP_MAX_CONNECTIONS_PER_IP', DEFAULTS.smtpMaxConnectionsPerIp, 1),
    smtpMaxInflightBytes: int(env, 'MAILCUE_SMTP_MAX_INFLIGHT_BYTES', DEFAULTS.smtpMaxInflightBytes, 1024),
    smtpMaxInflightBytesPerIp: int(env, 'MAILCUE_SMTP_MAX_INFLIGHT_BYTES_PER_IP', Math.floor(int(env, 'MAILCUE_SMTP_MAX_INFLIGHT_BYTES', DEFAULTS.smtpMaxInflightBytes, 1024) / 4), 1024),
    opsHost: env.MAILCUE_OPS_HOST || DEFAULTS.opsHost,
    opsPort: int(env, 'MAILCUE_OPS_PORT', DEFAULTS.opsPort, 0, 65535),
    agentConnectionMaxMs: int(env, 'MAILCUE_AGENT_CONNECTION_MAX_MS', DEFAULTS.agentConnectionMaxMs, 1000),
    sessionIdleMs: int(env, 'MAILCUE_SESSION_IDLE_MS', DEFAULTS.sessionIdleMs, 1000),
    mcpProgressMs: int(env, 'MAILCUE_MCP_PROGRESS_MS', DEFAULTS.mcpProgressMs, 100, 9_000),
    mcpRetryMs: int(env, 'MAILCUE_MCP_RETRY_MS', DEFAULTS.mcpRetryMs, 0, 60_000),
    oauthCodeTtlMs: int(env, 'MAILCUE_OAUTH_CODE_TTL_MS', DEFAULTS.oauthCodeTtlMs, 100),
    oauthGrantTtlMs: int(env, 'MAILCUE_OAUTH_GRANT_TTL_MS', 30 * 24 * 3_600_000, 1000),
    purgeIntervalMs: int(env, 'MAILCUE_PURGE_INTERVAL_MS', 60_000, 100),
    retentionIntervalMs: int(env, 'MAILCUE_RETENTION_INTERVAL_MS', 60_000, 100),
    authorizePerIpPerMinute: int(env, 'MAILCUE_AUTHORIZE_PER_IP_PER_MINUTE', 60, 1),
    allowedOrigins: list(env, 'MAILCUE_ALLOWED_ORIGINS', []),
    plans: plansFrom(env),
    masterKey: env.MAILCUE_MASTER_KEY || null,
    logLevel: env.MAILCUE_LOG_LEVEL || DEFAULTS.logLevel,
    poolThreads: int(env, 'MAILCUE_POOL_THREADS', DEFAULTS.poolThreads, 0, 64),
    parseTimeoutMs: int(env, 'MAILCUE_PARSE_TIMEOUT_MS', 20_000, 10, 600_000),
    frontThreads: int(env, 'MAILCUE_FRONT_THREADS', DEFAULTS.frontThreads, 1, 16),
    portsFile: env.MAILCUE_PORTS_FILE ? path.resolve(env.MAILCUE_PORTS_FILE) : null,
    etcdEndpoints: list(env, 'MAILCUE_ETCD_ENDPOINTS', []),
    etcdPrefix: etcdPrefix(env),
    // etcd refuses leases much shorter than its election timeout; 2 s is its floor by default.
    leaseTtlS: int(env, 'MAILCUE_LEASE_TTL_S', 5, 2, 3600),
    // Capped by the live members: two copies need two shards.
    replicas: env.MAILCUE_REPLICAS ? int(env, 'MAILCUE_REPLICAS', 3, 1, 9) : null,
    minInsync: env.MAILCUE_MIN_INSYNC ? int(env, 'MAILCUE_MIN_INSYNC', 2, 1, 9) : null,
    replicationAck: replicationAck(env),
    tls: tlsFiles(env),
    tlsServerName: env.MAILCUE_TLS_SERVER_NAME || null,
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
