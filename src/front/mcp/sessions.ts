// Agent-tool sessions as this front tier sees them. Every session lives on the account's shard, which
// counts it against the per-plan cap across front tiers (DESIGN §7) and keeps its terms, so a
// Streamable HTTP session opened through one front is served by any other that its next request
// reaches (fronts are stateless behind a plain load balancer); ending it anywhere ends it on all.
// A legacy SSE session stays with the front holding its stream: its answers travel on that stream.
// A session id is never a credential: each request is admitted on its own, and a session answers
// only its account at the credential generation it was opened under (a key rotation ends it).
import { randomUUID } from 'node:crypto';
import type { Admission } from '../../contract/results.js';
import { fail, MailcueError } from '../../errors/registry.js';
import { isBearerKind, parseCredential } from '../../security/credentials.js';
import type { Deps } from '../../services/deps.js';
import type { SessionTerms } from '../../contract/commands.js';
import { admitToken, recentlyAdmitted } from '../auth.js';
import type { FrontThreadLink } from '../thread-link.js';
import type { SessionStream } from './session-stream.js';
import type { Cancellation } from '../../util/cancel.js';

export interface McpSession {
  readonly id: string;
  readonly accountId: string;
  readonly transport: 'streamable-http' | 'sse';
  protocolVersion: string;
  /** The account's credential generation at open: a rotation since then ends the session. */
  readonly generation: number;
  /** The scoped key that opened it (`<id>:<generation>`): rotating or deleting the key ends it. */
  readonly key?: string;
  lastSeen: number;
  /** When this front last told the account's shard the session is in use without a request. */
  touchedAt: number;
  /** In-flight requests by JSON-RPC id, so notifications/cancelled can abort them. */
  readonly inflight: Map<string, Cancellation>;
  /** The legacy SSE stream, or the Streamable HTTP standalone GET stream. */
  stream: SessionStream | null;
}

const SWEEP_MS = 5_000;
/** The sweep runs at least four times per idle limit, so that a busy session is touched in time. */
const SWEEPS_PER_IDLE_LIMIT = 4;

export const sessionNotFound = () => new MailcueError('session_not_found', 'Session not found');

export class SessionStore {
  private readonly sessions = new Map<string, McpSession>();
  private readonly sweeper: NodeJS.Timeout;

  /** `threads`: this front thread's siblings (MAILCUE_FRONT_THREADS), which may hold legacy SSE streams. */
  constructor(private readonly deps: Deps, private readonly threads: FrontThreadLink | null = null) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(SWEEP_MS, Math.floor(deps.config.sessionIdleMs / SWEEPS_PER_IDLE_LIMIT)));
    this.sweeper.unref();
    // A sibling thread's answers for a legacy SSE stream held here.
    threads?.onFrame((id, json) => {
      const stream = this.sessions.get(id)?.stream;
      if (stream && !stream.isClosed) stream.messageText(json);
    });
  }

  /** Opens a session for an admitted caller; the account's shard counts it against the cap. */
  async open(admission: Admission, transport: McpSession['transport'], protocolVersion: string): Promise<McpSession> {
    const id = randomUUID();
    const accountId = admission.account.id;
    // Only a legacy SSE session needs its stream's thread named: its answers are handed there.
    const terms: SessionTerms = {
      transport, protocolVersion, generation: admission.generation, ...(admission.scope ? { key: keyTag(admission) } : {}),
      ...(this.threads && transport === 'sse' ? { holder: this.threads.holder } : {}),
    };
    await this.deps.cluster.call({ type: 'account.session_open', accountId, sessionId: id, idleMs: this.deps.config.sessionIdleMs, session: terms });
    return this.hold(id, accountId, terms);
  }

  private hold(id: string, accountId: string, terms: SessionTerms): McpSession {
    const session: McpSession = {
      id, accountId, transport: terms.transport, protocolVersion: terms.protocolVersion, generation: terms.generation,
      ...(terms.key ? { key: terms.key } : {}), lastSeen: Date.now(), touchedAt: Date.now(), inflight: new Map(), stream: null,
    };
    this.sessions.set(id, session);
    return session;
  }

  /** The session an id names on this front, not yet checked against any caller. */
  get(id: string | undefined | null): McpSession | undefined {
    return id ? this.sessions.get(id) : undefined;
  }

  /**
   * The session an id names, held here or opened elsewhere: asked of the shard of the account the
   * bearer credential names. A Streamable HTTP session is served by any front; a legacy SSE one
   * only by the threads of the process holding its stream (answers go to that thread). A
   * credential this front has not admitted within the last minute is admitted first, unmetered: a
   * forged or unknown key costs one admission check and no session read (DESIGN §7), and answers
   * 401. `require` then matches the session against the caller admission finds.
   */
  async find(id: string | undefined | null, token: string | null): Promise<McpSession | undefined> {
    const held = this.get(id);
    if (held || !id || !token) return held;
    const credential = parseCredential(token);
    if (!credential || !isBearerKind(credential.kind)) return undefined;
    if (!recentlyAdmitted(this.deps, token)) await admitToken(this.deps, token, { kind: 'none' });
    const terms = await this.deps.cluster.call({ type: 'account.session_find', accountId: credential.accountId, sessionId: id });
    if (!terms) return undefined;
    let sibling: number | null = null;
    if (terms.transport === 'sse') {
      sibling = this.threads?.siblingOf(terms.holder) ?? null;
      if (sibling === null) return undefined; // its stream is held by another process
    }
    // Another request may have brought it here meanwhile; that copy holds its in-flight calls.
    const session = this.sessions.get(id) ?? this.hold(id, credential.accountId, terms);
    if (sibling !== null && !session.stream) session.stream = this.threads!.siblingStream(sibling, id);
    return session;
  }

  /**
   * The session a request names, for the caller admission found: a missing id is 400; an unknown
   * one, another account's, or one opened under a rotated-out key is 404 (the last is ended).
   */
  require(sessionId: string | null | undefined, session: McpSession | undefined, admission: Admission): McpSession {
    if (!sessionId) fail('session_required', 'Bad Request: Mcp-Session-Id header is required');
    if (!session || session.accountId !== admission.account.id) throw sessionNotFound();
    // Opened under a rotated-out key (the account's, or the scoped key that opened it).
    if (session.generation !== admission.generation || (session.key !== undefined && session.key !== keyTag(admission))) {
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

  /** A scoped key rotated or deleted, pushed by the account's shard: the sessions it opened end. */
  closeKey(keyId: string): number {
    let n = 0;
    for (const s of [...this.sessions.values()]) if (s.key?.startsWith(`${keyId}:`) && this.close(s.id)) n++;
    return n;
  }

  /** Ends a session: here, on the account's shard, and (told by the shard) on every other front. */
  close(id: string): boolean {
    const s = this.forget(id);
    if (!s) return false;
    this.ended(s).catch(() => undefined);
    return true;
  }

  /**
   * Ends a session for a client that asked (DELETE): answered once the account's shard has ended
   * it, so that every other front has been told (the shard pushes the notice before it answers)
   * before the client can send its next request there.
   */
  async end(id: string): Promise<void> {
    const s = this.forget(id);
    if (s) await this.ended(s);
  }

  private ended(s: McpSession): Promise<unknown> {
    return this.deps.cluster.call({ type: 'account.session_close', accountId: s.accountId, sessionId: s.id });
  }

  /** Drops this front's copy of a session: its in-flight calls are aborted and its stream closed. */
  forget(id: string): McpSession | undefined {
    const s = this.sessions.get(id);
    if (!s) return undefined;
    this.sessions.delete(id);
    for (const c of s.inflight.values()) c.abort();
    s.stream?.close();
    return s;
  }

  /**
   * The shard ends a session once no front has marked it active for MAILCUE_SESSION_IDLE_MS
   * (admissions mark it). A session with an open stream or a call in flight is not idle (DESIGN
   * §4), so this front marks it on the shard itself, twice per idle limit. A copy idle here, with
   * neither, is dropped: the session may be busy through another front. Only a legacy SSE
   * session, whose stream is gone, is ended here.
   */
  private sweep(): void {
    const now = Date.now();
    const idleMs = this.deps.config.sessionIdleMs;
    for (const s of this.sessions.values()) {
      if (s.inflight.size > 0 || (s.stream && !s.stream.isClosed)) {
        if (now - s.touchedAt >= idleMs / 2) this.touch(s, now);
        continue;
      }
      if (s.lastSeen >= now - idleMs) continue;
      if (s.transport === 'sse') this.close(s.id);
      else this.forget(s.id);
    }
  }

  private touch(s: McpSession, now: number): void {
    s.touchedAt = now;
    this.deps.cluster.call({ type: 'account.session_find', accountId: s.accountId, sessionId: s.id }).catch(() => undefined);
  }

  get size(): number {
    return this.sessions.size;
  }

  stop(): void {
    clearInterval(this.sweeper);
    for (const id of [...this.sessions.keys()]) this.close(id);
  }
}

/** The scoped key of an admission as sessions record it. */
function keyTag(admission: Admission): string | undefined {
  return admission.scope ? `${admission.scope.key_id}:${admission.scope.generation}` : undefined;
}
