// Connects the official MCP SDK client over either transport.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export type TransportKind = 'streamable-http' | 'sse';

export async function connectMcp(kind: TransportKind, baseUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: 'mailcue-test', version: '1.0.0' });
  const headers = { authorization: `Bearer ${token}` };
  const transport =
    kind === 'streamable-http'
      ? new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers } })
      : new SSEClientTransport(new URL(`${baseUrl}/sse`), {
          requestInit: { headers },
          eventSourceInit: { fetch: (url, init) => fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }) },
        });
  await client.connect(transport);
  return client;
}

/** One raw JSON-RPC POST to /mcp, as a non-SDK client would send it. */
export async function rawMcp(baseUrl: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** initialize over raw HTTP; returns the session id. */
export async function rawInitialize(baseUrl: string, token: string, protocolVersion = '2024-11-05'): Promise<string> {
  const res = await rawMcp(baseUrl, {
    jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  }, { authorization: `Bearer ${token}` });
  if (res.status !== 200) throw new Error(`initialize: ${res.status} ${await res.text()}`);
  return res.headers.get('mcp-session-id')!;
}
