// Reporting the ports a process actually bound. Started on port 0 (tests, several instances on
// one host), the front then names its own URL after the bound port, and writes the ports to
// MAILCUE_PORTS_FILE for whoever started it.
import { renameSync, writeFileSync } from 'node:fs';
import type { Config } from '../config/config.js';

/** A configured URL on port 0 means "this front, on the port it bound": e.g. http://127.0.0.1:0. */
function onBoundPort(raw: string, port: number): string {
  const url = new URL(raw);
  if (url.port !== '0') return raw;
  url.port = String(port);
  return url.href.replace(/\/+$/, '');
}

/** The configuration with public URLs that named port 0 pointing at the bound HTTP port. */
export function withBoundHttpPort(config: Config, port: number): Config {
  const publicUrl = onBoundPort(config.publicUrl, port);
  const mcpUrl = onBoundPort(config.mcpUrl, port);
  if (publicUrl === config.publicUrl && mcpUrl === config.mcpUrl) return config;
  return Object.freeze({ ...config, publicUrl, mcpUrl });
}

/** Writes `{http, smtp, grpc}` (whichever this process bound) atomically to MAILCUE_PORTS_FILE. */
export function reportBoundPorts(config: Config, ports: Record<string, number>): void {
  if (!config.portsFile) return;
  const tmp = `${config.portsFile}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(ports));
  renameSync(tmp, config.portsFile);
}
