// Mutual TLS between cluster processes (DESIGN.md §8 "Between tiers"): both sides present a
// certificate signed by MAILCUE_TLS_CA, and a shard refuses a client without one. Without TLS a
// cluster process listens only on loopback, unless told `--insecure`.
import { readFileSync } from 'node:fs';
import { ConfigError, type Config } from '../config/config.js';
import { grpc } from './proto.js';

export interface TlsMaterial {
  readonly ca: Buffer;
  readonly cert: Buffer;
  readonly key: Buffer;
  /** Checked against the server's certificate instead of the dialled host, when set. */
  readonly serverName: string | null;
}

export function loadTls(config: Pick<Config, 'tls' | 'tlsServerName'>): TlsMaterial | null {
  if (!config.tls) return null;
  const read = (name: string, file: string) => {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new ConfigError(`${name}: cannot read ${file}: ${(err as Error).message}`);
    }
  };
  return {
    ca: read('MAILCUE_TLS_CA', config.tls.ca),
    cert: read('MAILCUE_TLS_CERT', config.tls.cert),
    key: read('MAILCUE_TLS_KEY', config.tls.key),
    serverName: config.tlsServerName,
  };
}

export function serverCredentials(tls: TlsMaterial | null): grpc.ServerCredentials {
  if (!tls) return grpc.ServerCredentials.createInsecure();
  // true: a client that presents no certificate signed by the CA is refused in the handshake.
  return grpc.ServerCredentials.createSsl(tls.ca, [{ private_key: tls.key, cert_chain: tls.cert }], true);
}

export function channelCredentials(tls: TlsMaterial | null): grpc.ChannelCredentials {
  return tls ? grpc.credentials.createSsl(tls.ca, tls.key, tls.cert) : grpc.credentials.createInsecure();
}

/** Extra channel options of a TLS channel (the name its certificate must carry). */
export function channelOptions(tls: TlsMaterial | null): grpc.ChannelOptions {
  return tls?.serverName ? { 'grpc.ssl_target_name_override': tls.serverName, 'grpc.default_authority': tls.serverName } : {};
}

/** Whether a grpc-js bind target ("host:port", "[v6]:port", "unix:…") stays on this machine. */
export function isLoopbackTarget(target: string): boolean {
  if (target.startsWith('unix:')) return true;
  const host = target.replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Refuses, with one clear line, a plaintext listener that other machines could reach. */
export function assertListenAllowed(target: string, tls: TlsMaterial | null, insecure: boolean): void {
  if (tls || insecure || isLoopbackTarget(target)) return;
  throw new ConfigError(
    `refusing to listen on ${target} without TLS: set MAILCUE_TLS_CA, MAILCUE_TLS_CERT and MAILCUE_TLS_KEY, or pass --insecure`,
  );
}
