// Certificates made at test time with the openssl CLI: a cluster CA, a certificate for
// 127.0.0.1/localhost used by shards and fronts alike, and a second CA's certificate a stranger holds.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TestCerts {
  readonly dir: string;
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
  /** Signed by another CA: must be refused. */
  readonly strangerCert: string;
  readonly strangerKey: string;
  /** MAILCUE_TLS_* for a cluster process. */
  readonly env: Record<string, string>;
  remove(): void;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

function authority(dir: string, name: string): void {
  openssl(dir, ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2',
    '-subj', `/CN=${name}`, '-keyout', `${name}.key`, '-out', `${name}.crt`]);
}

function leaf(dir: string, ca: string, name: string): void {
  writeFileSync(path.join(dir, `${name}.ext`), [
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
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
  leaf(dir, 'cluster-ca', 'member');
  authority(dir, 'other-ca');
  leaf(dir, 'other-ca', 'stranger');
  const f = (name: string) => path.join(dir, name);
  return {
    dir, ca: f('cluster-ca.crt'), cert: f('member.crt'), key: f('member.key'),
    strangerCert: f('stranger.crt'), strangerKey: f('stranger.key'),
    env: { MAILCUE_TLS_CA: f('cluster-ca.crt'), MAILCUE_TLS_CERT: f('member.crt'), MAILCUE_TLS_KEY: f('member.key') },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
