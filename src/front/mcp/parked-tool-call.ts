// How a tools/call on Streamable HTTP is answered (ToolCallAnswer), and a long-poll tools/call
// (watch_email, create_and_wait_for_otp) while its wait is parked on a shard (ParkedToolCall): one
// record that holds the exchange, its SSE stream if it has one, and the session entry that
// notifications/cancelled aborts, and that answers when the shard settles the wait. The awaiting
// functions that admitted the call have all returned by then, so a parked call costs this record,
// not their frames, closures and promises.
import type { Config } from '../../config/config.js';
import type { WaitResult } from '../../contract/results.js';
import { parkWait } from '../../services/messages.js';
import { callerOf } from '../../services/scope.js';
import { Cancellation } from '../../util/cancel.js';
import { detached } from '../../util/detached.js';
import type { Sink } from '../../util/sink.js';
import type { Exchange } from '../http/exchange.js';
import { errorResponse, resultResponse, toolCallResult, type JsonRpcId } from './jsonrpc.js';
import { asFailure, sendJsonRpcFailure } from './jsonrpc-answer.js';
import { toolContext, toolErrorResult, type ExecuteContext } from './mcp-server.js';
import type { McpSession } from './sessions.js';
import type { ResumableStream } from './resumable-stream.js';
import type { SseStream } from './sse-stream.js';
import { reportProgress, type ToolWait } from './tools/tool.js';

/**
 * A tools/call's answer: the result, or its JSON-RPC error, on the call's SSE stream when it has
 * one (then closed), as JSON with the session header otherwise. It never throws: a parked call is
 * answered from the loop that settles it.
 */
export class ToolCallAnswer {
  constructor(
    protected readonly config: Config,
    protected readonly ex: Exchange,
    protected readonly stream: SseStream | null,
    protected readonly session: McpSession,
    protected readonly id: JsonRpcId,
    /** The header naming the session, on a JSON answer. */
    private readonly sessionHeader: string,
    /** The stream's resumable side (2025-11-25 clients): numbered events, the answer kept for a reconnection. */
    protected readonly resumable: ResumableStream | null = null,
  ) {}

  answer(result: unknown): void {
    let json: string;
    try {
      json = resultResponse(this.id, result);
    } catch (err) {
      this.fail(err);
      return;
    }
    if (this.resumable) {
      this.resumable.answer(json);
    } else if (this.stream) {
      this.stream.messageText(json);
      this.stream.close();
    } else {
      this.ex.sendJsonText(200, json, [[this.sessionHeader, this.session.id]]);
    }
  }

  fail(err: unknown): void {
    if (this.resumable) {
      this.resumable.answer(JSON.stringify(errorResponse(this.id, asFailure(err))));
    } else if (this.stream) {
      this.stream.message(errorResponse(this.id, asFailure(err)));
      this.stream.close();
    } else {
      sendJsonRpcFailure(this.ex, this.config, 'mcp', this.id, err, [[this.sessionHeader, this.session.id]]);
    }
  }
}

export class ParkedToolCall extends ToolCallAnswer implements Sink {
  /** The session's in-flight entry: notifications/cancelled or a hang-up aborts the wait. */
  private readonly cancellation = new Cancellation();
  private readonly key: string;
  /** What the answer needs of the wait once it is parked (not its options: the command has them). */
  private address = '';
  private output: ToolWait['output'] | null = null;
  /** Stops the progress notifications once the wait answers. */
  private stopProgress: (() => void) | null = null;

  constructor(config: Config, ex: Exchange, stream: SseStream | null, session: McpSession, id: JsonRpcId, sessionHeader: string, resumable: ResumableStream | null = null) {
    super(config, ex, stream, session, id, sessionHeader, resumable);
    ex.releaseRequest();
    this.key = JSON.stringify(id);
    session.inflight.set(this.key, this.cancellation);
    // A hang-up ends the wait, unless its client can resume the stream: then the wait runs on so
    // that its answer is kept for the reconnection (notifications/cancelled or DELETE still end it).
    if (!resumable) ex.signal.addEventListener('abort', this.cancellation);
  }

  /** Runs the tool up to its wait (creating an inbox, for one), then parks the wait. */
  async start(ctx: Omit<ExecuteContext, 'signal'>, args: Record<string, unknown>, progressToken: unknown): Promise<void> {
    const tool = ctx.admitted.tool!;
    let wait: ToolWait;
    const toolCtx = toolContext({ ...ctx, signal: this.cancellation }, progressToken);
    try {
      wait = await tool.wait!(toolCtx, args);
    } catch (err) {
      this.reject(err as Error);
      return;
    }
    // One flat copy of the address, for the command and the answer alike.
    this.address = detached(wait.address);
    this.output = wait.output;
    this.stopProgress = reportProgress(toolCtx, wait);
    parkWait(ctx.deps, callerOf(ctx.admitted.admission), this.address, { ...wait.options, signal: this.cancellation }, this);
  }

  resolve(result: WaitResult): void {
    this.session.inflight.delete(this.key);
    this.stopProgress?.();
    let answer: unknown;
    try {
      const output = this.output!;
      const out = output(this.address, result);
      answer = toolCallResult(out);
    } catch (err) {
      this.reject(err as Error);
      return;
    }
    this.answer(answer);
  }

  reject(err: Error): void {
    this.session.inflight.delete(this.key);
    this.stopProgress?.();
    let answer: unknown;
    try {
      answer = toolErrorResult(err);
    } catch (failure) {
      this.fail(failure);
      return;
    }
    this.answer(answer);
  }
}
