// Agent-tool sessions held by this front tier. Every session is also counted on the account's shard,
// so the per-plan cap holds across front tiers (DESIGN §7). A session id is never a credential:
// each request is admitted on its own, and a session answers only its account at the credential
// generation it was opened under (a key rotation ends it).
import { randomUUID } from 'node:crypto';
import type { Admission } from '../../contract/results.js';
import { fail, MailcueError } from '../../errors/registry.js';
import type { Deps } from '../../services/deps.js';
import type { Cancellation } from '../../util/cancel.js';
import type { SseStream } from './sse-stream.js';

export interface McpSession {
  readonly id: string;
  readonly accountId: string;
  readonly transport: 'streamable-http' | 'sse';
  protocolVersion: string;
  /** The account's credential generation at open: a rotation since then ends the session. */
  readonly generation: number;
  lastSeen: number;
  /** In-flight requests by JSON-RPC id, so notifications/cancelled can abort them. */
  readonly inflight: Map<string, Cancellation>;
  /** The legacy SSE stream, or the Streamable HTTP standalone GET stream. */
  stream: SseStream | null;
}

const SWEEP_MS = 5_000;

export const sessionNotFound = () => new MailcueError('session_not_found', 'Session not found');

export class SessionStore {
  private readonly sessions = new Map<string, McpSession>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly deps: Deps) {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  /** Opens a session for an admitted caller; the account's shard counts it against the cap. */
  async open(admission: Admission, transport: McpSession['transport'], protocolVersion: string): Promise<McpSession> {
    const id = randomUUID();
    const accountId = admission.account.id;
    await this.deps.cluster.call({ type: 'account.session_open', accountId, sessionId: id, idleMs: this.deps.config.sessionIdleMs });
    const session: McpSession = {
      id, accountId, transport, protocolVersion, generation: admission.generation, lastSeen: Date.now(), inflight: new Map(), stream: null,
    };
    this.sessions.set(id, session);
    return session;
  }

  /** The session an id names, not yet checked against any caller. */
  get(id: string | undefined | null): McpSession | undefined {
    return id ? this.sessions.get(id) : undefined;
  }

  /**
   * The session a request names, for the caller admission found: a missing id is 400; an unknown
   * one, another account's, or one opened under a rotated-out key is 404 (the last is ended).
   */
  require(sessionId: string | null | undefined, session: McpSession | undefined, admission: Admission): McpSession {
    if (!sessionId) fail('session_required', 'Bad Request: Mcp-Session-Id header is required');
    if (!session || session.accountId !== admission.account.id) throw sessionNotFound();
    if (session.generation !== admission.generation) {
      this.close(session.id);
      throw sessionNotFound();
    }
    session.lastSeen = Date.now();
    return session;
  }

  /** A key rotation pushed by the account's shard: every session of the account ends now. */
  closeAccount(accountId: string): number {
    let n = 0;
    for (const s of [...this.sessions.values()]) if (s.accountId === accountId && this.close(s.id)) n++;
    return n;
  }

  close(id: string): boolean {
    const s = this.sessions.get(id);
    if (!s) return false;
    this.sessions.delete(id);
    for (const c of s.inflight.values()) c.abort();
    s.stream?.close();
    this.deps.cluster.call({ type: 'account.session_close', accountId: s.accountId, sessionId: id }).catch(() => undefined);
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
