// The agent-tool server, independent of transport: admission of a JSON-RPC message (credential,
// plan, ops, credits, in SEED.md's order), then dispatch of initialize, ping, tools/*, resources/*.
// Both transports (Streamable HTTP and legacy SSE) call `admit` and `execute`.
import { createRequire } from 'node:module';
import type { Admission } from '../../contract/results.js';
import type { Meter } from '../../contract/commands.js';
import type { Plan } from '../../config/plans.js';
import { toolCredits } from '../../config/plans.js';
import { MailcueError } from '../../errors/registry.js';
import { listInboxes } from '../../services/inboxes.js';
import { listMessages } from '../../services/messages.js';
import type { Deps } from '../../services/deps.js';
import { normalizeAddress } from '../../services/validate.js';
import { callerOf } from '../../services/scope.js';
import { Cancellation, type CancelSignal } from '../../util/cancel.js';
import { admitToken, admitWaiting, recentlyAdmitted } from '../auth.js';
import { inertJson, invalidParams, methodNotFound, toJsonRpcFailure, toolCallResult, type JsonRpcRequest } from './jsonrpc.js';
import type { McpSession } from './sessions.js';
import { findTool, toolList, validateArguments } from './tools/registry.js';
import { askedWaitMs, type Tool, type ToolContext, type ToolOutput } from './tools/tool.js';

export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
export const LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[0];
export const SERVER_NAME = 'mailcue';
export const SERVER_VERSION: string = (createRequire(import.meta.url)('../../../package.json') as { version: string }).version;

export function negotiateVersion(requested: unknown): string {
  return typeof requested === 'string' && (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

/** Methods that need a plan with tool execution (DESIGN §4). */
const GATED = new Set(['tools/call', 'resources/read']);

export interface Admitted {
  admission: Admission;
  plan: Plan;
  tool?: Tool<any>;
  args?: Record<string, unknown>;
  /** A -32601/-32602 found before admission, answered only once the caller is known. */
  deferred?: MailcueError;
  /** A read-only tool already running beside the admission, for the admitted account. */
  early?: Promise<ToolOutput>;
  /** A long-poll tool: what is left of the wait it asked for once admission (retried through a failover) passed. */
  waitLeftMs?: number;
}

const NEVER_CANCELLED = new Cancellation();

/** MCP: a progressToken is a string or an integer; anything else is refused before it runs. */
function checkProgressToken(meta: unknown): void {
  if (meta === undefined) return;
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) throw invalidParams('_meta must be an object');
  const token = (meta as { progressToken?: unknown }).progressToken;
  if (token !== undefined && typeof token !== 'string' && !Number.isInteger(token)) throw invalidParams('_meta.progressToken must be a string or an integer');
}

export function planBlock(plan: Plan): MailcueError {
  return new MailcueError('plan_required', `MCP is not available on the ${plan.title} plan`, { upgrade: 'Growth required' });
}

/**
 * Authenticates and meters one message. A tool call that will run is metered as a tool call (ops,
 * credits); every other message, and a tool call refused before it runs (bad session, unknown tool,
 * invalid argument), counts against the account's REST requests per minute (DESIGN §7), unless the
 * caller passes `{ kind: 'none' }` (ending a session must stay possible when rate limited).
 */
export async function admit(
  deps: Deps, token: string | null, message: JsonRpcRequest, session: McpSession | null, sessionOk: boolean, otherwise: Meter = { kind: 'rest' },
): Promise<Admitted> {
  let tool: Tool<any> | undefined;
  let args: Record<string, unknown> | undefined;
  let deferred: MailcueError | undefined;
  if (message.method === 'tools/call') {
    const name = message.params?.name;
    tool = typeof name === 'string' ? findTool(name) : undefined;
    try {
      if (typeof name !== 'string') throw invalidParams('Missing required parameter: name');
      if (!tool) throw methodNotFound(`Unknown tool: ${name}`);
      args = validateArguments(tool, message.params?.arguments);
      checkProgressToken(message.params?._meta);
    } catch (err) {
      deferred = err as MailcueError;
    }
  }
  const meter: Meter = tool && !deferred && sessionOk ? { kind: 'tool', credits: toolCredits(tool.name) } : otherwise;
  // A read-only tool of a credential admitted here within the last minute, on a plan that runs
  // tools, starts now beside its admission: the caller waits one shard round trip, not two. Any
  // other caller is admitted first, so an unknown key makes the shard read nothing (DESIGN §7).
  const known = tool?.readOnly && !deferred && sessionOk ? recentlyAdmitted(deps, token) : undefined;
  const speculativeAccount =
    known && deps.config.plans[known.plan].toolExecution && (!session || session.accountId === known.accountId) ? known.accountId : null;
  let early: Promise<ToolOutput> | undefined;
  if (speculativeAccount && tool && args) {
    const caller = known!.scope ? { accountId: speculativeAccount, scope: known!.scope } : { accountId: speculativeAccount };
    early = tool.run({ deps, caller, signal: NEVER_CANCELLED, maxWaitMs: 0, progress: () => undefined, progressEveryMs: null }, args);
    early.catch(() => undefined); // read (or dropped) after admission
  }
  let admission: Admission;
  let waitLeftMs: number | undefined;
  if (tool?.longPoll && args && !deferred && sessionOk) {
    // A wait tool's admission is retried through a failover, within the wait it asked for.
    const budgetMs = askedWaitMs(tool, args);
    const admitted = await admitWaiting(() => admitToken(deps, token, meter, session), budgetMs);
    admission = admitted.value;
    waitLeftMs = Math.max(0, budgetMs - admitted.spentMs);
  } else {
    admission = await admitToken(deps, token, meter, session);
  }
  const plan = deps.config.plans[admission.account.plan];
  if (GATED.has(message.method) && !plan.toolExecution) throw planBlock(plan);
  return { admission, plan, tool, args, deferred, early: speculativeAccount === admission.account.id ? early : undefined, waitLeftMs };
}

export interface ExecuteContext {
  deps: Deps;
  admitted: Admitted;
  session: McpSession | null;
  signal: CancelSignal;
  maxWaitMs: number;
  /** Sends a JSON-RPC notification on the request's stream, when it has one. */
  notify: ((message: unknown) => void) | null;
}

export function initializeResult(requested: unknown) {
  return {
    protocolVersion: negotiateVersion(requested),
    capabilities: { tools: {}, resources: {} },
    serverInfo: { name: SERVER_NAME, version: SERVER_VERSION },
    instructions:
      'Mailcue gives you email inboxes. create_and_wait_for_otp makes an inbox and waits for the code sent to it; ' +
      'watch_email waits for the next email on an inbox; extract_otp returns the latest code or verification link.',
  };
}


const INBOX_URI = /^mailcue:\/\/inbox\/(.+)$/;

/** The inbox a `mailcue://inbox/<address>` resource names, or null. */
function inboxOfUri(uri: string): string | null {
  const encoded = INBOX_URI.exec(uri)?.[1];
  if (!encoded) return null;
  try {
    return normalizeAddress(decodeURIComponent(encoded))?.address ?? null;
  } catch {
    return null; // malformed percent-encoding
  }
}

/** What a tool run sees of its request: the caller, the abort, and progress on the request's stream. */
export function toolContext(ctx: ExecuteContext, progressToken: unknown): ToolContext {
  return {
    deps: ctx.deps,
    caller: callerOf(ctx.admitted.admission),
    signal: ctx.signal,
    maxWaitMs: Math.min(ctx.maxWaitMs, ctx.admitted.waitLeftMs ?? Infinity),
    progressEveryMs: progressToken !== undefined && ctx.notify ? ctx.deps.config.mcpProgressMs : null,
    progress(progress, message, total) {
      if (progressToken === undefined || !ctx.notify) return;
      ctx.notify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress, message, ...(total === undefined ? {} : { total }) } });
    },
  };
}

/** The progress token a tools/call asked for, if any. */
export function progressTokenOf(message: JsonRpcRequest): unknown {
  return (message.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
}

/**
 * A tool's error as its caller sees it: protocol errors are thrown as JSON-RPC failures; not-found
 * and similar become a result the model can act on, never another account's data.
 */
export function toolErrorResult(err: unknown): { content: { type: 'text'; text: string }[]; isError: true } {
  const failure = toJsonRpcFailure(err);
  if (failure) throw failure;
  const details = err instanceof MailcueError && err.details ? `\n${JSON.stringify(err.details)}` : '';
  return { content: [{ type: 'text', text: `${(err as Error).message}${details}` }], isError: true };
}

async function runTool(ctx: ExecuteContext, tool: Tool<any>, args: Record<string, unknown>, progressToken: unknown) {
  try {
    const out = await (ctx.admitted.early ?? tool.run(toolContext(ctx, progressToken), args));
    return toolCallResult(out);
  } catch (err) {
    return toolErrorResult(err);
  }
}

/** Runs an admitted request and returns its JSON-RPC result (or throws a MailcueError). */
export async function execute(ctx: ExecuteContext, message: JsonRpcRequest): Promise<unknown> {
  const { deps, admitted } = ctx;
  if (admitted.deferred) throw admitted.deferred;
  const caller = callerOf(admitted.admission);
  switch (message.method) {
    case 'initialize':
      return initializeResult(message.params?.protocolVersion);
    case 'ping':
      return {};
    case 'tools/list':
      return { tools: toolList() };
    case 'tools/call':
      return runTool(ctx, admitted.tool!, admitted.args!, progressTokenOf(message));
    case 'resources/list': {
      const inboxes = await listInboxes(deps, caller);
      return {
        resources: inboxes.map((i) => ({
          uri: `mailcue://inbox/${i.address}`, name: i.address, mimeType: 'application/json',
          description: `Latest messages of ${i.address} (${i.message_count} messages, ${i.unread_count} unread)`,
        })),
      };
    }
    case 'resources/templates/list':
      return { resourceTemplates: [{ uriTemplate: 'mailcue://inbox/{address}', name: 'inbox', mimeType: 'application/json' }] };
    case 'resources/read': {
      const uri = message.params?.uri;
      if (typeof uri !== 'string') throw invalidParams('Missing required parameter: uri');
      // MCP: an unknown resource is the JSON-RPC error -32002; another account's inbox is unknown alike.
      const unknown = () => new MailcueError('resource_not_found', `No resource ${uri}`);
      const address = inboxOfUri(uri);
      if (!address) throw unknown();
      try {
        const messages = await listMessages(deps, caller, address, 10, false);
        return { contents: [{ uri, mimeType: 'application/json', text: inertJson(JSON.stringify({ inbox: address, messages })) }] };
      } catch (err) {
        if (err instanceof MailcueError && err.code === 'inbox_not_found') throw unknown();
        throw err;
      }
    }
    default:
      throw methodNotFound(`Unknown method: ${message.method}`);
  }
}
