// The official MCP SDK clients as hosts use them, v1 (@modelcontextprotocol/sdk) and v2
// (@modelcontextprotocol/client), over Streamable HTTP, each given a fetch that can break the
// answer stream of a tool call mid-wait as a network would, and that holds and records the
// reconnections the SDK then makes with Last-Event-ID (issue 36).
import { ClientCredentialsProvider as ClientCredentialsV1 } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { UnauthorizedError as UnauthorizedV1 } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  Client as ClientV2, ClientCredentialsProvider as ClientCredentialsV2, StreamableHTTPClientTransport as TransportV2, UnauthorizedError as UnauthorizedV2,
} from '@modelcontextprotocol/client';

export type Sdk = 'v1' | 'v2';
type Json = Record<string, any>;

export interface ProgressSeen {
  at: number;
  progress: number;
  message?: string;
}

/** Each SDK's own OAuth classes: a host uses the ones of the SDK it is built on. */
export const SDK_AUTH = {
  v1: { UnauthorizedError: UnauthorizedV1, ClientCredentialsProvider: ClientCredentialsV1 },
  v2: { UnauthorizedError: UnauthorizedV2, ClientCredentialsProvider: ClientCredentialsV2 },
} as const;

/**
 * How a client authenticates: an API key or access token as its bearer, or an OAuth provider
 * (the SDK's own flows: authorization code with a metadata document or registration, client credentials).
 */
export type SdkAuth = string | { authProvider: object };

/** The calls a test makes, the same for both SDK versions. */
export interface SdkClient {
  callTool(name: string, args: Json, options?: { onprogress?: (p: ProgressSeen) => void; timeoutMs?: number; resetTimeoutOnProgress?: boolean }): Promise<Json>;
  listTools(): Promise<Json[]>;
  readResource(uri: string): Promise<Json>;
  close(): Promise<void>;
}

/** A fetch for the SDK transport: cuts a tool call's answer stream on demand, holds and records reconnections. */
export class StreamCutter {
  /** The Last-Event-ID of every reconnection, in order. */
  readonly reconnections: string[] = [];
  private gate: Promise<void> = Promise.resolve();
  private openGate: () => void = () => undefined;
  private cutters: (() => void)[] = [];
  private primedWaiters: (() => void)[] = [];
  private primedCount = 0;

  /** `resumeAt`: the front a reconnection is sent to (a load balancer may route it anywhere); default the same. */
  constructor(private readonly resumeAt: string | null = null) {}

  /** Reconnections wait until release(). */
  hold(): void {
    this.gate = new Promise((resolve) => (this.openGate = resolve));
  }

  release(): void {
    this.openGate();
  }

  /** Resolves once `n` tool-call streams have delivered their priming event (the SDK then knows an event id). */
  primed(n = 1): Promise<void> {
    if (this.primedCount >= n) return Promise.resolve();
    return new Promise((resolve) => this.primedWaiters.push(() => this.primedCount >= n && resolve()));
  }

  /** Breaks every tool-call stream still open, as a lost connection would. */
  cut(): void {
    for (const c of this.cutters.splice(0)) c();
  }

  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const method = (init?.method ?? 'GET').toUpperCase();
    const headers = new Headers(init?.headers);
    const lastEventId = headers.get('last-event-id');
    let url = input instanceof Request ? input.url : String(input);
    if (method === 'GET' && lastEventId) {
      this.reconnections.push(lastEventId);
      await this.gate;
      if (this.resumeAt) url = url.replace(/^https?:\/\/[^/]+/, this.resumeAt);
    }
    const res = await fetch(url, init);
    const isCall = method === 'POST' && typeof init?.body === 'string' && init.body.includes('"tools/call"');
    if (!isCall || !res.body || !(res.headers.get('content-type') ?? '').includes('text/event-stream')) return res;
    const reader = res.body.getReader();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let cut = false;
    let sawId = false;
    const body = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
      },
      pull: async (c) => {
        try {
          const { value, done } = await reader.read();
          if (cut) return;
          if (done) return c.close();
          c.enqueue(value);
          if (!sawId && new TextDecoder().decode(value).includes('id: ')) {
            sawId = true;
            this.primedCount++;
            for (const w of this.primedWaiters) w();
          }
        } catch (err) {
          if (!cut) c.error(err);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
    this.cutters.push(() => {
      cut = true;
      controller.error(new TypeError('network connection lost'));
      reader.cancel().catch(() => undefined);
    });
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

function transportOptions(auth: SdkAuth, cutter: StreamCutter) {
  return typeof auth === 'string'
    ? { requestInit: { headers: { authorization: `Bearer ${auth}` } }, fetch: cutter.fetch }
    : { authProvider: auth.authProvider as never, fetch: cutter.fetch };
}

/**
 * The first connection of a host whose user has not signed in yet: the SDK sends the user to the
 * authorization page (the provider's redirectToAuthorization) and throws its UnauthorizedError.
 * Returns the transport's finishAuth, given the query of the redirect back to the host: v2 checks
 * its RFC 9207 `iss` against the authorization server's issuer before it redeems the code.
 */
export async function beginSignIn(sdk: Sdk, baseUrl: string, authProvider: object): Promise<{ error: unknown; finishAuth(callback: URLSearchParams): Promise<void> }> {
  const url = new URL(`${baseUrl}/mcp`);
  const options = transportOptions({ authProvider }, new StreamCutter());
  const transport = sdk === 'v1' ? new TransportV1(url, options) : new TransportV2(url, options);
  const client = sdk === 'v1' ? new ClientV1({ name: 'host', version: '1' }) : new ClientV2({ name: 'host', version: '2' });
  const error = await client.connect(transport as never).then(() => null, (err: unknown) => err);
  return {
    error,
    finishAuth: (callback) => (transport instanceof TransportV2 ? transport.finishAuth(callback) : transport.finishAuth(callback.get('code')!)),
  };
}

export async function connectSdk(sdk: Sdk, baseUrl: string, auth: SdkAuth, cutter = new StreamCutter()): Promise<SdkClient> {
  const url = new URL(`${baseUrl}/mcp`);
  const options = transportOptions(auth, cutter);
  const progress = (onprogress?: (p: ProgressSeen) => void) =>
    onprogress ? (p: { progress: number; message?: string }) => onprogress({ at: Date.now(), progress: p.progress, message: p.message }) : undefined;
  if (sdk === 'v1') {
    const client = new ClientV1({ name: 'mailcue-test-v1', version: '1.0.0' });
    await client.connect(new TransportV1(url, options));
    return {
      callTool: async (name, args, o = {}) =>
        (await client.callTool({ name, arguments: args }, undefined, {
          onprogress: progress(o.onprogress), timeout: o.timeoutMs ?? 90_000, resetTimeoutOnProgress: o.resetTimeoutOnProgress,
        })) as Json,
      listTools: async () => (await client.listTools()).tools as Json[],
      readResource: async (uri) => (await client.readResource({ uri })) as Json,
      close: () => client.close(),
    };
  }
  const client = new ClientV2({ name: 'mailcue-test-v2', version: '2.0.0' });
  await client.connect(new TransportV2(url, options));
  return {
    callTool: async (name, args, o = {}) =>
      (await client.callTool({ name, arguments: args }, {
        onprogress: progress(o.onprogress), timeout: o.timeoutMs ?? 90_000, resetTimeoutOnProgress: o.resetTimeoutOnProgress,
      } as never)) as Json,
    listTools: async () => (await client.listTools()).tools as Json[],
    readResource: async (uri) => (await client.readResource({ uri })) as Json,
    close: () => client.close(),
  };
}
