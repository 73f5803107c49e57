// Prometheus metrics of the front tier. Shard-side gauges (parked waiters) are gathered from every
// shard at scrape time, so /metrics shows the whole embedded process or cluster slice.
import client from 'prom-client';

/** One front thread's registry as JSON (prom-client's form). */
export type ThreadMetrics = Awaited<ReturnType<client.Registry['getMetricsAsJSON']>>;

export class Metrics {
  readonly registry = new client.Registry();
  readonly httpRequests = new client.Counter({
    name: 'mailcue_http_requests_total', help: 'HTTP requests answered', labelNames: ['method', 'route', 'status'] as const, registers: [this.registry],
  });
  readonly httpDuration = new client.Histogram({
    name: 'mailcue_http_request_duration_seconds', help: 'HTTP handling time', labelNames: ['route'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 5, 30, 60], registers: [this.registry],
  });
  readonly messagesReceived = new client.Counter({
    name: 'mailcue_messages_received_total', help: 'Messages committed by the shards from SMTP', registers: [this.registry],
  });
  readonly smtpRejected = new client.Counter({
    name: 'mailcue_smtp_rejected_total', help: 'SMTP recipients or messages refused', labelNames: ['reason'] as const, registers: [this.registry],
  });
  readonly shardCallSeconds = new client.Histogram({
    name: 'mailcue_grpc_call_duration_seconds', help: 'Front-to-shard envelope round trip', labelNames: ['command', 'ok'] as const,
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 1, 10, 60], registers: [this.registry],
  });
  readonly smtpInflightBytes = new client.Gauge({
    name: 'mailcue_smtp_inflight_bytes', help: 'DATA bytes the SMTP ingress holds now: being read, delivered or authenticated', registers: [this.registry],
  });
  readonly parkedWaiters = new client.Gauge({
    name: 'mailcue_parked_waiters', help: 'Long-poll waiters parked on all shards', registers: [this.registry],
  });

  readonly notices = new client.Counter({
    name: 'mailcue_notices_total', help: 'Account notices (key rotation, plan change, session ended) pushed to this front by the shards', labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  readonly admittedCredentials = new client.Gauge({
    name: 'mailcue_admitted_credentials', help: 'Credentials this front saw admitted within the last 60 s', registers: [this.registry],
  });
  readonly leasedAdmissions = new client.Gauge({
    name: 'mailcue_leased_admissions', help: 'Admissions this front spent from admission leases, without a shard round trip', registers: [this.registry],
  });
  readonly admissionLeases = new client.Gauge({
    name: 'mailcue_admission_leases', help: 'Admission leases this front holds now', registers: [this.registry],
  });
  readonly shardCommands = new client.Gauge({
    name: 'mailcue_shard_commands_dispatched', help: 'Commands the shards ran since they started, by type', labelNames: ['command'] as const,
    registers: [this.registry],
  });
  readonly storedMessages = new client.Gauge({
    name: 'mailcue_stored_messages', help: 'Messages stored on the shards', registers: [this.registry],
  });
  readonly reclaimPending = new client.Gauge({
    name: 'mailcue_reclaim_pending', help: 'Deleted inboxes whose messages the shards are still removing in batches', registers: [this.registry],
  });
  readonly oauthRecords = new client.Gauge({
    name: 'mailcue_oauth_records', help: 'OAuth codes and tokens stored on the shards (expired ones are purged)', registers: [this.registry],
  });
  readonly openSessions = new client.Gauge({
    name: 'mailcue_open_sessions', help: 'Agent-tool sessions counted on the shards', registers: [this.registry],
  });

  readonly replicationLag = new client.Gauge({
    name: 'mailcue_replication_lag_entries', help: 'Oplog entries a follower\'s copy of a slot lags its primary by (-1: the copy is being made)',
    labelNames: ['slot', 'follower'] as const, registers: [this.registry],
  });

  /** `processMetrics`: CPU, memory and the event loop; one thread per process reports them. */
  constructor(processMetrics = true) {
    if (processMetrics) client.collectDefaultMetrics({ register: this.registry, prefix: 'mailcue_' });
  }

  /** This registry as JSON, for the first front thread to add up (MAILCUE_FRONT_THREADS). */
  json(): Promise<ThreadMetrics> {
    return this.registry.getMetricsAsJSON();
  }

  /** The Prometheus text of this registry, with other front threads' registries added in. */
  async text(others: ThreadMetrics[]): Promise<string> {
    if (others.length === 0) return this.registry.metrics();
    return client.AggregatorRegistry.aggregate([await this.registry.getMetricsAsJSON(), ...others]).metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  // Labelled children are looked up once per label set: hashing labels on every observation
  // showed in the request path's profile.
  private readonly answered = new Map<string, { inc(): void }>();
  private readonly durations = new Map<string, { observe(v: number): void }>();
  private readonly shardCalls = [new Map<string, { observe(v: number): void }>(), new Map<string, { observe(v: number): void }>()];

  requestAnswered(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    let counter = this.answered.get(key);
    if (!counter) this.answered.set(key, (counter = this.httpRequests.labels(method, route, String(status))));
    counter.inc();
    let histogram = this.durations.get(route);
    if (!histogram) this.durations.set(route, (histogram = this.httpDuration.labels(route)));
    histogram.observe(seconds);
  }

  shardCall(command: string, seconds: number, ok: boolean): void {
    const byCommand = this.shardCalls[ok ? 1 : 0]!;
    let histogram = byCommand.get(command);
    if (!histogram) byCommand.set(command, (histogram = this.shardCallSeconds.labels(command, ok ? '1' : '0')));
    histogram.observe(seconds);
  }
}
