// Certificates made at test time with the openssl CLI: a cluster CA; for 127.0.0.1/localhost a
// shard's certificate and a front's (their role in a URI SAN, src/rpc/roles.ts) and one without a
// role; and a second CA's certificate a stranger holds.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROLE_URIS, type PeerRole } from '../../src/rpc/roles.js';

export interface TestCerts {
  readonly dir: string;
  readonly ca: string;
  /** The shard role's certificate and key. */
  readonly cert: string;
  readonly key: string;
  readonly frontCert: string;
  readonly frontKey: string;
  /** Signed by the cluster CA, no role: a front's rights. */
  readonly roleless: { cert: string; key: string };
  /** Signed by another CA: must be refused. */
  readonly strangerCert: string;
  readonly strangerKey: string;
  /** MAILCUE_TLS_* for a shard (and the admin CLI). */
  readonly env: Record<string, string>;
  /** MAILCUE_TLS_* for a front. */
  readonly frontEnv: Record<string, string>;
  remove(): void;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

function authority(dir: string, name: string): void {
  openssl(dir, ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2',
    '-subj', `/CN=${name}`, '-keyout', `${name}.key`, '-out', `${name}.crt`]);
}

function leaf(dir: string, ca: string, name: string, role: PeerRole | null): void {
  writeFileSync(path.join(dir, `${name}.ext`), [
    `subjectAltName=IP:127.0.0.1,DNS:localhost${role ? `,URI:${ROLE_URIS[role]}` : ''}`,
    'extendedKeyUsage=serverAuth,clientAuth',
    'basicConstraints=CA:FALSE',
  ].join('\n'));
  openssl(dir, ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', `/CN=${name}`,
    '-keyout', `${name}.key`, '-out', `${name}.csr`]);
  openssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.crt`, '-CAkey', `${ca}.key`, '-CAcreateserial',
    '-days', '2', '-extfile', `${name}.ext`, '-out', `${name}.crt`]);
}

export function makeCerts(): TestCerts {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-certs-'));
  authority(dir, 'cluster-ca');
  leaf(dir, 'cluster-ca', 'shard', 'shard');
  leaf(dir, 'cluster-ca', 'front', 'front');
  leaf(dir, 'cluster-ca', 'roleless', null);
  authority(dir, 'other-ca');
  leaf(dir, 'other-ca', 'stranger', 'shard');
  const f = (name: string) => path.join(dir, name);
  return {
    dir, ca: f('cluster-ca.crt'), cert: f('shard.crt'), key: f('shard.key'), frontCert: f('front.crt'), frontKey: f('front.key'),
    roleless: { cert: f('roleless.crt'), key: f('roleless.key') },
    strangerCert: f('stranger.crt'), strangerKey: f('stranger.key'),
    env: { MAILCUE_TLS_CA: f('cluster-ca.crt'), MAILCUE_TLS_CERT: f('shard.crt'), MAILCUE_TLS_KEY: f('shard.key') },
    frontEnv: { MAILCUE_TLS_CA: f('cluster-ca.crt'), MAILCUE_TLS_CERT: f('front.crt'), MAILCUE_TLS_KEY: f('front.key') },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
