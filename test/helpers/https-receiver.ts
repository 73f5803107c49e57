// A real HTTPS webhook receiver on loopback with a self-signed certificate (made with openssl). It
// verifies X-Service-Signature in constant time and answers 401 on a mismatch, as SEED.md tells
// receivers to; a test scripts the status of each next answer, or of each next answer to one
// webhook's URL.
import { execFileSync } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface Delivery {
  at: number;
  /** The request path and query: tells apart webhooks registered with different URLs. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  status: number;
}

/** What to do with the next request: a status, 'hang' (never answer) or 'huge' (200 + 5 MB body). */
export type Behaviour = number | 'hang' | 'huge';

export interface Receiver {
  url: string;
  caFile: string;
  deliveries: Delivery[];
  /** Answers to give, in order; when empty, 200. */
  script: Behaviour[];
  /** Answers for one request path and query (a webhook's URL), before `script`: for requests that arrive together. */
  scripts: Record<string, Behaviour[]>;
  /** The API key signatures must be made with. */
  key: string;
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export function makeCertificate(dir: string): { cert: string; key: string; certFile: string } {
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-addext', 'basicConstraints=critical,CA:TRUE',
  ], { stdio: 'ignore' });
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), certFile };
}

export function verifySignature(body: string, header: string | undefined, key: string): boolean {
  if (!header) return false;
  const expected = Buffer.from(createHmac('sha256', key).update(body).digest('hex'));
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function startReceiver(key = ''): Promise<Receiver> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-receiver-'));
  const tls = makeCertificate(dir);
  const hanging = new Set<import('node:http').ServerResponse>();
  const receiver: Receiver = {
    url: '', caFile: tls.certFile, deliveries: [], script: [], scripts: {}, key,
    async waitFor(count, timeoutMs = 15_000) {
      const end = Date.now() + timeoutMs;
      while (receiver.deliveries.length < count && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      if (receiver.deliveries.length < count) throw new Error(`expected ${count} deliveries, got ${receiver.deliveries.length}`);
    },
    close() {
      for (const res of hanging) res.destroy();
      return new Promise((resolve) => server.close(() => {
        rmSync(dir, { recursive: true, force: true });
        resolve();
      }));
    },
  };
  const server = https.createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const behaviour = receiver.scripts[req.url ?? '']?.shift() ?? receiver.script.shift() ?? 200;
      const signed = verifySignature(body, req.headers['x-service-signature'] as string | undefined, receiver.key);
      const status = !signed ? 401 : behaviour === 'hang' ? 0 : behaviour === 'huge' ? 200 : behaviour;
      receiver.deliveries.push({ at: Date.now(), url: req.url ?? '', headers: req.headers, body, status });
      if (behaviour === 'hang' && signed) {
        hanging.add(res);
        return;
      }
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(behaviour === 'huge' && signed ? Buffer.alloc(5 * 1024 * 1024, 'x') : 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}
