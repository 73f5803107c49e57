// The only importer of etcd3 (with the other cluster/ modules): one client per process, every key
// under MAILCUE_ETCD_PREFIX. etcd is reached over TLS when its endpoints are https.
import { Etcd3, type Namespace } from 'etcd3';

export interface EtcdOptions {
  readonly endpoints: readonly string[];
  /** Key prefix, e.g. "/mailcue/". */
  readonly prefix: string;
  /** PEM bytes of the cluster's CA and this process's certificate, used for https endpoints. */
  readonly tls?: { readonly ca: Buffer; readonly cert: Buffer; readonly key: Buffer } | null;
}

export interface EtcdHandle {
  readonly client: Etcd3;
  /** Every key this process reads or writes lives under the prefix. */
  readonly ns: Namespace;
  close(): void;
}

export function connectEtcd(options: EtcdOptions): EtcdHandle {
  const hosts = options.endpoints.map((e) => (/^https?:\/\//.test(e) ? e : `http://${e}`));
  const secure = hosts.some((h) => h.startsWith('https://'));
  const client = new Etcd3({
    hosts,
    ...(secure && options.tls
      ? { credentials: { rootCertificate: options.tls.ca, certChain: options.tls.cert, privateKey: options.tls.key } }
      : {}),
    dialTimeout: 5000,
  });
  return { client, ns: client.namespace(options.prefix), close: () => client.close() };
}

export type { Namespace };
