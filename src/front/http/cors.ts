// CORS and Origin checks for the agent-tool and OAuth paths (research/protocols.md §7.1): browser
// clients must read Mcp-Session-Id and WWW-Authenticate, and a foreign Origin is refused (403)
// against DNS rebinding. A request without Origin (every non-browser client) is allowed.
import type { Config } from '../../config/config.js';
import { MailcueError } from '../../errors/registry.js';
import type { Exchange } from './exchange.js';

const EXPOSE = 'Mcp-Session-Id, WWW-Authenticate, Mcp-Protocol-Version';
const ALLOW_HEADERS = 'Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID';
const ALLOW_METHODS = 'GET, POST, DELETE, OPTIONS';

export class Cors {
  private readonly allowed: Set<string>;

  constructor(config: Config) {
    this.allowed = new Set([new URL(config.publicUrl).origin, new URL(config.mcpUrl).origin, ...config.allowedOrigins.map((o) => new URL(o).origin)]);
  }

  originAllowed(ex: Exchange): boolean {
    const origin = ex.header('origin');
    return !origin || this.allowed.has(origin);
  }

  /** Refuses a foreign Origin with 403 (MCP 2025-11-25: "MUST respond with 403 Forbidden"). */
  check(ex: Exchange): void {
    if (!this.originAllowed(ex)) throw new MailcueError('forbidden_origin', 'Forbidden: Origin not allowed');
  }

  /** Adds the CORS headers to the answer being built. */
  apply(ex: Exchange): void {
    const origin = ex.header('origin');
    ex.setHeader('Access-Control-Allow-Origin', origin && this.allowed.has(origin) ? origin : '*')
      .setHeader('Access-Control-Expose-Headers', EXPOSE)
      .setHeader('Vary', 'Origin');
  }

  preflight(ex: Exchange): void {
    this.apply(ex);
    ex.send(204, '', null, [
      ['Access-Control-Allow-Methods', ALLOW_METHODS],
      ['Access-Control-Allow-Headers', ALLOW_HEADERS],
      ['Access-Control-Max-Age', '86400'],
    ]);
  }
}
