// A real HTTPS server on loopback (self-signed, as the webhook receiver) that publishes OAuth Client
// ID Metadata Documents: a test sets each path's body, headers or behaviour, and counts fetches.
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { makeCertificate } from './https-receiver.js';

export interface Published {
  body: string;
  headers?: Record<string, string>;
  status?: number;
  /** Never answer (a client that hangs the fetch). */
  hang?: boolean;
}

export interface MetadataServer {
  /** https://127.0.0.1:<port> */
  origin: string;
  caFile: string;
  docs: Map<string, Published>;
  /** Fetches per path. */
  hits: Map<string, number>;
  /** Publishes a document naming its own URL as client_id; answers that URL. */
  publish(pathname: string, metadata: Record<string, unknown>, headers?: Record<string, string>): string;
  close(): Promise<void>;
}

export async function startMetadataServer(): Promise<MetadataServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-cimd-'));
  const tls = makeCertificate(dir);
  const hanging = new Set<import('node:http').ServerResponse>();
  const docs = new Map<string, Published>();
  const hits = new Map<string, number>();
  const server = https.createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const p = req.url ?? '';
    hits.set(p, (hits.get(p) ?? 0) + 1);
    const doc = docs.get(p);
    if (!doc) {
      res.writeHead(404).end();
      return;
    }
    if (doc.hang) {
      hanging.add(res);
      return;
    }
    res.writeHead(doc.status ?? 200, { 'content-type': 'application/json', ...doc.headers });
    res.end(doc.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin, caFile: tls.certFile, docs, hits,
    publish(pathname, metadata, headers) {
      const url = `${origin}${pathname}`;
      docs.set(pathname, { body: JSON.stringify({ client_id: url, ...metadata }), headers });
      return url;
    },
    close() {
      for (const res of hanging) res.destroy();
      return new Promise((resolve) => server.close(() => {
        rmSync(dir, { recursive: true, force: true });
        resolve();
      }));
    },
  };
}
