// OAuth discovery documents (research/protocols.md §5): RFC 8414 authorization-server metadata and
// one RFC 9728 protected-resource document per endpoint a client may be handed. Every document's
// authorization_servers[0] is byte-identical to the issuer.
import type { Config } from '../../config/config.js';
import type { Router } from '../http/router.js';
import type { Cors } from '../http/cors.js';

export const SCOPE = 'mcp';

export function issuer(config: Config): string {
  return config.publicUrl;
}

/** The resources a token may be requested for (RFC 8707), as clients spell them. */
export function knownResources(config: Config): Set<string> {
  const base = config.mcpUrl;
  return new Set([base, `${base}/`, `${base}/mcp`, `${base}/mcp/`, `${base}/sse`, `${base}/sse/`]);
}

export function authorizationServerMetadata(config: Config) {
  return {
    issuer: issuer(config),
    authorization_endpoint: `${config.mcpUrl}/authorize`,
    token_endpoint: `${config.mcpUrl}/token`,
    // RFC 7591, the fallback for clients without a metadata document (registration.ts).
    registration_endpoint: `${config.mcpUrl}/register`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    // client_credentials: a scoped key's id and secret (MCP extension io.modelcontextprotocol/oauth-client-credentials).
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    code_challenge_methods_supported: ['S256'],
    // none: public clients (PKCE); client_secret_*: a scoped key in the client-credentials grant.
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    scopes_supported: [SCOPE],
    // RFC 9207: every authorization response names this issuer in `iss`.
    authorization_response_iss_parameter_supported: true,
    // MCP 2025-11-25: an https client_id names the client's metadata document (client-metadata.ts).
    client_id_metadata_document_supported: true,
    service_documentation: `${config.publicUrl}/#connecting-an-mcp-client`,
  };
}

function protectedResource(config: Config, resource: string) {
  return {
    resource,
    authorization_servers: [issuer(config)],
    bearer_methods_supported: ['header'],
    scopes_supported: [SCOPE],
    resource_name: 'Mailcue agent tools',
  };
}

export function metadataRoutes(router: Router, config: Config, cors: Cors): void {
  const docs: [string, () => unknown][] = [
    ['/.well-known/oauth-authorization-server', () => authorizationServerMetadata(config)],
    ['/.well-known/oauth-protected-resource', () => protectedResource(config, config.mcpUrl)],
    ['/.well-known/oauth-protected-resource/mcp', () => protectedResource(config, `${config.mcpUrl}/mcp`)],
    ['/.well-known/oauth-protected-resource/sse', () => protectedResource(config, `${config.mcpUrl}/sse`)],
  ];
  for (const [path, body] of docs) {
    router
      .add('get', path, (ex) => {
        cors.apply(ex);
        ex.sendJson(200, body(), [['Cache-Control', 'public, max-age=300']]);
      })
      .add('options', path, (ex) => cors.preflight(ex));
  }
}
