// rest-get-latest and mcp-get-latest: the latest message of one of 1,000 inboxes that hold mail,
// over keep-alive HTTP with 64 concurrent clients, requests round-robin over the inboxes.
//   REST: GET /v1/inboxes/{address}/messages?limit=1
//   MCP:  POST /mcp tools/call get_latest_email (Streamable HTTP, JSON answer), 64 sessions.
import { httpLoad, type HttpRequestSpec } from '../lib/http-load.js';
import { jsonRequest } from '../lib/net-util.js';
import { cores, cpuShare, foreignCores, measure, type Context, type Scenario } from '../lib/scenario.js';

interface Params {
  connections: number;
  durationS: number;
  warmupS: number;
}

async function openMcpSession(ctx: Context): Promise<string> {
  const init = await jsonRequest('POST', `${ctx.mailcue.base}/mcp`, {
    token: ctx.key, headers: { accept: 'application/json, text/event-stream' },
    body: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'b', version: '1' } } },
  });
  const id = init.headers.get('mcp-session-id');
  if (init.status !== 200 || !id) throw new Error(`MCP initialize → ${init.status} ${JSON.stringify(init.body).slice(0, 300)}`);
  const note = await jsonRequest('POST', `${ctx.mailcue.base}/mcp`, {
    token: ctx.key, headers: { accept: 'application/json, text/event-stream', 'mcp-session-id': id }, body: { jsonrpc: '2.0', method: 'notifications/initialized' },
  });
  if (note.status !== 202) throw new Error(`notifications/initialized → ${note.status}`);
  return id;
}

async function runRead(ctx: Context, p: Params, requests: HttpRequestSpec[], check: () => Promise<void>) {
  await check();
  const load = { port: ctx.mailcue.httpPort, connections: p.connections, warmupS: 0, requests };
  await httpLoad({ ...load, durationS: p.warmupS });
  const leasedBefore = await ctx.mailcue.gauge('mailcue_leased_admissions');
  const m = await measure(() => ctx.mailcue.pids, () => httpLoad({ ...load, durationS: p.durationS }));
  const r = m.value;
  const leased = (await ctx.mailcue.gauge('mailcue_leased_admissions')) - leasedBefore;
  return {
    // Admissions spent from the front's admission leases, without a round trip to the account's shard.
    leased_admissions_share: r.requests ? Math.round((leased / r.requests) * 1000) / 1000 : null,
    ops: r.requests, duration_s: r.duration_s, ops_per_s: r.ops_per_s, ...r.latency, peak_rss_mb: m.peak_rss_mb,
    client_cpu_share: cpuShare(r.client_cpu_s, r.duration_s), generator: r.generator, connections: p.connections, inboxes: ctx.readInboxes.length,
    non_2xx: r.non_2xx, socket_errors: r.socket_errors, server_cpu_cores: cores(m.server_cpu_s, r.duration_s), foreign_cpu_cores: foreignCores(m, r.client_cpu_s), client_cpu_cores: cores(r.client_cpu_s ?? 0, r.duration_s),
    server_cpu_us_per_op: r.requests ? Math.round((m.server_cpu_s / r.requests) * 1e6) : null,
  };
}

export const restGetLatest: Scenario<Params> = {
  name: 'rest-get-latest',
  title: 'REST GET …/messages?limit=1, 64 keep-alive clients, 1,000 inboxes with mail',
  full: { connections: 64, durationS: 15, warmupS: 3 },
  quick: { connections: 64, durationS: 2, warmupS: 1 },
  timeLimitS: (quick) => (quick ? 20 : 60),
  async run(ctx, p) {
    const headers = { Authorization: `Bearer ${ctx.key}` };
    const requests = ctx.readInboxes.map((a) => ({ method: 'GET', path: `/v1/inboxes/${encodeURIComponent(a)}/messages?limit=1`, headers }));
    return runRead(ctx, p, requests, async () => {
      const r = await jsonRequest('GET', `${ctx.mailcue.base}${requests[0]!.path}`, { token: ctx.key });
      if (r.status !== 200 || r.body.count !== 1) throw new Error(`REST read check: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
    });
  },
};

export const mcpGetLatest: Scenario<Params> = {
  name: 'mcp-get-latest',
  title: 'MCP tools/call get_latest_email, Streamable HTTP, 64 keep-alive clients (64 sessions), 1,000 inboxes',
  full: { connections: 64, durationS: 15, warmupS: 3 },
  quick: { connections: 64, durationS: 2, warmupS: 1 },
  timeLimitS: (quick) => (quick ? 25 : 70),
  async run(ctx, p) {
    const sessions: string[] = [];
    for (let i = 0; i < p.connections; i++) sessions.push(await openMcpSession(ctx));
    const requests = ctx.readInboxes.map((inbox, i) => ({
      method: 'POST', path: '/mcp',
      headers: { Authorization: `Bearer ${ctx.key}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Mcp-Session-Id': sessions[i % sessions.length]! },
      body: JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'get_latest_email', arguments: { inbox } } }),
    }));
    return runRead(ctx, p, requests, async () => {
      const r0 = requests[0]!;
      const r = await jsonRequest('POST', `${ctx.mailcue.base}/mcp`, { headers: r0.headers, body: JSON.parse(r0.body) });
      const msg = r.body?.result?.structuredContent?.message;
      if (r.status !== 200 || r.body?.result?.isError || !msg?.id) throw new Error(`MCP read check: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
    });
  },
};
