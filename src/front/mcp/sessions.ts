// Agent-tool sessions held by this front tier. Sessions of tool-executing plans are also counted on
// the account's shard, so the concurrent-session cap holds across front tiers.
import { randomUUID } from 'node:crypto';
import { fail } from '../../errors/registry.js';
import type { Deps } from '../../services/deps.js';
import type { Cancellation } from '../../util/cancel.js';
import type { SseStream } from './sse-stream.js';

export interface McpSession {
  readonly id: string;
  readonly accountId: string;
  readonly transport: 'streamable-http' | 'sse';
  protocolVersion: string;
  /** Counted against the plan's concurrent-session cap on the account's shard. */
  counted: boolean;
  lastSeen: number;
  /** In-flight requests by JSON-RPC id, so notifications/cancelled can abort them. */
  readonly inflight: Map<string, Cancellation>;
  /** The legacy SSE stream, or the Streamable HTTP standalone GET stream. */
  stream: SseStream | null;
}

const SWEEP_MS = 5_000;

/**
 * The session a request names, for the account it authenticated as: a missing id is 400, an
 * unknown one (or another account's) 404, as the Streamable HTTP transport specifies.
 */
export function requireSession(sessionId: string | null | undefined, session: McpSession | undefined, accountId: string): McpSession {
  if (!sessionId) fail('session_required', 'Bad Request: Mcp-Session-Id header is required');
  if (!session || session.accountId !== accountId) fail('session_not_found', 'Session not found');
  return session;
}

export class SessionStore {
  private readonly sessions = new Map<string, McpSession>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly deps: Deps) {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  /** Opens a session; a plan that executes tools has it counted (and capped) on the account's shard. */
  async open(accountId: string, transport: McpSession['transport'], protocolVersion: string, counted: boolean): Promise<McpSession> {
    const id = randomUUID();
    if (counted) {
      await this.deps.cluster.call({ type: 'account.session_open', accountId, sessionId: id, idleMs: this.deps.config.sessionIdleMs });
    }
    const session: McpSession = { id, accountId, transport, protocolVersion, counted, lastSeen: Date.now(), inflight: new Map(), stream: null };
    this.sessions.set(id, session);
    return session;
  }

  get(id: string | undefined | null): McpSession | undefined {
    if (!id) return undefined;
    const s = this.sessions.get(id);
    if (s) s.lastSeen = Date.now();
    return s;
  }

  close(id: string): boolean {
    const s = this.sessions.get(id);
    if (!s) return false;
    this.sessions.delete(id);
    for (const c of s.inflight.values()) c.abort();
    s.stream?.close();
    if (s.counted) {
      this.deps.cluster.call({ type: 'account.session_close', accountId: s.accountId, sessionId: id }).catch(() => undefined);
    }
    return true;
  }

  /** Sessions idle past MAILCUE_SESSION_IDLE_MS, with no request or stream open, end. */
  private sweep(): void {
    const limit = Date.now() - this.deps.config.sessionIdleMs;
    for (const s of this.sessions.values()) {
      if (s.lastSeen < limit && s.inflight.size === 0 && (!s.stream || s.stream.isClosed)) this.close(s.id);
    }
  }

  get size(): number {
    return this.sessions.size;
  }

  stop(): void {
    clearInterval(this.sweeper);
    for (const id of [...this.sessions.keys()]) this.close(id);
  }
}
